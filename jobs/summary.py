"""Per (size, algorithm, heuristic, pruning) summaries of result rows, optionally against a baseline.

Node, EBF, cost and time statistics are over *solved* rows (a budget-exceeded or error
row has no comparable node count); the status counts cover every row: one column per
status of :data:`solver.status.STATUSES`, in that order, plus any other status the rows
hold (``depth_limit`` of sweeps from before the statuses were split). ``cpu_seconds_mean``
and ``nodes_per_cpu_second`` (total nodes generated over total CPU seconds of the solved
rows) time by the solving thread's CPU clock; ``seconds_mean`` and ``nodes_per_second`` by
the wall clock (:mod:`.clocks`). The CPU figures are null when a solved row lacks its CPU
time (a part from before ``cpu_seconds``): unknown, not 0. With a baseline
heuristic, each other heuristic is paired with it per algorithm and pruning on the same instances
(same sweep, instance index, size, goal and tiles) where both solved: ``node_reduction_pct`` is
``100 * (1 - sum(nodes) / sum(baseline nodes))`` over the pairs, ``fewer`` /
``equal`` / ``more`` count pairs by per-instance nodes, and ``nodes_ratio`` (with
``nodes_ratio_low``/``_high``) and ``p_value`` are the paired statistics of
:mod:`.paired`: the geometric mean of the per-instance node ratios with its 95 % bootstrap
interval, and the Wilcoxon signed-rank test. ``solved_low``/``_high``: the 95 % Wilson
interval of the share solved.

The figures are computed by DuckDB, from the Parquet parts in place when given a results
path (only the columns used are read, rows are never all in memory) or from a DataFrame.
Medians and percentiles interpolate linearly, as pandas' ``quantile`` does.
"""

from __future__ import annotations

import json
from pathlib import Path

import duckdb
import numpy as np
import pandas as pd
import pyarrow as pa

from tilesweep.solver.errors import InvalidOptionError
from tilesweep.solver.status import STATUSES

from .clocks import COLUMNS as CLOCK_COLUMNS, DEFAULT as DEFAULT_CLOCK, check_clock
from .paired import coverage_interval, paired_ratio
from .parts import CorruptPartError, read_footer
from .published import COUNTED, published_table
from .results import part_paths

KEYS = ["size", "algorithm", "heuristic", "pruning"]
INSTANCE_KEYS = ["sweep", "instance", "size", "goal", "tiles"]
STATUS_COLUMNS = list(STATUSES)
USED = INSTANCE_KEYS + ["algorithm", "heuristic", "status", "cost", "nodes_generated", "ebf", "seconds"]
# Columns later sweeps added: their type, and the value rows from before them meant (a CPU
# time was not recorded: unknown, never 0)
ADDED = {"pruning": ("VARCHAR", "'parent'"), "cpu_seconds": ("DOUBLE", "NULL")}
FIGURES = ["nodes_mean", "nodes_median", "nodes_p90", "nodes_max", "ebf_mean", "cost_mean",
           "cpu_seconds_mean", "nodes_per_cpu_second", "seconds_mean", "nodes_per_second"]
GROUPED = "size IS NOT NULL AND algorithm IS NOT NULL AND heuristic IS NOT NULL"

COUNTS = f"""SELECT size, algorithm, heuristic, pruning, status, count(*) AS n, min(_order) AS first
FROM rows WHERE {GROUPED} GROUP BY ALL"""
STATS = f"""SELECT size, algorithm, heuristic, pruning,
  avg(nodes_generated::DOUBLE) AS nodes_mean,
  quantile_cont(nodes_generated::DOUBLE, 0.5) AS nodes_median,
  quantile_cont(nodes_generated::DOUBLE, 0.9) AS nodes_p90,
  max(nodes_generated::DOUBLE) AS nodes_max,
  avg(ebf) AS ebf_mean, avg(cost::DOUBLE) AS cost_mean,
  CASE WHEN count(cpu_seconds) = count(*) THEN avg(cpu_seconds) END AS cpu_seconds_mean,
  CASE WHEN count(cpu_seconds) = count(*) AND sum(cpu_seconds) > 0
    THEN sum(nodes_generated::DOUBLE) / sum(cpu_seconds) END AS nodes_per_cpu_second,
  avg(seconds) AS seconds_mean,
  CASE WHEN sum(seconds) > 0 THEN sum(nodes_generated::DOUBLE) / sum(seconds) END AS nodes_per_second
FROM rows WHERE status = 'solved' AND {GROUPED} GROUP BY ALL"""
# Pairs of solved runs of one instance and algorithm, against the baseline heuristic
# (a run listed twice counts once: the first).
PAIRS = f"""WITH solved AS (
  SELECT * FROM rows WHERE status = 'solved' AND {GROUPED}
  QUALIFY row_number() OVER (PARTITION BY {", ".join(INSTANCE_KEYS)}, algorithm, heuristic, pruning
                             ORDER BY _order) = 1),
base AS (SELECT * FROM solved WHERE heuristic = $baseline)
SELECT s.size, s.algorithm, s.heuristic, s.pruning, count(*) AS paired,
  sum(s.nodes_generated::DOUBLE) AS n, sum(b.nodes_generated::DOUBLE) AS ref,
  count(*) FILTER (WHERE s.nodes_generated < b.nodes_generated) AS fewer,
  count(*) FILTER (WHERE s.nodes_generated = b.nodes_generated) AS equal,
  count(*) FILTER (WHERE s.nodes_generated > b.nodes_generated) AS more
FROM solved s JOIN base b USING ({", ".join(INSTANCE_KEYS)}, algorithm, pruning) GROUP BY ALL"""
# The same pairs one by one, for the paired statistics (:mod:`.paired`)
PAIR_NODES = PAIRS[:PAIRS.index("SELECT s.size")] + f"""SELECT s.size, s.algorithm, s.heuristic, s.pruning,
  s.nodes_generated::DOUBLE AS n, b.nodes_generated::DOUBLE AS ref
FROM solved s JOIN base b USING ({", ".join(INSTANCE_KEYS)}, algorithm, pruning)
ORDER BY {", ".join("s." + k for k in INSTANCE_KEYS)}"""  # the bootstrap's draws depend on the order
# Solved runs of published boards (:mod:`.published`) against the published figures: the
# length for every configuration, the node count for the one it was published for
_COUNTED = (f"r.algorithm = '{COUNTED[0]}' AND r.heuristic = '{COUNTED[1]}' AND r.pruning = '{COUNTED[2]}' "
            "AND p.published_nodes IS NOT NULL")
AGREEMENT = f"""SELECT r.size, r.algorithm, r.heuristic, r.pruning, min(p.source) AS published,
  count(*) AS published_solved,
  count(*) FILTER (WHERE r.cost = p.published_length) AS lengths_equal,
  count(*) FILTER (WHERE {_COUNTED}) AS nodes_published,
  count(*) FILTER (WHERE {_COUNTED} AND r.nodes_generated = p.published_nodes) AS nodes_equal,
  max(abs(r.nodes_generated - p.published_nodes)) FILTER (WHERE {_COUNTED}) AS nodes_off_max
FROM rows r JOIN published p USING (size, goal, tiles)
WHERE r.status = 'solved' AND {GROUPED} GROUP BY ALL"""
PUBLISHED_COLUMNS = ("published", "published_solved", "lengths_equal", "nodes_published", "nodes_equal",
                     "nodes_off_max")


def _literal(text) -> str:
    return "'" + str(text).replace("'", "''") + "'"


def _rows_view(con: duckdb.DuckDBPyConnection, rows) -> None:
    """View ``rows`` with the used columns and ``_order`` (the rows' order, for first-seen
    group order): a DataFrame, or parts read in place (those under a results path,
    verified here, or a list of verified parts)."""
    if not isinstance(rows, pd.DataFrame):
        paths = part_paths(rows) if isinstance(rows, (str, Path)) else list(rows)
        # a truncated or foreign part is named before DuckDB reads; a part from before a
        # column of ADDED holds its default
        names = {n for path in paths for n in read_footer(path).schema.to_arrow_schema().names}
        added = ", ".join(f"coalesce({c}::{t}, {v}) AS {c}" if c in names else f"{v} AS {c}"
                          for c, (t, v) in ADDED.items())
        con.register("_files", pa.table({"filename": [str(p) for p in paths], "i": range(len(paths))}))
        files = ", ".join(_literal(p) for p in paths)
        con.execute(f"""CREATE VIEW rows AS SELECT {", ".join(USED)}, {added},
            f.i * 4294967296 + r.file_row_number AS _order
            FROM read_parquet([{files}], union_by_name = true, filename = true, file_row_number = true) r
            JOIN _files f USING (filename)""")
        return
    frame = rows.reindex(columns=USED + list(ADDED))  # absent: nulls
    table = pa.Table.from_pandas(frame, preserve_index=False)
    con.register("_rows", table.append_column("_order", pa.array(np.arange(len(rows)))))
    added = ", ".join(f"coalesce({c}::{t}, {v}) AS {c}" for c, (t, v) in ADDED.items())
    con.execute(f"CREATE VIEW rows AS SELECT * EXCLUDE ({', '.join(ADDED)}), {added} FROM _rows")


def _frame(con, query: str, **params) -> pd.DataFrame:
    try:
        return con.execute(query, params or None).df()
    except duckdb.Error as err:
        first = str(err).strip().splitlines()[0]
        raise CorruptPartError(f"results cannot be read: {first}; rerun the sweep, which moves the part it "
                               "names aside and recomputes its chunk") from None


# the columns a baseline adds, most telling first
BASELINE_COLUMNS = ("nodes_ratio", "nodes_ratio_low", "nodes_ratio_high", "p_value", "node_reduction_pct",
                    "paired", "fewer", "equal", "more")


def summarize(rows: pd.DataFrame | str | Path | list[Path], baseline: str | None = None) -> pd.DataFrame:
    """One row per (size, algorithm, heuristic, pruning) in first-seen order (the pruning
    column last); see the module doc.

    ``rows``: result rows (a DataFrame), a results path as :func:`~.results.part_paths`
    takes (a sweep folder, its ``results/``, a part or a folder of sweeps; its parts are
    verified), or a list of parts already verified (:attr:`~.verify.Verified.paths`).
    """
    con = duckdb.connect()
    _rows_view(con, rows)
    counts = _frame(con, COUNTS)
    groups = counts.groupby(KEYS, sort=False)["first"].min().sort_values(kind="stable").index
    heuristics = list(dict.fromkeys(groups.get_level_values("heuristic")))
    if baseline is not None and baseline not in heuristics:
        raise InvalidOptionError(f"baseline {baseline!r} is not a heuristic of these results; "
                                 f"expected one of: {', '.join(heuristics)}")
    statuses = STATUS_COLUMNS + sorted(set(counts["status"].dropna()) - set(STATUS_COLUMNS))
    by_status = counts.pivot_table(index=KEYS, columns="status", values="n", aggfunc="sum", fill_value=0)
    out = pd.DataFrame(index=groups)
    out["instances"] = counts.groupby(KEYS)["n"].sum()
    for status in statuses:
        out[status] = by_status[status] if status in by_status else 0
    out = out.join(_frame(con, STATS).set_index(KEYS)).reset_index()
    out = out.reindex(columns=KEYS + ["instances"] + statuses + FIGURES)
    out["size"] = out["size"].astype("int64")
    for column in ["instances"] + statuses:
        out[column] = out[column].fillna(0).astype("int64")
    for column in FIGURES:
        out[column] = out[column].astype("float64")
    # coverage's interval (Wilson), as fractions solved
    low_high = [coverage_interval(s, n) for s, n in zip(out["solved"], out["instances"], strict=True)]
    out["solved_low"], out["solved_high"] = [x for x, _ in low_high], [y for _, y in low_high]
    out = _with_published(con, out)
    if baseline is not None:
        pairs = _frame(con, PAIRS, baseline=baseline)
        pairs["node_reduction_pct"] = 100.0 * (1.0 - pairs["n"] / pairs["ref"])
        pairs["size"] = pairs["size"].astype("int64")
        pairs = pairs.merge(_paired_ratios(_frame(con, PAIR_NODES, baseline=baseline)), on=KEYS, how="left")
        out = out.merge(pairs.drop(columns=["n", "ref"]), on=KEYS, how="left")
        for column in ("paired", "fewer", "equal", "more"):
            out[column] = out[column].fillna(0).astype("int64")
        out = out[[c for c in out.columns if c not in BASELINE_COLUMNS] + list(BASELINE_COLUMNS)]
    # pruning is a key, but its column comes last: it was added after the others
    out = out[[c for c in out.columns if c != "pruning"] + ["pruning"]]
    out.attrs["baseline"] = baseline  # for the note under the text table
    return out


def _with_published(con, out: pd.DataFrame) -> pd.DataFrame:
    """``out`` with :data:`PUBLISHED_COLUMNS` when some solved run is of a published board
    (counts of 0 and a null source for configurations that solved none)."""
    con.register("published", published_table())
    agreement = _frame(con, AGREEMENT)
    if agreement.empty:
        return out
    agreement["size"] = agreement["size"].astype("int64")
    out = out.merge(agreement, on=KEYS, how="left")
    for column in PUBLISHED_COLUMNS[1:-1]:
        out[column] = out[column].fillna(0).astype("int64")
    out["nodes_off_max"] = out["nodes_off_max"].astype("Int64")
    return out


def _paired_ratios(pairs: pd.DataFrame) -> pd.DataFrame:
    """Per configuration, the geometric mean ratio of its nodes to the baseline's over the
    pairs, its interval and the signed-rank p-value (:func:`.paired.paired_ratio`)."""
    rows = []
    for key, group in pairs.groupby(KEYS, sort=False):
        found = paired_ratio(group["n"].to_numpy(), group["ref"].to_numpy())
        rows.append(dict(zip(KEYS, key)) | {"nodes_ratio": found["ratio"], "nodes_ratio_low": found["ratio_low"],
                                            "nodes_ratio_high": found["ratio_high"], "p_value": found["p"]})
    out = pd.DataFrame(rows, columns=KEYS + ["nodes_ratio", "nodes_ratio_low", "nodes_ratio_high", "p_value"])
    out["size"] = out["size"].astype("int64")
    return out


def records(df: pd.DataFrame) -> list[dict]:
    """The rows as plain dicts: floats at full precision (``to_json`` rounds to 10 decimal
    places, which turns a last-bit difference into a different figure), missing values as None."""
    return df.astype(object).where(df.notna(), None).to_dict("records")


def format_frame(df: pd.DataFrame, fmt: str) -> str:
    """``table`` (aligned text), ``csv`` or ``json`` (a list of records)."""
    if fmt == "csv":  # 15 significant digits: a mean's last-bit noise (2971.2000000000007) is not a figure
        return df.to_csv(index=False, float_format="%.15g").rstrip("\n")
    if fmt == "json":
        return json.dumps(records(df), indent=2, default=str)
    if fmt == "table":
        return df.to_string(index=False, float_format=lambda v: f"{v:,.4g}" if abs(v) < 1e4 else f"{v:,.0f}")
    raise InvalidOptionError(f"format {fmt!r} is not known; expected table, csv or json")


def _three_digits(value: float) -> str:
    return f"{value:.2f}" if value < 10 else f"{value:.1f}" if value < 100 else f"{value:.0f}"


def _count(value: float) -> str:
    """``733``, ``1.00k``, ``44.6M``, ``1.20T``: three significant digits, for a glance."""
    if pd.isna(value):
        return "-"
    for unit in ("", "k", "M", "G", "T", "P"):
        if value < 999.5 or unit == "P":
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


def _ratio(ratio: float, low: float, high: float) -> str:
    """``0.512 (0.505-0.519)``: three significant digits, the interval when there is one."""
    if pd.isna(ratio):
        return "-"
    return f"{ratio:#.3g}" + ("" if pd.isna(low) else f" ({low:#.3g}-{high:#.3g})")


def _p_value(p: float) -> str:
    return "-" if pd.isna(p) else "< 0.001" if p < 0.001 else f"{p:.3f}"


def _fixed(digits: int):
    return lambda v: "-" if pd.isna(v) else f"{v:.{digits}f}"


# The columns a person reads first, sized for an 80-column terminal:
# (header, function of the summary frame giving the column's text, left-aligned?).
NARROW = [
    ("size", lambda df: df["size"].astype(str), False),  # only when the rows hold several sizes
    ("algorithm", lambda df: df["algorithm"], True),
    ("heuristic", lambda df: df["heuristic"], True),
    ("pruning", lambda df: df["pruning"], True),  # only when the rows hold several prunings
    ("solved", lambda df: df["solved"].astype(str) + "/" + df["instances"].astype(str), False),
    ("nodes", lambda df: df["nodes_mean"].map(_count), False),
    ("median", lambda df: df["nodes_median"].map(_count), False),
    ("ebf", lambda df: df["ebf_mean"].map(_fixed(3)), False),
    ("cost", lambda df: df["cost_mean"].map(_fixed(2)), False),
    ("time", lambda df: df["time_mean"].map(_duration), False),  # the chosen clock's mean, headed by its name
    ("pairs", lambda df: df["paired"].astype(str), False),  # only when some runs are not paired
    ("reduction", lambda df: df["node_reduction_pct"].map(lambda v: "-" if pd.isna(v) else f"{v:.1f}%"), False),
]
NARROW_NOTE = "nodes: mean and median generated; ebf, cost, time: means; over solved runs"
CLOCK_NOTES = {"cpu": "CPU time: of the thread that solved (--clock wall: wall time)",
               "wall": "wall time: from the start of a search to its end (--clock cpu: CPU time)"}
WIDE_NOTE = "--wide or --format csv/json: every column"


def _some_unpaired(df: pd.DataFrame) -> bool:
    """Whether some reduction is over fewer instances than its row ran."""
    return "paired" in df and bool((df["paired"] != df["instances"]).any())


def _reduction_note(df: pd.DataFrame) -> str:
    baseline = df.attrs.get("baseline") or "the baseline"
    if _some_unpaired(df):
        return f"pairs, reduction: instances both solved; nodes saved on them against {baseline}"
    return f"reduction: nodes saved against {baseline} on the instances both solved"


def _ratio_lines(df: pd.DataFrame) -> list[str]:
    """Each configuration's paired statistics against the baseline, a line each (the
    baseline's own rows, a ratio of 1, are left out)."""
    baseline = df.attrs.get("baseline")
    mine = df[df["heuristic"] != baseline]
    if mine.empty:
        return []
    names = [f"{a} {h}" for a, h in zip(mine["algorithm"], mine["heuristic"], strict=True)]
    width = max(map(len, names))
    ratios = [_ratio(*v) for v in zip(mine["nodes_ratio"], mine["nodes_ratio_low"], mine["nodes_ratio_high"],
                                       strict=True)]
    span = max(map(len, ratios))
    lines = [f"against {baseline}: nodes ratio, geometric mean (95% CI), Wilcoxon p"]
    for name, ratio, p in zip(names, ratios, mine["p_value"], strict=True):
        lines.append(f"  {name.ljust(width)}  {ratio.ljust(span)}  p {_p_value(p)}")
    return lines


def _agreement(equal: int, of: int, what: str, off: str) -> str:
    return f"{what} {equal} of {of} equal" + ("" if equal == of else f" ({of - equal} {off})")


def _published_lines(df: pd.DataFrame) -> list[str]:
    """Each configuration that solved published boards against the published figures, a
    line each: lengths, and node counts where they were published for it."""
    mine = df[df["published_solved"] > 0]
    names = [f"{a} {h}" for a, h in zip(mine["algorithm"], mine["heuristic"], strict=True)]
    width = max(map(len, names))
    sources = ", ".join(dict.fromkeys(mine["published"]))
    lines = [f"against the published figures ({sources}), over solved runs of the published boards"]
    for name, (_, row) in zip(names, mine.iterrows(), strict=True):
        text = _agreement(row["lengths_equal"], row["published_solved"], "lengths", "differ")
        if row["nodes_published"]:
            off = f"off, by at most {row['nodes_off_max']:,}"
            text += "; " + _agreement(row["nodes_equal"], row["nodes_published"], "nodes generated", off)
        lines.append(f"  {name.ljust(width)}  {text}")
    return lines


def format_summary(df: pd.DataFrame, fmt: str, wide: bool = False, clock: str = DEFAULT_CLOCK) -> str:
    """A summary as :func:`format_frame` prints it; the text table without ``wide`` shows
    only :data:`NARROW`'s columns, humanised, its time by ``clock`` (``cpu`` or ``wall``),
    and a note saying what they are (csv and json carry both clocks' columns)."""
    check_clock(clock)
    if fmt != "table" or wide:
        return format_frame(df, fmt)
    shown = df.assign(time_mean=df[f"{CLOCK_COLUMNS[clock]}_mean"])
    columns = [(f"{clock}-time" if header == "time" else header, make(shown), left)
               for header, make, left in NARROW
               if (header != "size" or df["size"].nunique() > 1)
               and (header != "pruning" or df["pruning"].nunique() > 1)
               and (header != "reduction" or "node_reduction_pct" in df)
               and (header != "pairs" or _some_unpaired(df))]
    widths = [max([len(header), *map(len, cells)]) for header, cells, _ in columns]

    def line(cells) -> str:
        return " ".join(c.ljust(w) if left else c.rjust(w)
                        for c, w, (_, _, left) in zip(cells, widths, columns, strict=True)).rstrip()

    body = [line(row) for row in zip(*(cells for _, cells, _ in columns), strict=True)]
    notes = [NARROW_NOTE, CLOCK_NOTES[clock], *([_reduction_note(df)] if "node_reduction_pct" in df else []),
             WIDE_NOTE]
    extra = [lines for lines in (_ratio_lines(df) if "nodes_ratio" in df else [],
                                 _published_lines(df) if "published" in df else []) if lines]
    return "\n".join([line([h for h, _, _ in columns]), *body, "", *(x for lines in extra for x in (*lines, "")),
                      *notes])
