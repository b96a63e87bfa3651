"""The report page: header, tables and the instance data, around the bokeh figures.

The page is one file: bokeh's scripts (``INLINE`` resources), the page's own style and
script (``report.css``, ``report.js`` beside this module) and the data are all inline,
so it opens from disk with no network.
"""

from __future__ import annotations

import json
import math
from datetime import datetime, timezone
from pathlib import Path

import numpy as np
import pandas as pd
from bokeh.document import Document
from bokeh.embed import file_html
from bokeh.resources import INLINE
from jinja2 import Environment, FileSystemLoader, select_autoescape

from tilesweep.solver.board import goal_tiles

from .data import ReportData

HERE = Path(__file__).parent
MAX_TABLE_ROWS = 50_000
SPEC_FIELDS = ("size", "goal", "instances", "seed", "count", "algorithms", "heuristics", "max_nodes", "chunk_size")


def cell(value) -> dict:
    """A table cell: the exact value (``data-value``) and its text."""
    if value is None or (isinstance(value, float) and math.isnan(value)) or value is pd.NA:
        return {"value": "", "text": "–"}
    if isinstance(value, (bool, np.bool_)):
        return {"value": str(bool(value)).lower(), "text": "yes" if value else "no"}
    if isinstance(value, (int, np.integer)):
        return {"value": str(int(value)), "text": f"{int(value):,}"}
    if isinstance(value, (float, np.floating)):
        v = float(value)
        text = f"{v:,.0f}" if abs(v) >= 1e4 else f"{v:,.4g}" if abs(v) >= 1e-3 or v == 0 else f"{v:.3g}"
        return {"value": repr(v), "text": text}
    return {"value": str(value), "text": str(value)}


def frame_table(frame: pd.DataFrame, index_name: str | None = None) -> dict:
    """Headers and rows of cells for the template."""
    if index_name is not None:
        frame = frame.reset_index(names=index_name)
    return {"headers": list(frame.columns),
            "rows": [[cell(v) for v in row] for row in frame.itertuples(index=False, name=None)]}


def sweep_header(data: ReportData) -> list[dict]:
    """One entry per sweep: its spec fields, row count and last run record."""
    counts = data.rows.groupby("sweep").size()
    out = []
    for sweep in data.sweeps:
        runs = sweep.run.get("runs") or []
        last = runs[-1] if runs else {}
        machine = last.get("machine") or {}
        out.append({
            "name": sweep.name, "folder": str(sweep.folder), "rows": int(counts.get(sweep.name, 0)),
            "spec": {k: (", ".join(v) if isinstance(v, list) else v)
                     for k, v in sweep.spec.items() if k in SPEC_FIELDS},
            "fingerprint": str(sweep.spec.get("fingerprint", ""))[:12],
            "version": last.get("tilesweep", "not recorded"),
            "machine": f"{machine.get('cpu', '?')}, {machine.get('cores', '?')} cores" if machine else "not recorded",
            "started": last.get("started", "not recorded"), "scheduler": last.get("scheduler", "not recorded"),
        })
    return out


def table_items(data: ReportData) -> tuple[np.ndarray | None, str]:
    """All instances, or a seeded sample of them when the rows exceed MAX_TABLE_ROWS."""
    if len(data.rows) <= MAX_TABLE_ROWS:
        return None, ""
    items = data.rows["item"].unique()
    per_item = len(data.rows) / len(items)
    keep = np.random.default_rng(0).choice(items, int(MAX_TABLE_ROWS / per_item), replace=False)
    return keep, (f"The table holds every run of {len(keep):,} of the {len(items):,} instances "
                  f"(a uniform random sample; {len(data.rows):,} runs in all).")


def _numbers(series: pd.Series, digits: int | None = None) -> list:
    """Integers (or floats to ``digits`` significant digits), None where missing."""
    values = series.to_numpy(float)
    return [None if math.isnan(v) else (float(f"{v:.{digits}g}") if digits else int(v)) for v in values]


def _codes(series: pd.Series) -> tuple[list, list]:
    """Small integers into a list of the distinct values (decoded by the page's script)."""
    index, values = pd.factorize(series)
    return index.tolist(), [v.item() if hasattr(v, "item") else v for v in values]


def table_data(frame: pd.DataFrame) -> dict:
    """``frame`` as the page's tables read it: number columns, text columns as codes."""
    columns, lookups = {}, {}
    for name in frame.columns:
        if pd.api.types.is_numeric_dtype(frame[name]) and not pd.api.types.is_bool_dtype(frame[name]):
            columns[name] = _numbers(frame[name])
        else:
            columns[name], lookups[name] = _codes(frame[name].fillna("").astype(str))
    return {"columns": list(columns), "data": list(columns.values()), "lookups": lookups}


def instance_data(data: ReportData) -> dict:
    """The instance table's rows (with tiles and moves) for the page's script."""
    keep, note = table_items(data)
    rows = data.rows if keep is None else data.rows[data.rows["item"].isin(keep)]
    keys = rows[["sweep", "instance"]].drop_duplicates()
    data.con.register("_table_keys", keys)
    present = {row[0] for row in data.con.sql("DESCRIBE results").fetchall()}
    reason = "status_reason" if "status_reason" in present else "NULL::VARCHAR AS status_reason"  # older sweeps
    text = data.con.sql(f"SELECT sweep, instance, algorithm, heuristic, pruning, tiles, moves, {reason} FROM results "
                        "SEMI JOIN _table_keys USING (sweep, instance)").df()
    data.con.unregister("_table_keys")
    rows = rows.merge(text, on=["sweep", "instance", "algorithm", "heuristic", "pruning"], how="left")
    boards, board_index = np.unique(rows["tiles"].fillna("").to_numpy(str), return_inverse=True)
    goals = {f"{s}|{g}": list(goal_tiles(str(g), int(s)))
             for s, g in rows[["size", "goal"]].drop_duplicates().itertuples(index=False)}

    columns, lookups = {}, {}
    for name in ("sweep", "algorithm", "heuristic", "status", "reason", "goal"):
        series = (rows["size"].astype(str) + "|" + rows["goal"].astype(str) if name == "goal"
                  else rows["status_reason"].fillna("") if name == "reason" else rows[name])
        columns[name], lookups[name] = _codes(series)
    columns.update(instance=rows["instance"].astype(int).tolist(), cost=_numbers(rows["cost"]),
                   nodes=_numbers(rows["nodes_generated"]), ebf=_numbers(rows["ebf"], 5),
                   seconds=_numbers(rows["seconds"], 3), h0=_numbers(rows["h0"]), board=board_index.tolist(),
                   moves=rows["moves"].fillna("").tolist(),
                   size=rows["size"].astype(int).tolist())
    return {"columns": list(columns), "data": list(columns.values()), "lookups": lookups,
            "boards": boards.tolist(), "goals": goals, "note": note, "headers": {"seconds": data.seconds_label}}


def script_json(value) -> str:
    """``value`` as JSON that an inline ``<script>`` element holds safely."""
    return json.dumps(value, separators=(",", ":")).replace("</", "<\\/")


def render(data: ReportData, figures: dict, context: dict) -> str:
    """The whole page: ``figures`` (name -> bokeh model) placed by the template."""
    env = Environment(loader=FileSystemLoader(HERE), autoescape=select_autoescape(["html", "jinja"]))
    template = env.get_template("report.html.jinja")
    variables = {**context, "style": (HERE / "report.css").read_text(), "script": (HERE / "report.js").read_text(),
                 "instance_json": script_json(instance_data(data)),
                 "generated": datetime.now(timezone.utc).isoformat(timespec="seconds")}
    doc = Document()
    with doc.models.freeze():  # one model-graph walk for all roots instead of one per root
        for model in figures.values():
            doc.add_root(model)
    return file_html(doc, resources=INLINE, template=template, title=context["title"], template_variables=variables)
