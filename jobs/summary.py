"""Per (size, algorithm, heuristic) summaries of result rows, optionally against a baseline.

Node, EBF, cost and time statistics are over *solved* rows (a budget-exceeded or error
row has no comparable node count); the status counts cover every row: one column per
status of :data:`solver.status.STATUSES`, in that order, plus any other status the rows
hold (``depth_limit`` of sweeps from before the statuses were split). ``nodes_per_second``
is total nodes generated over total search seconds of the solved rows. With a baseline
heuristic, each other heuristic is paired with it per algorithm on the same instances
(same sweep, instance index, size, goal and tiles) where both solved: ``node_reduction_pct`` is
``100 * (1 - sum(nodes) / sum(baseline nodes))`` over the pairs, and ``fewer`` /
``equal`` / ``more`` count pairs by per-instance nodes.
"""

from __future__ import annotations

import json

import numpy as np
import pandas as pd

from tilesweep.solver.errors import InvalidOptionError
from tilesweep.solver.status import STATUSES

KEYS = ["size", "algorithm", "heuristic"]
INSTANCE_KEYS = ["sweep", "instance", "size", "goal", "tiles"]
STATUS_COLUMNS = list(STATUSES)


def status_columns(df: pd.DataFrame) -> list[str]:
    """Every status of the vocabulary, then any other status found in ``df``."""
    return STATUS_COLUMNS + sorted(set(df["status"].dropna()) - set(STATUS_COLUMNS))


def _group_stats(group: pd.DataFrame, statuses: list[str]) -> pd.Series:
    solved = group[group["status"] == "solved"]
    nodes = solved["nodes_generated"].astype("float64")
    seconds = solved["seconds"].astype("float64").sum()
    out = {"instances": len(group)}
    out.update({s: int((group["status"] == s).sum()) for s in statuses})
    out.update({
        "nodes_mean": nodes.mean(), "nodes_median": nodes.median(),
        "nodes_p90": nodes.quantile(0.9) if len(nodes) else np.nan, "nodes_max": nodes.max(),
        "ebf_mean": solved["ebf"].astype("float64").mean(),
        "cost_mean": solved["cost"].astype("float64").mean(),
        "seconds_mean": solved["seconds"].astype("float64").mean(),
        "nodes_per_second": nodes.sum() / seconds if seconds > 0 else np.nan,
    })
    return pd.Series(out)


def _baseline_columns(df: pd.DataFrame, baseline: str) -> pd.DataFrame:
    solved = df[df["status"] == "solved"].drop_duplicates(INSTANCE_KEYS + ["algorithm", "heuristic"])
    base = solved[solved["heuristic"] == baseline][INSTANCE_KEYS + ["algorithm", "nodes_generated"]]
    pairs = solved.merge(base, on=INSTANCE_KEYS + ["algorithm"], suffixes=("", "_base"))
    nodes, ref = pairs["nodes_generated"].astype("float64"), pairs["nodes_generated_base"].astype("float64")
    pairs = pairs.assign(fewer=nodes < ref, equal=nodes == ref, more=nodes > ref, n=nodes, ref=ref)
    grouped = pairs.groupby(KEYS, sort=False).agg(
        paired=("n", "size"), n=("n", "sum"), ref=("ref", "sum"),
        fewer=("fewer", "sum"), equal=("equal", "sum"), more=("more", "sum"))
    grouped["node_reduction_pct"] = 100.0 * (1.0 - grouped["n"] / grouped["ref"])
    return grouped.drop(columns=["n", "ref"]).reset_index()


def summarize(df: pd.DataFrame, baseline: str | None = None) -> pd.DataFrame:
    """One row per (size, algorithm, heuristic) in first-seen order; see the module doc."""
    if baseline is not None and baseline not in set(df["heuristic"]):
        raise InvalidOptionError(f"baseline {baseline!r} is not a heuristic of these results; "
                                 f"expected one of: {', '.join(dict.fromkeys(df['heuristic']))}")
    statuses = status_columns(df)
    rows = [dict(zip(KEYS, key, strict=True)) | _group_stats(group, statuses).to_dict()
            for key, group in df.groupby(KEYS, sort=False)]
    out = pd.DataFrame(rows, columns=KEYS + ["instances"] + statuses + [
        "nodes_mean", "nodes_median", "nodes_p90", "nodes_max", "ebf_mean", "cost_mean",
        "seconds_mean", "nodes_per_second"])
    for column in ["instances"] + statuses:
        out[column] = out[column].astype("int64")
    if baseline is not None:
        out = out.merge(_baseline_columns(df, baseline), on=KEYS, how="left")
        for column in ("paired", "fewer", "equal", "more"):
            out[column] = out[column].fillna(0).astype("int64")
    return out


def format_frame(df: pd.DataFrame, fmt: str) -> str:
    """``table`` (aligned text), ``csv`` or ``json`` (a list of records)."""
    if fmt == "csv":
        return df.to_csv(index=False).rstrip("\n")
    if fmt == "json":
        return json.dumps(json.loads(df.to_json(orient="records")), indent=2)
    if fmt == "table":
        return df.to_string(index=False, float_format=lambda v: f"{v:,.4g}" if abs(v) < 1e4 else f"{v:,.0f}")
    raise InvalidOptionError(f"format {fmt!r} is not known; expected table, csv or json")
