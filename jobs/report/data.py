"""The numbers a report shows, computed from the sweeps' Parquet with DuckDB and pandas.

Rows are read once, numeric columns only. An *item* is one instance: a hash of (size,
goal, tiles) with its occurrence number (a random sample may draw a board twice), so two
sweeps of the same instances pair up whatever their names and chunks. A *configuration* is
(size, algorithm, heuristic, pruning), with the sweep added when two given sweeps share one
(a before/after pair); its label names the pruning only when the rows hold several.
Statuses are taken from the data, never from a fixed list.
A report times by one clock (:mod:`..clocks`, ``cpu`` unless ``wall`` is asked for): its
rows' ``seconds`` are that clock's search seconds, and every label says which.
"""

from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np
import pandas as pd
import pyarrow as pa
import pyarrow.compute as pc

from tilesweep.solver.errors import InvalidOptionError
from tilesweep.solver.status import STATUSES

from ..clocks import COLUMNS as CLOCK_COLUMNS, DEFAULT as DEFAULT_CLOCK, seconds_label
from ..summary import summarize
from .sql import connect
from .sweeps import Sweep

ROW_COLUMNS = ("sweep, instance, size, goal, algorithm, heuristic, pruning, status, cost, nodes_generated, "
               "ebf, h0, {seconds} AS seconds, hash(size, goal, tiles) AS board")
STATUS_ORDER = STATUSES + ("depth_limit",)  # known first (depth_limit: sweeps before the split), others after
CONFIG = ["size", "algorithm", "heuristic", "pruning"]
# the summary's figures a report shows, by clock: the report's clock first, the other beside it
SUMMARY_FIGURES = {clock: ["nodes_mean", "nodes_median", "ebf_mean", "cost_mean", f"{column}_mean",
                           *(f"{other}_mean" for name, other in CLOCK_COLUMNS.items() if name != clock),
                           "nodes_per_second" if clock == "wall" else "nodes_per_cpu_second"]
                   for clock, column in CLOCK_COLUMNS.items()}


@dataclass
class ReportData:
    """Every row (numeric columns), its configuration label, and the chosen baseline."""

    sweeps: list[Sweep]
    rows: pd.DataFrame
    config_keys: list[str]
    baseline: str
    con: object = field(repr=False, default=None)
    clock: str = DEFAULT_CLOCK  # the clock of ``rows["seconds"]``
    configs: list[str] = field(init=False)

    def __post_init__(self):
        self.configs = list(self.rows["config"].unique())

    @property
    def seconds_label(self) -> str:
        """``CPU seconds`` or ``wall seconds``."""
        return seconds_label(self.clock)

    @property
    def statuses(self) -> list[str]:
        seen = set(self.rows["status"])
        return [s for s in STATUS_ORDER if s in seen] + sorted(seen - set(STATUS_ORDER))


def _labels(rows: pd.DataFrame, keys: list[str]) -> pd.Series:
    """``algorithm heuristic`` (``sweep: ...`` when sweeps share a configuration; the puzzle
    when sizes are mixed; ``... pruning`` when prunings are), as a categorical in order of
    first appearance."""
    groups = rows.groupby(keys, sort=False, observed=True)
    combos = groups.size().reset_index()[keys].astype({k: str for k in keys if k != "size"})
    label = combos["algorithm"] + " " + combos["heuristic"]
    if rows["pruning"].nunique() > 1:
        label = label + " " + combos["pruning"]
    if rows["size"].nunique() > 1:
        label = (combos["size"] ** 2 - 1).astype(str) + "-puzzle " + label
    if "sweep" in keys:
        label = combos["sweep"] + ": " + label
    return pd.Series(pd.Categorical.from_codes(groups.ngroup().to_numpy(), categories=label.tolist()), index=rows.index)


def _read_rows(con, clock: str) -> pd.DataFrame:
    """The report's columns of every row, ``seconds`` by ``clock``, with the first 12
    characters of a plugin heuristic's ``heuristic_version`` (null in older parts); text
    columns as categoricals (fast to group)."""
    columns = ROW_COLUMNS.format(seconds=CLOCK_COLUMNS[clock])
    table = con.sql(f"SELECT {columns}, left(heuristic_version, 12) AS heuristic_version FROM results").to_arrow_table()
    for i, column in enumerate(table.schema):
        if pa.types.is_string(column.type) or pa.types.is_large_string(column.type):
            table = table.set_column(i, column.name, pc.dictionary_encode(table.column(i)))
    rows = table.to_pandas()
    for column in ("cost", "nodes_generated", "h0", "ebf", "seconds"):
        rows[column] = rows[column].astype("float64")
    return rows


def load(sweeps: list[Sweep], baseline: str | None = None, clock: str = DEFAULT_CLOCK) -> ReportData:
    """Read the rows of ``sweeps``, timed by ``clock``; ``baseline`` defaults to the first
    sweep's first heuristic."""
    con = connect(sweeps, summary=False)
    rows = _read_rows(con, clock)
    keys = list(CONFIG)
    per_sweep = rows.groupby(keys, sort=False, observed=True)["sweep"].nunique()
    if (per_sweep > 1).any():
        keys = ["sweep"] + keys
    rows["config"] = _labels(rows, keys)
    rows = rows.sort_values(["sweep", "instance"], kind="stable", ignore_index=True)
    rows["occurrence"] = rows.groupby(["config", "board"], sort=False, observed=True).cumcount()
    rows["item"] = rows.groupby(["board", "occurrence"], sort=False).ngroup()
    heuristics = [str(h) for h in rows["heuristic"].unique()]
    if baseline is None:
        spec_first = (sweeps[0].spec.get("heuristics") or [None])[0]
        baseline = spec_first if spec_first in heuristics else heuristics[0]
    elif baseline not in heuristics:
        raise InvalidOptionError(f"baseline {baseline!r} is not a heuristic of these sweeps; "
                                 f"expected one of: {', '.join(heuristics)}")
    return ReportData(sweeps, rows, keys, baseline, con, clock)


def status_counts(data: ReportData) -> pd.DataFrame:
    """Rows per configuration and status, one column per status present."""
    counts = data.rows.groupby(["config", "status"], sort=False).size().unstack(fill_value=0)
    return counts.reindex(index=data.configs, columns=data.statuses, fill_value=0).astype("int64")


def _summary(data: ReportData) -> pd.DataFrame:
    """:func:`summarize` of each sweep's parts in place when there is one sweep or sweeps
    share configurations, else of the rows read (configurations spread over sweeps)."""
    frames = []
    by_sweep = "sweep" in data.config_keys or len(data.sweeps) == 1
    for source in (data.sweeps if by_sweep else [None]):
        frame = summarize(list(source.parts)) if source is not None else summarize(data.rows)
        rows = data.rows if source is None else data.rows[data.rows["sweep"] == source.name]
        first = rows.drop_duplicates(CONFIG).astype({"algorithm": str, "heuristic": str, "pruning": str})
        first = first.set_index(CONFIG)["config"]
        frame["config"] = [first[key] for key in zip(*(frame[k] for k in CONFIG), strict=True)]
        frames.append(frame)
    return pd.concat(frames, ignore_index=True).set_index("config").reindex(data.configs)


def common_items(data: ReportData) -> dict[int, np.ndarray]:
    """Per size: the instances (items) every configuration of that size solved."""
    solved = data.rows[data.rows["status"] == "solved"]
    out = {}
    for size, rows in solved.groupby("size"):
        n_configs = data.rows.loc[data.rows["size"] == size, "config"].nunique()
        per_item = rows.groupby("item")["config"].nunique()
        out[size] = per_item.index[per_item == n_configs].to_numpy()
    return out


def _common_figures(data: ReportData) -> pd.DataFrame:
    common = common_items(data)
    solved = data.rows[data.rows["status"] == "solved"]
    out = {}
    for config, rows in solved.groupby("config", sort=False):
        rows = rows[rows["item"].isin(common.get(rows["size"].iloc[0], []))]
        nodes = rows["nodes_generated"].to_numpy(float)
        out[config] = {
            "common_instances": len(nodes),
            "common_nodes_mean": nodes.mean() if len(nodes) else np.nan,
            "common_nodes_geomean": float(np.exp(np.log(np.maximum(nodes, 1)).mean())) if len(nodes) else np.nan,
            "common_nodes_median": float(np.median(nodes)) if len(nodes) else np.nan,
        }
    return pd.DataFrame.from_dict(out, orient="index").reindex(data.configs)


def coverage_table(data: ReportData) -> pd.DataFrame:
    """Per configuration: rows, status counts, :func:`summarize`'s figures over solved rows,
    and mean / geometric mean / median nodes over the commonly solved instances (a pruning
    column only when the rows hold several; a plugin heuristic's version when any has one:
    a configuration's rows share one, since a sweep refuses to mix two)."""
    first = data.rows.drop_duplicates("config").set_index("config")
    keys = ["size", "algorithm", "heuristic"] + (["heuristic_version"] if data.rows["heuristic_version"].notna().any()
                                                 else [])
    keys += ["pruning"] if data.rows["pruning"].nunique() > 1 else []
    table = first.loc[data.configs, keys + (["sweep"] if "sweep" in data.config_keys else [])]
    table.insert(len(table.columns), "instances", data.rows.groupby("config").size().reindex(data.configs))
    summary = _summary(data)
    table = table.join(status_counts(data)).join(summary[SUMMARY_FIGURES[data.clock]]).join(_common_figures(data))
    table["common_instances"] = table["common_instances"].fillna(0).astype("int64")
    return table


def published_agreement(data: ReportData) -> pd.DataFrame | None:
    """Per configuration, how many solved runs of published boards found the published
    length, and node count where one was published for it ("-" where none applies); None
    when no board is a published one."""
    summary = _summary(data)
    if "published" not in summary:
        return None

    def share(equal, of) -> list[str]:
        return [f"{e} of {n}" if n else "-" for e, n in zip(equal.fillna(0), of.fillna(0), strict=True)]

    return pd.DataFrame({"published lengths equal": share(summary["lengths_equal"], summary["published_solved"]),
                         "published nodes equal": share(summary["nodes_equal"], summary["nodes_published"])},
                        index=summary.index)
