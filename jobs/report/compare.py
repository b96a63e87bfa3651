"""``tilesweep compare OLD NEW``: the same instances run by two sweeps, row by row.

Rows pair on (instance, size, goal, tiles, algorithm, heuristic, pruning), so the two sweeps
may have different names and chunkings; parts from before the ``pruning`` column read as
``parent``. Per configuration (size, algorithm, heuristic, pruning; the pruning column is shown
only when the rows hold several):

- ``cost_diff``: pairs both solved with different costs, a correctness alarm (the CLI exits 1);
- ``nodes_diff``: pairs of the same status with different ``nodes_generated`` (every
  algorithm here is deterministic, so any difference is a change of behaviour);
- ``status_diff``: pairs whose status changed (e.g. solved, then budget_exceeded);
- ``nodes_ratio``: NEW / OLD nodes generated over the pairs both solved, a geometric mean
  with its 95 % bootstrap interval (``nodes_ratio_low``, ``nodes_ratio_high``) and the
  Wilcoxon signed-rank ``nodes_p`` (:mod:`..paired`);
- ``time_ratio``: the same of search seconds on the ``clock`` column's clock (``cpu``, the
  solving thread's CPU time, unless ``wall`` is asked for; :mod:`..clocks`; pairs without a
  CPU time, from parts written before it, are left out) with ``ci_low``, ``ci_high``,
  ``time_p``;
- ``noise_low``, ``noise_high``: the time ratios the machine's drift alone gives, as the
  other configurations show it: over their pairs both solved with identical node counts
  (the same work, only the clock differs), the medians of the bounds of their 95 %
  intervals (a median, so one configuration that did slow down does not widen the noise
  of the rest; ``noise_pairs`` pairs; none: NaN);
- ``regression`` when the ratio exceeds 1 + threshold and the whole interval lies above 1,
  and, where there is noise to see, the interval lies above ``noise_high`` and the ratio
  exceeds ``noise_high`` times 1 + threshold (null without a time pair); ``verdict`` says it in words: ``yes``, ``no``,
  ``no regression beyond the noise`` (a slow-down no larger than the drift the other
  configurations show) or ``–`` (no pair to time).

Rows counted under different conventions (the ``conventions`` column, :mod:`solver.conventions`;
``korf`` in parts from before it) count different things, so a pair of them is refused in one
line unless ``mixed_conventions`` is asked for; then the configurations show both conventions.

``only_old`` / ``only_new`` count rows without a partner (different instances or configurations).
Two sweeps with no pair at all are not a comparison: bad input, saying whether they share no
instance or share instances but no configuration.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

import numpy as np
import pandas as pd
import pyarrow as pa

from tilesweep.solver.errors import InvalidOptionError

from ..clocks import COLUMNS as CLOCK_COLUMNS, DEFAULT as DEFAULT_CLOCK
from ..paired import paired_ratio
from ..parts import read_part
from ..schema import ADDED_DEFAULTS
from .sweeps import Sweep

CONFIG = ["size", "algorithm", "heuristic", "pruning"]
INSTANCE = ["instance", "size", "goal", "tiles"]
PAIR_KEYS = INSTANCE + ["algorithm", "heuristic", "pruning"]
VALUES = ["status", "cost", "nodes_generated", "seconds", "cpu_seconds", "conventions"]


@dataclass(frozen=True)
class Comparison:
    """Per-configuration figures and every changed pair (kind ``cost``, ``nodes`` or ``status``)."""

    configurations: pd.DataFrame
    changes: pd.DataFrame
    threshold: float

    @property
    def cost_differences(self) -> int:
        return int(self.configurations["cost_diff"].sum())


def parse_threshold(text: str | float) -> float:
    """``"5%"`` or ``"5"`` (percent) into the fraction 0.05."""
    match = re.fullmatch(r"\s*(\d+(?:\.\d+)?)\s*%?\s*", str(text))
    if not match:
        raise InvalidOptionError(f"threshold {text!r} is not a percentage; expected e.g. 5% or 2.5")
    return float(match.group(1)) / 100.0


def load_pairs_side(sweeps: list[Sweep]) -> pd.DataFrame:
    """The pairing keys and compared values of every row of ``sweeps``."""
    tables = [read_part(p, PAIR_KEYS + VALUES).replace_schema_metadata(None) for s in sweeps for p in s.parts]
    frame = pa.concat_tables(tables).to_pandas()
    for column in ("pruning", "conventions"):  # parts from before the column
        frame[column] = frame[column].fillna(ADDED_DEFAULTS[column])
    return frame.drop_duplicates(PAIR_KEYS, keep="last")


def _changes(pairs: pd.DataFrame) -> pd.DataFrame:
    both = (pairs["status_old"] == "solved") & (pairs["status_new"] == "solved")
    kinds = {
        "cost": both & (pairs["cost_old"] != pairs["cost_new"]),
        "nodes": (pairs["status_old"] == pairs["status_new"])
        & (pairs["nodes_generated_old"] != pairs["nodes_generated_new"]),
        "status": pairs["status_old"] != pairs["status_new"],
    }
    columns = CONFIG + ["instance", "status_old", "status_new", "cost_old", "cost_new",
                        "nodes_generated_old", "nodes_generated_new"]
    frames = [pairs.loc[mask.fillna(False).astype(bool), columns].assign(kind=kind) for kind, mask in kinds.items()]
    out = pd.concat(frames, ignore_index=True)
    return out[["kind"] + columns].sort_values(["kind"] + CONFIG + ["instance"], kind="stable").reset_index(drop=True)


def _configuration(key, group: pd.DataFrame, changes: pd.DataFrame, threshold: float, seed: int, clock: str) -> dict:
    solved = group[(group["status_old"] == "solved") & (group["status_new"] == "solved")]
    nodes = paired_ratio(solved["nodes_generated_new"].to_numpy(float), solved["nodes_generated_old"].to_numpy(float),
                         seed)
    seconds = CLOCK_COLUMNS[clock]  # a null (not recorded) is NaN: the pair is left out
    time = paired_ratio(solved[f"{seconds}_new"].to_numpy(float), solved[f"{seconds}_old"].to_numpy(float), seed)
    ratio, low, high = time["ratio"], time["ratio_low"], time["ratio_high"]
    same = solved[solved["nodes_generated_new"] == solved["nodes_generated_old"]]
    drift = paired_ratio(same[f"{seconds}_new"].to_numpy(float), same[f"{seconds}_old"].to_numpy(float), seed)
    mine = changes[(changes[CONFIG] == pd.Series(dict(zip(CONFIG, key)))).all(axis=1)]
    paired = group["_merge"] == "both"
    return dict(zip(CONFIG, key)) | {
        "paired": int(paired.sum()), "only_old": int((group["_merge"] == "left_only").sum()),
        "only_new": int((group["_merge"] == "right_only").sum()),
        **{f"{kind}_diff": int((mine["kind"] == kind).sum()) for kind in ("cost", "nodes", "status")},
        "nodes_ratio": nodes["ratio"], "nodes_ratio_low": nodes["ratio_low"], "nodes_ratio_high": nodes["ratio_high"],
        "nodes_p": nodes["p"], "clock": clock, "time_ratio": ratio, "ci_low": low, "ci_high": high, "time_p": time["p"],
        "_drift_low": drift["ratio_low"], "_drift_high": drift["ratio_high"],
        "_drift_pairs": int(((same[f"{seconds}_new"] > 0) & (same[f"{seconds}_old"] > 0)).sum()),  # as paired_ratio
    }


NO_PAIR = "–"
WITHIN_NOISE = "no regression beyond the noise"


def _verdicts(rows: pd.DataFrame, threshold: float) -> pd.DataFrame:
    """Each configuration's noise (the other configurations' drift) and time verdict."""
    noise = []
    for i in rows.index:
        others = rows.drop(index=i)
        others = others[(others["_drift_pairs"] >= 2) & others["_drift_low"].notna()]
        noise.append((others["_drift_low"].median(), others["_drift_high"].median(), int(others["_drift_pairs"].sum()))
                     if len(others) else (np.nan, np.nan, 0))
    rows[["noise_low", "noise_high", "noise_pairs"]] = pd.DataFrame(noise, index=rows.index)
    slower = (rows["time_ratio"] > 1 + threshold) & (rows["ci_low"] > 1)
    # beyond the noise: the interval clear of it, and slower than it by more than the threshold
    beyond = rows["noise_high"].isna() | ((rows["ci_low"] > rows["noise_high"])
                                          & (rows["time_ratio"] > rows["noise_high"] * (1 + threshold)))
    timed = rows["time_ratio"].notna()
    rows["regression"] = (slower & beyond).astype(object).where(timed, None)
    rows["verdict"] = np.select([~timed, slower & beyond, slower], [NO_PAIR, "yes", WITHIN_NOISE], "no")
    return rows.drop(columns=["_drift_low", "_drift_high", "_drift_pairs"])


def _check_shared(old: pd.DataFrame, new: pd.DataFrame, pairs: pd.DataFrame, names: tuple[str, str]) -> None:
    """Refuse two sweeps that pair no row, saying what they do not share."""
    if (pairs["_merge"] == "both").any():
        return
    shared = len(old[INSTANCE].drop_duplicates().merge(new[INSTANCE].drop_duplicates()))
    what = ("no instance" if not shared
            else f"{shared:,} instance(s) but no configuration (algorithm, heuristic, pruning)")
    raise InvalidOptionError(f"sweeps {names[0]!r} and {names[1]!r} share {what}, so no row pairs up; expected "
                             "two runs of the same instances, e.g. one spec before and after a change")


def _check_conventions(pairs: pd.DataFrame, names: tuple[str, str]) -> None:
    """Refuse pairs of rows counted under different conventions."""
    both = pairs[pairs["_merge"] == "both"]
    mixed = both[both["conventions_old"] != both["conventions_new"]]
    if len(mixed):
        first = mixed.iloc[0]
        raise InvalidOptionError(
            f"sweeps {names[0]!r} and {names[1]!r} counted {len(mixed):,} paired row(s) under different conventions "
            f"({first['conventions_old']!r} against {first['conventions_new']!r}); expected the same conventions, "
            "or --mixed-conventions to pair them anyway")


def compare(old: pd.DataFrame, new: pd.DataFrame, threshold: float = 0.05, seed: int = 0,
            names: tuple[str, str] = ("OLD", "NEW"), clock: str = DEFAULT_CLOCK,
            mixed_conventions: bool = False) -> Comparison:
    """Pair the rows of ``old`` and ``new`` (frames of :data:`PAIR_KEYS` + :data:`VALUES`;
    ``names`` are the sweeps' for an error); time ratios by ``clock``; pairs of rows counted
    under different conventions only with ``mixed_conventions``."""
    old, new = (f if "conventions" in f else f.assign(conventions=ADDED_DEFAULTS["conventions"]) for f in (old, new))
    pairs = old.merge(new, on=PAIR_KEYS, how="outer", suffixes=("_old", "_new"), indicator=True)
    _check_shared(old, new, pairs, names)
    if not mixed_conventions:
        _check_conventions(pairs, names)
    changes = _changes(pairs[pairs["_merge"] == "both"])
    seen = pd.concat([old[CONFIG], new[CONFIG]]).drop_duplicates()  # configurations in OLD's order
    order = {key: i for i, key in enumerate(seen.itertuples(index=False, name=None))}
    groups = sorted(pairs.groupby(CONFIG, sort=False, dropna=False), key=lambda kv: order.get(kv[0], len(order)))
    rows = _verdicts(pd.DataFrame([_configuration(key, group, changes, threshold, seed, clock)
                                   for key, group in groups]), threshold)
    if pd.concat([old["pruning"], new["pruning"]]).nunique() <= 1:  # one pruning: nothing to tell apart
        rows, changes = rows.drop(columns="pruning"), changes.drop(columns="pruning")
    return Comparison(rows, changes, threshold)


LISTED = 100  # changed pairs the table format lists; json carries every one (csv: the configurations)


def format_comparison(comparison: Comparison, fmt: str) -> str:
    """``table``: configurations, then the changed pairs; ``csv``: configurations;
    ``json``: ``{"threshold", "configurations", "changes"}``."""
    import json

    from ..summary import format_frame, records

    if fmt == "json":
        return json.dumps({"threshold": comparison.threshold,
                           "configurations": records(comparison.configurations),
                           "changes": records(comparison.changes)}, indent=2, default=str)
    if fmt != "table":
        return format_frame(comparison.configurations, fmt)
    shown = comparison.configurations.drop(columns="regression", errors="ignore")  # the verdict says it
    text = format_frame(shown, fmt)
    changes = comparison.changes
    if changes.empty:
        return text + "\n\nno cost, node or status differences"
    shown = format_frame(changes.head(LISTED), "table")
    if len(changes) <= LISTED:
        return f"{text}\n\nchanged pairs ({len(changes):,}):\n{shown}"
    return (f"{text}\n\nchanged pairs ({len(changes):,}; the first {LISTED} below, --format json lists every one):\n"
            f"{shown}\n... and {len(changes) - LISTED:,} more (--format json lists every one)")
