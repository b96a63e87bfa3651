"""Re-solving a seeded sample of a sweep's rows on this installation (``tilesweep verify``).

A reader of a published sweep checks its figures by solving a sample of its rows again,
here, and comparing what a row records of the search: status, cost, moves, nodes generated
and expanded. Every algorithm is deterministic, so any difference is a finding (another
kernel, another heuristic table, an edited row). Rows whose outcome depends on the machine
are not compared: ``timeout`` (the clock), ``error`` and a memory ``budget_exceeded`` (the
worker's memory); the re-solve runs without a time limit or memory budget, under the
sweep's node budget.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path

import numpy as np
import pandas as pd

from .spec import SweepSpec

COMPARED = ("status", "cost", "moves", "nodes_generated", "nodes_expanded")
KEY = ("instance", "algorithm", "heuristic")


@dataclass
class Recheck:
    """What :func:`recheck` compared: rows checked, rows left out, and one line per difference."""

    checked: int = 0
    skipped: int = 0
    rows: int = 0
    differences: list[str] = field(default_factory=list)


def reproducible(rows: pd.DataFrame) -> pd.Series:
    """Rows whose outcome depends on the board and the spec alone."""
    memory = (rows["status"] == "budget_exceeded") & (rows["status_reason"] == "memory")
    return ~(rows["status"].isin(["timeout", "error"]) | memory)


def sample(rows: pd.DataFrame, n: int | None, seed: int) -> pd.DataFrame:
    """``n`` rows drawn without replacement by ``seed`` (all when ``n`` is None or larger), in row order."""
    if n is None or n >= len(rows):
        return rows
    picked = np.sort(np.random.default_rng(seed).choice(len(rows), size=n, replace=False))
    return rows.iloc[picked]


def recheck(folder: Path, n: int | None, seed: int, store: str | None, plugin_files=()) -> Recheck:
    """Solve ``n`` of the sweep's reproducible rows again (seeded) and compare them.

    The sweep's plugin heuristics run from ``plugin_files``, each the version the sweep
    recorded, never from the source stored in the sweep (whoever handed it over)."""
    from tilesweep.pdb_store import open_store, tables_for
    from tilesweep.solver.heuristics import parse_heuristic

    from .plugins import load_recorded_files
    from .results import load_results
    from .work import ChunkJob, solve_one

    spec = SweepSpec.from_json((Path(folder) / "sweep.json").read_text())
    plugins = load_recorded_files(plugin_files, spec.plugins)
    rows = load_results(folder)
    keep = reproducible(rows)
    picked = sample(rows[keep], n, seed)
    job = ChunkJob(spec.name, 0, spec.size, spec.goal_tuple, spec.combos, spec.max_nodes, (), None, None,
                   spec.prune, plugins=plugins, conventions=spec.conventions)
    opened = open_store(store)
    tables = {}

    def tables_of(heuristic: str) -> tuple:
        if heuristic not in tables:
            tables[heuristic] = tables_for(parse_heuristic(heuristic, spec.size, spec.goal_tuple), spec.size,
                                           spec.goal_tuple, opened)
        return tables[heuristic]

    out = Recheck(rows=len(rows), skipped=int((~keep).sum()))
    for row in picked.itertuples(index=False):
        tiles = tuple(int(t) for t in row.tiles.split())
        again = solve_one(job, int(row.instance), tiles, row.algorithm, row.heuristic, tables_of)
        out.checked += 1
        for column in COMPARED:
            recorded, now = _value(getattr(row, column)), _value(again[column])
            if recorded != now:
                out.differences.append(f"instance {row.instance} ({row.algorithm}, {row.heuristic}): {column} "
                                       f"{recorded!r} recorded, {now!r} now")
    return out


def _value(value):
    """A cell as plain Python: pandas' missing values as None, numbers as int."""
    if value is None or value is pd.NA or (isinstance(value, float) and np.isnan(value)):
        return None
    return int(value) if isinstance(value, (int, np.integer)) else value
