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


def _three_digits(value: float) -> str:
    return f"{value:.2f}" if value < 10 else f"{value:.1f}" if value < 100 else f"{value:.0f}"


def _count(value: float) -> str:
    """``733``, ``1.00k``, ``44.6M``: three significant digits, for a glance."""
    if pd.isna(value):
        return "-"
    for unit in ("", "k", "M", "G"):
        if value < 999.5 or unit == "G":
            return f"{value:.0f}" if unit == "" else _three_digits(value) + unit
        value /= 1000
    raise AssertionError("unreachable")


def _duration(seconds: float) -> str:
    """``43.1us``, ``1.99ms``, ``2.50s``."""
    if pd.isna(seconds):
        return "-"
    for unit, scale in (("us", 1e-6), ("ms", 1e-3)):
        if seconds < 999.5 * scale:
            return _three_digits(seconds / scale) + unit
    return _three_digits(seconds) + "s" if seconds < 999.5 else f"{seconds:,.0f}s"


def _fixed(digits: int):
    return lambda v: "-" if pd.isna(v) else f"{v:.{digits}f}"


# The columns a person reads first, sized for an 80-column terminal:
# (header, function of the summary frame giving the column's text, left-aligned?).
NARROW = [
    ("size", lambda df: df["size"].astype(str), False),  # only when the rows hold several sizes
    ("algorithm", lambda df: df["algorithm"], True),
    ("heuristic", lambda df: df["heuristic"], True),
    ("solved", lambda df: df["solved"].astype(str) + "/" + df["instances"].astype(str), False),
    ("nodes", lambda df: df["nodes_mean"].map(_count), False),
    ("median", lambda df: df["nodes_median"].map(_count), False),
    ("ebf", lambda df: df["ebf_mean"].map(_fixed(3)), False),
    ("cost", lambda df: df["cost_mean"].map(_fixed(2)), False),
    ("time", lambda df: df["seconds_mean"].map(_duration), False),
    ("reduction", lambda df: df["node_reduction_pct"].map(lambda v: "-" if pd.isna(v) else f"{v:.1f}%"), False),
]
NARROW_NOTE = "nodes: mean and median generated; ebf, cost, time: means; over solved runs"
REDUCTION_NOTE = "reduction: nodes saved against the baseline on instances both solved"
WIDE_NOTE = "--wide or --format csv/json: every column"


def format_summary(df: pd.DataFrame, fmt: str, wide: bool = False) -> str:
    """A summary as :func:`format_frame` prints it; the text table without ``wide`` shows
    only :data:`NARROW`'s columns, humanised, and a note saying what they are."""
    if fmt != "table" or wide:
        return format_frame(df, fmt)
    columns = [(header, make(df), left) for header, make, left in NARROW
               if (header != "size" or df["size"].nunique() > 1)
               and (header != "reduction" or "node_reduction_pct" in df)]
    widths = [max([len(header), *map(len, cells)]) for header, cells, _ in columns]

    def line(cells) -> str:
        return " ".join(c.ljust(w) if left else c.rjust(w)
                        for c, w, (_, _, left) in zip(cells, widths, columns, strict=True)).rstrip()

    body = [line(row) for row in zip(*(cells for _, cells, _ in columns), strict=True)]
    notes = [NARROW_NOTE, *([REDUCTION_NOTE] if "node_reduction_pct" in df else []), WIDE_NOTE]
    return "\n".join([line([h for h, _, _ in columns]), *body, "", *notes])
