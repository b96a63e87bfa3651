"""What the report's figures plot, as tables: the bokeh page (:mod:`.plots`) and the static
figures (:mod:`.figures`) both draw from these functions, so the two cannot disagree.

Each function takes :class:`ReportData` and returns a DataFrame with one row per point
(or per bin) and a ``config`` column where a figure has one series per configuration.
"""

from __future__ import annotations

import json

import numpy as np
import pandas as pd

from ..paired import paired_ratio
from .data import ReportData

CURVE_POINTS = 400
ITERATION_INSTANCES = 60
UNFINISHED = ("solved", "unsolvable")  # the statuses that end a search; any other stopped it


def value_label(data: ReportData, value: str) -> str:
    """``nodes generated``, or the search seconds with their clock (``search CPU seconds``)."""
    return "nodes generated" if value == "nodes_generated" else f"search {data.seconds_label}"


def _curve(values: np.ndarray, total: int) -> tuple[np.ndarray, np.ndarray]:
    """The share of ``total`` runs solved within each value, sampled at most CURVE_POINTS times."""
    values = np.sort(values)
    share = np.arange(1, len(values) + 1) / total
    if len(values) > CURVE_POINTS:
        pick = np.unique(np.linspace(0, len(values) - 1, CURVE_POINTS).astype(int))
        values, share = values[pick], share[pick]
    return values, share


def coverage_curves(data: ReportData, value: str) -> pd.DataFrame:
    """Per configuration, the share of its runs solved within each ``value`` (a step curve):
    columns ``config``, ``x``, ``share``, ``runs`` (the configuration's runs)."""
    frames = []
    for config, rows in data.rows.groupby("config", sort=False, observed=True):
        solved = rows.loc[rows["status"] == "solved", value].dropna().to_numpy(float)  # NaN: time not recorded
        x, share = _curve(np.maximum(solved, 1e-7), len(rows))
        frames.append(pd.DataFrame({"config": config, "x": x, "share": share, "runs": len(rows)}))
    return _concat(frames, ["config", "x", "share", "runs"])


def baseline_of(data: ReportData, config: str) -> str | None:
    """The configuration that ``config`` is compared with: same size, algorithm (and sweep)."""
    first = data.rows.drop_duplicates("config").set_index("config")
    keys = [k for k in data.config_keys if k != "heuristic"]
    me = first.loc[config, keys]
    candidates = first[(first["heuristic"] == data.baseline) & (first[keys] == me).all(axis=1)]
    return None if candidates.empty or candidates.index[0] == config else candidates.index[0]


def before_after(data: ReportData, old: str, new: str) -> list[tuple[str, str]]:
    """(old label, new label) of every configuration both sweeps ran, in the new sweep's order."""
    first = data.rows.drop_duplicates("config").set_index("config")
    keys = [k for k in data.config_keys if k != "sweep"]
    olds = first[first["sweep"] == old]
    pairs = []
    for label, row in first[first["sweep"] == new].iterrows():
        match = olds[(olds[keys] == row[keys]).all(axis=1)]
        if not match.empty:
            pairs.append((match.index[0], label))
    return pairs


def baseline_ratio(data: ReportData, config: str) -> dict:
    """Node ratio of ``config`` against its baseline over the instances both solved: ``ratio``
    (geometric mean), ``ratio_low``, ``ratio_high`` (95 % interval), ``p`` (:mod:`...paired`);
    NaN for a baseline itself or a configuration without one."""
    base = baseline_of(data, config)
    if base is None:
        return {"ratio": np.nan, "ratio_low": np.nan, "ratio_high": np.nan, "p": np.nan}
    pairs = scatter_pairs(data, config, base, "nodes_generated")
    both = pairs[(pairs["status"] == "solved") & (pairs["status_base"] == "solved")]
    return paired_ratio(both["nodes_generated"].to_numpy(float), both["nodes_generated_base"].to_numpy(float))


def scatter_pairs(data: ReportData, config: str, base: str, value: str) -> pd.DataFrame:
    """One row per instance run by both: the values, statuses and whether each solved."""
    cols = ["item", "sweep", "instance", "status", value]
    mine = data.rows.loc[data.rows["config"] == config, cols]
    theirs = data.rows.loc[data.rows["config"] == base, ["item", "status", value]]
    return mine.merge(theirs, on="item", suffixes=("", "_base"))


KINDS = ("both solved", "both solved, changed", "not solved", "baseline not solved", "neither solved")


def scatter_points(pairs: pd.DataFrame, value: str, changed: bool = False) -> tuple[pd.DataFrame, float, float]:
    """``pairs`` (:func:`scatter_pairs`) placed on a log-log plot: columns ``x`` (baseline),
    ``y``, ``kind`` (one of :data:`KINDS`; ``both solved, changed`` only with ``changed``: the
    two values differ), the raw values and statuses. An unsolved run has no value: it is
    drawn at ``edge``, in a band beyond every solved value. Returns (points, low end, edge)."""
    x, y = pairs[f"{value}_base"].to_numpy(float), pairs[value].to_numpy(float)
    ok_x, ok_y = pairs["status_base"].eq("solved").to_numpy(), pairs["status"].eq("solved").to_numpy()
    solved = np.concatenate([x[ok_x], y[ok_y]])
    solved = solved[solved > 0]
    lo = solved.min() / 1.5 if len(solved) else 1e-6
    edge = (solved.max() if len(solved) else 1.0) * 3
    differ = ok_x & ok_y & (x != y) if changed else np.zeros(len(pairs), bool)
    kind = np.select([differ, ok_x & ok_y, ok_y, ok_x],
                     ["both solved, changed", "both solved", "baseline not solved", "not solved"], "neither solved")
    points = pairs.assign(x=np.where(ok_x, np.maximum(x, lo), edge), y=np.where(ok_y, np.maximum(y, lo), edge),
                          kind=kind)
    return points, lo, edge


def length_series(data: ReportData) -> pd.DataFrame:
    """Per configuration and optimal solution length: ``n`` solved runs and the quartiles of
    their nodes generated. Every length between the shortest and the longest solved has a
    row; one without a run has ``n`` 0 and no quartiles, so a line breaks there."""
    solved = data.rows[data.rows["status"] == "solved"]
    if solved.empty:
        return pd.DataFrame(columns=["config", "cost", "n", "q1", "median", "q3"])
    lengths = np.arange(int(solved["cost"].min()), int(solved["cost"].max()) + 1)
    frames = []
    for config in data.configs:
        nodes = solved.loc[solved["config"] == config].groupby("cost")["nodes_generated"]
        q = nodes.quantile([0.25, 0.5, 0.75]).unstack().reindex(index=lengths, columns=[0.25, 0.5, 0.75])
        frames.append(pd.DataFrame({"config": config, "cost": lengths,
                                    "n": nodes.size().reindex(lengths, fill_value=0).to_numpy(),
                                    "q1": q[0.25].to_numpy(float), "median": q[0.5].to_numpy(float),
                                    "q3": q[0.75].to_numpy(float)}))
    return pd.concat(frames, ignore_index=True)


def unsolved_note(rows: pd.DataFrame) -> str:
    """How many of ``rows`` stopped without a solution, by status ("12 budget_exceeded"), or ""."""
    counts = rows.loc[~rows["status"].isin(UNFINISHED), "status"].astype(str).value_counts()
    return ", ".join(f"{n:,} {status}" for status, n in counts.items())


def unsolved_notes(data: ReportData) -> dict[str, str]:
    """:func:`unsolved_note` of each configuration."""
    return {config: unsolved_note(rows) for config, rows in data.rows.groupby("config", sort=False, observed=True)}


def ebf_histogram(data: ReportData) -> pd.DataFrame:
    """Share of each configuration's solved runs per EBF bin: ``config``, ``left``,
    ``right``, ``share``. About sqrt(n) bins of equal width over the solved runs' range,
    the last closed on the largest value (no zero-width bin)."""
    solved = data.rows[(data.rows["status"] == "solved") & data.rows["ebf"].notna()]
    if solved.empty:
        return pd.DataFrame(columns=["config", "left", "right", "share"])
    per_config = len(solved) / solved["config"].nunique()
    bins = int(np.clip(np.sqrt(per_config), 10, 60))  # ~sqrt(n) bins: smooth for 100 runs, fine for 10,000
    low, high = solved["ebf"].min(), solved["ebf"].max()
    edges = np.linspace(low, high if high > low else low + 1e-3, bins + 1)
    frames = []
    for config, rows in solved.groupby("config", sort=False, observed=True):
        counts, _ = np.histogram(rows["ebf"], bins=edges)
        frames.append(pd.DataFrame({"config": config, "left": edges[:-1], "right": edges[1:],
                                    "share": counts / len(rows)}))
    return _concat(frames, ["config", "left", "right", "share"])


FLOORS = {"nodes_generated": 1.0, "seconds": 1e-7}  # a ratio's smallest value: a node, a tenth of a microsecond


def ratio_points(data: ReportData, config: str, base: str, value: str = "nodes_generated") -> pd.DataFrame:
    """Per instance both solved (and timed): ``instance``, ``x`` the baseline's ``value`` and
    ``ratio`` ``config``'s over it (each value at least :data:`FLOORS`)."""
    pairs = scatter_pairs(data, config, base, value)
    both = pairs[(pairs["status"] == "solved") & (pairs["status_base"] == "solved")].dropna(
        subset=[value, f"{value}_base"])
    x = np.maximum(both[f"{value}_base"].to_numpy(float), FLOORS[value])
    return pd.DataFrame({"instance": both["instance"].to_numpy(), "x": x,
                         "ratio": np.maximum(both[value].to_numpy(float), FLOORS[value]) / x})


EBF_WHISKERS = (5, 95)  # percentiles the box plot's whiskers reach


def ebf_summary(data: ReportData) -> pd.DataFrame:
    """Per configuration, the distribution of its solved runs' effective branching factors:
    ``config``, ``n``, ``low`` and ``high`` (the :data:`EBF_WHISKERS` percentiles), ``q1``,
    ``median``, ``q3`` (NaN without a solved run)."""
    solved = data.rows[(data.rows["status"] == "solved") & data.rows["ebf"].notna()]
    out = []
    for config in data.configs:
        values = solved.loc[solved["config"] == config, "ebf"].to_numpy(float)
        cuts = np.percentile(values, [EBF_WHISKERS[0], 25, 50, 75, EBF_WHISKERS[1]]) if len(values) else [np.nan] * 5
        out.append(dict(zip(["config", "n", "low", "q1", "median", "q3", "high"], [config, len(values), *cuts])))
    return pd.DataFrame(out, columns=["config", "n", "low", "q1", "median", "q3", "high"])


def ratio_ecdf(data: ReportData, config: str, base: str) -> pd.DataFrame:
    """The per-instance ratio of nodes generated, ``config`` over ``base``, over the instances
    both solved, sorted, with the share of those instances at or below each: ``ratio``, ``share``."""
    ratio = np.sort(ratio_points(data, config, base)["ratio"].to_numpy())
    return pd.DataFrame({"ratio": ratio, "share": np.arange(1, len(ratio) + 1) / max(len(ratio), 1)})


def iteration_rows(data: ReportData) -> pd.DataFrame:
    """IDA* iteration logs (config, key, bound, nodes) of the hardest instances, by total nodes;
    ``key`` names the instance as ``SWEEP:INSTANCE``."""
    ida = data.rows[(data.rows["algorithm"] == "idastar") & (data.rows["status"] == "solved")]
    if ida.empty:
        return pd.DataFrame(columns=["config", "key", "bound", "nodes"])
    hardest = ida.groupby("item")["nodes_generated"].max().nlargest(ITERATION_INSTANCES).index
    run = ["sweep", "instance", "algorithm", "heuristic", "pruning"]
    chosen = ida[ida["item"].isin(hardest)][run + ["config", "item"]]
    data.con.register("_chosen", chosen[run])
    fetched = data.con.sql(f"SELECT {', '.join('r.' + c for c in run)}, r.iterations "
                           f"FROM results r JOIN _chosen c USING ({', '.join(run)})").df()
    data.con.unregister("_chosen")
    logs = pd.DataFrame([(*row[:len(run)], it["bound"], it["nodes_generated"])
                         for row in fetched.itertuples(index=False) for it in json.loads(row.iterations or "[]")],
                        columns=run + ["bound", "nodes"])
    logs = logs.merge(chosen, on=run)
    first = chosen.drop_duplicates("item").set_index("item")
    logs["key"] = logs["item"].map(first["sweep"].astype(str) + ":" + first["instance"].astype(str))
    return logs[["config", "key", "bound", "nodes"]]


def hardest_keys(logs: pd.DataFrame) -> list[str]:
    """The instance keys of :func:`iteration_rows`, hardest (most nodes in one iteration) first."""
    return list(dict.fromkeys(logs.sort_values("nodes", ascending=False, kind="stable")["key"]))


def _concat(frames: list[pd.DataFrame], columns: list[str]) -> pd.DataFrame:
    return pd.concat(frames, ignore_index=True) if frames else pd.DataFrame(columns=columns)
