"""``tilesweep table``: tables a paper can print, as LaTeX (booktabs), CSV or Markdown.

Two tables. The *configurations* table has a row per instance set (size, goal and source
of the sweep's boards) and configuration: coverage, the sums of nodes, CPU and wall seconds
over the instances every configuration of the set solved, and the geometric mean of the
per-instance node ratios against the baseline with its 95 % interval and p-value
(:mod:`..paired`); the best value of each column is marked (bold in LaTeX and Markdown;
CSV keeps plain numbers). The *published* table has a row per run of a published board
(Korf's 100, Korf & Felner's 50; ``board``: its number there): the published length and
node count beside ours, and their differences. The *prediction* table is the report's
(:mod:`.prediction_section`): per IDA* configuration and method, the ratios predicted /
measured, each by the page's formatter (:func:`.method_looks.ratio_text`).
"""

from __future__ import annotations

import re

import pandas as pd

from tilesweep.solver.errors import InvalidOptionError

from ..published import COUNTED, published_table
from .data import ReportData, common_items
from .method_looks import ratio_text
from .plotted import baseline_ratio
from .prediction_section import RATIO_COLUMNS, agreement_table, predictions

FORMATS = ("latex", "csv", "markdown")
# column: (heading, the better direction: min, max, or None for no mark)
CONFIG_COLUMNS = {"set": ("instance set", None), "configuration": ("configuration", None),
                  "instances": ("instances", None), "solved": ("solved", "max"),
                  "common": ("common", None), "nodes": ("nodes (common)", "min"),
                  "cpu_s": ("CPU s (common)", "min"), "wall_s": ("wall s (common)", "min"),
                  "ratio": ("node ratio", "min"), "interval": ("95% interval", None), "p": ("p", None)}


def instance_sets(data: ReportData) -> pd.Series:
    """Per row, its instance set: ``8-puzzle blank-last uniform``."""
    source = {s.name: str(s.spec.get("instances", "")) for s in data.sweeps}
    goal = {s.name: str(s.spec.get("goal", "")) for s in data.sweeps}
    sweep = data.rows["sweep"].astype(str)
    return ((data.rows["size"] ** 2 - 1).astype(str) + "-puzzle " + sweep.map(goal) + " " + sweep.map(source))


def _wall_seconds(data: ReportData) -> pd.Series:
    """Wall search seconds of each of ``data.rows`` (the report reads one clock)."""
    keys = ["sweep", "instance", "algorithm", "heuristic", "pruning"]
    wall = data.con.sql(f"SELECT {', '.join(keys)}, seconds AS wall FROM results").df()
    merged = data.rows[keys].astype(str).merge(wall.astype({k: str for k in keys}), on=keys, how="left")
    return pd.Series(merged["wall"].to_numpy(float), index=data.rows.index)


def configuration_table(data: ReportData) -> pd.DataFrame:
    """The configurations table (raw numbers; :func:`render` marks and formats)."""
    rows = data.rows.assign(set=instance_sets(data), wall=_wall_seconds(data))
    common = common_items(data)
    out = []
    for config in data.configs:
        mine = rows[rows["config"] == config]
        solved = mine[mine["status"] == "solved"]
        shared = solved[solved["item"].isin(common.get(mine["size"].iloc[0], []))]
        entry = {"set": mine["set"].iloc[0], "configuration": config, "instances": len(mine), "solved": len(solved),
                 "common": len(shared), "nodes": shared["nodes_generated"].sum(), "cpu_s": shared["seconds"].sum(),
                 "wall_s": shared["wall"].sum()}
        out.append(entry | baseline_ratio(data, config))
    return pd.DataFrame(out)


def published_rows(data: ReportData) -> pd.DataFrame:
    """Every run of a published board: instance, configuration, published and found length
    and nodes, and the differences (ours minus published; nodes only for the configuration
    the count was published for). Empty when no board is a published one."""
    found = data.con.sql("SELECT sweep, instance, size, goal, tiles, algorithm, heuristic, pruning, status, cost, "
                         "nodes_generated FROM results").df()
    found = found.merge(published_table(), on=["size", "goal", "tiles"])
    if found.empty:
        return pd.DataFrame()
    labels = data.rows.drop_duplicates(["sweep", "algorithm", "heuristic", "pruning"]).astype(
        {"sweep": str, "algorithm": str, "heuristic": str, "pruning": str})
    found = found.merge(labels[["sweep", "algorithm", "heuristic", "pruning", "config"]],
                        on=["sweep", "algorithm", "heuristic", "pruning"])
    counted = pd.Series(list(zip(found["algorithm"], found["heuristic"], found["pruning"]))) == [COUNTED] * len(found)
    solved = found["status"] == "solved"
    length = found["cost"].where(solved)
    nodes = found["nodes_generated"].where(solved & counted.to_numpy())
    table = pd.DataFrame({"instance": found["instance"], "board": found["number"],
                          "configuration": found["config"].astype(str),
                          "status": found["status"], "published length": found["published_length"],
                          "length": length, "length diff": length - found["published_length"],
                          "published nodes": found["published_nodes"].where(counted.to_numpy()),
                          "nodes": nodes, "nodes diff": nodes - found["published_nodes"],
                          "source": found["source"]})
    order = {c: i for i, c in enumerate(data.configs)}
    return table.sort_values(["instance", "configuration"], key=lambda c: c.map(order) if c.name == "configuration"
                             else c, ignore_index=True)


def _number(value, digits: int = 0) -> str:
    if value is None or pd.isna(value):
        return "–"
    return f"{value:,.{digits}f}" if digits else f"{int(value):,}"


def _figure(value) -> str:
    """Three significant figures, thousands grouped (1,234,567 stays whole)."""
    if pd.isna(value):
        return "–"
    return f"{value:,.0f}" if abs(value) >= 100 else f"{value:.3g}"


def format_configurations(table: pd.DataFrame, fmt: str) -> list[list[str]]:
    """The configurations table as text cells, the best of each marked column marked."""
    cells = pd.DataFrame({"set": table["set"], "configuration": table["configuration"],
                          "instances": table["instances"].map(_number), "solved": table["solved"].map(_number),
                          "common": table["common"].map(_number), "nodes": table["nodes"].map(_number),
                          "cpu_s": table["cpu_s"].map(_figure), "wall_s": table["wall_s"].map(_figure),
                          "ratio": table["ratio"].map(lambda v: "–" if pd.isna(v) else f"{v:.3f}"),
                          "interval": [("–" if pd.isna(lo) else f"{lo:.3f}–{hi:.3f}")
                                       for lo, hi in zip(table["ratio_low"], table["ratio_high"])],
                          "p": table["p"].map(lambda v: "–" if pd.isna(v) else f"{v:.2g}")})
    for column, (_, better) in CONFIG_COLUMNS.items():
        if better is None:
            continue
        for _, group in table.groupby("set", sort=False):
            values = group[column].astype(float)
            if values.notna().sum() < 2:
                continue
            best = values.min() if better == "min" else values.max()
            for i in group.index[values == best]:
                cells.loc[i, column] = _bold(cells.loc[i, column], fmt)
    return cells.to_numpy().tolist()


def _bold(text: str, fmt: str) -> str:
    return f"\\textbf{{{text}}}" if fmt == "latex" else f"**{text}**"


def render(headings: list[str], rows: list[list[str]], fmt: str, caption: str = "", long: bool = False) -> str:
    """A table in ``fmt``: LaTeX (booktabs ``tabular``; with ``long`` a ``longtable`` that
    breaks across pages, its headings on each), CSV or Markdown (pipes)."""
    if fmt == "csv":
        return pd.DataFrame(rows, columns=headings).to_csv(index=False).rstrip("\n")
    if fmt == "markdown":
        lines = ["| " + " | ".join(headings) + " |", "|" + "|".join("---" for _ in headings) + "|"]
        return "\n".join(lines + ["| " + " | ".join(row) + " |" for row in rows])
    if fmt == "latex":
        return _latex(headings, rows, caption, "longtable" if long else "tabular")
    raise InvalidOptionError(f"format {fmt!r} is not known; expected latex, csv or markdown")


LATEX_SPECIAL = {"\\": "\\textbackslash{}", "&": "\\&", "%": "\\%", "$": "\\$", "#": "\\#", "_": "\\_",
                 "{": "\\{", "}": "\\}", "~": "\\textasciitilde{}", "^": "\\textasciicircum{}", "–": "--"}


def latex_escape(text: str) -> str:
    """``text`` with LaTeX's special characters escaped (a bold mark already made is kept)."""
    if text.startswith("\\textbf{") and text.endswith("}"):
        return "\\textbf{" + latex_escape(text[8:-1]) + "}"
    return re.sub("[\\\\&%$#_{}~^–]", lambda m: LATEX_SPECIAL[m.group()], text)


TEXT_COLUMNS = {"instance set", "configuration", "status", "source", "method"}  # set flush left; numbers flush right


def _latex(headings: list[str], rows: list[list[str]], caption: str, environment: str = "tabular") -> str:
    spec = "".join("l" if heading in TEXT_COLUMNS else "r" for heading in headings)
    lines = [f"% {caption}" if caption else "% tilesweep table", f"\\begin{{{environment}}}{{{spec}}}", "\\toprule",
             " & ".join(latex_escape(h) for h in headings) + " \\\\", "\\midrule"]
    lines += ["\\endhead"] if environment == "longtable" else []  # the headings again on every page
    lines += [" & ".join(latex_escape(c) for c in row) + " \\\\" for row in rows]
    return "\n".join(lines + ["\\bottomrule", f"\\end{{{environment}}}"])


TABLES = ("configurations", "published", "prediction")


def prediction_table(data: ReportData, fmt: str) -> str:
    """The report's prediction table in ``fmt``; CSV keeps the ratios' every digit."""
    found = predictions(data)
    if not found.done:
        why = "; ".join(found.skipped) if found.has_idastar else "these sweeps ran no IDA*"
        raise InvalidOptionError(f"no IDA* configuration here can be predicted ({why}); expected a sweep of IDA* "
                                 "for --table prediction")
    table = agreement_table(found.done)
    if fmt == "csv":
        return table.to_csv(index=False, float_format="%.15g").rstrip("\n")
    cells = [[ratio_text(v) if column in RATIO_COLUMNS else v if isinstance(v, str) else _number(v)
              for column, v in zip(table.columns, row, strict=True)] for row in table.itertuples(index=False)]
    return render(list(table.columns), cells, fmt, "IDA* nodes predicted / measured per completed iteration")


def table_text(data: ReportData, which: str, fmt: str) -> str:
    """The ``configurations``, ``published`` or ``prediction`` table in ``fmt`` (CSV: plain numbers, no marks)."""
    if which == "prediction":
        return prediction_table(data, fmt)
    if which == "configurations":
        config = configuration_table(data)
        if fmt == "csv":
            return config.to_csv(index=False, float_format="%.15g").rstrip("\n")
        note = f"node ratio: geometric mean over the instances both solved, against {data.baseline}"
        return render([heading for heading, _ in CONFIG_COLUMNS.values()], format_configurations(config, fmt), fmt,
                      note)
    published = published_rows(data)
    if published.empty:
        raise InvalidOptionError("these sweeps hold no published board (Korf's 100, Korf & Felner's 50); "
                                 "expected a sweep of korf100 or korf50-24 for --table published")
    if fmt == "csv":
        return published.to_csv(index=False).rstrip("\n")
    cells = [[str(r["instance"]), str(r["board"]), r["configuration"], str(r["status"]),
              _number(r["published length"]), _number(r["length"]), _signed(r["length diff"]),
              _number(r["published nodes"]), _number(r["nodes"]), _signed(r["nodes diff"]), r["source"]]
             for _, r in published.iterrows()]
    return render(list(published.columns), cells, fmt, "published figures beside ours (\\usepackage{longtable})",
                  long=True)


def _signed(value) -> str:
    return "–" if pd.isna(value) else f"{int(value):+,}" if value else "0"
