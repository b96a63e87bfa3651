"""The report's prediction section: KRE's and CDP's nodes per IDA* iteration beside the
iterations each IDA* configuration measured, through :mod:`..predict` (the comparison of
``tilesweep predict``, not a second one).

A report stays quick: at most :data:`PREDICTED_INSTANCES` instances per configuration (a
seeded sample), pattern databases read from the store and never built, and distributions
computed only where they are exact and cheap (the 8-puzzle: seconds, once per store); sampled
ones (15- and 24-puzzle) only read from the store, where ``tilesweep predict`` keeps them. A
configuration that cannot be predicted here is named in one line with the reason.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import pandas as pd
from bokeh.models import ColumnDataSource, HoverTool, Legend

from tilesweep.pdb_store.errors import MissingTableError
from tilesweep.solver.errors import TilesweepError

from ..predict import METHODS, NotSampledError, SweepComparison, compare_heuristic
from ..verify import read_spec
from .data import ReportData
from .method_looks import DIAGONAL_LABEL, label, look, ratio_text
from .page import cell
from .plots import _figure

PREDICTED_INSTANCES = 500   # per configuration; ~5 ms each on the 8-puzzle (docs/predict.md)
COUNT_COLUMNS = ["configuration", "method", "instances", "iterations"]
RATIO_COLUMNS = ["sum ratio", "iteration gmean", "iteration p10", "iteration p90", "instance gmean", "instance p10",
                 "instance p90"]
TABLE_COLUMNS = COUNT_COLUMNS + RATIO_COLUMNS


def _rows(data: ReportData, sweep: str) -> pd.DataFrame:
    """The IDA* rows of ``sweep`` with what a prediction reads (tiles, iterations)."""
    return data.con.execute("SELECT instance, algorithm, heuristic, pruning, status, iterations, tiles FROM results "
                            "WHERE sweep = ? AND algorithm = 'idastar'", [sweep]).df()


def _config_label(data: ReportData, sweep: str, heuristic: str, prune: str) -> str:
    rows = data.rows
    mine = rows[(rows["sweep"] == sweep) & (rows["algorithm"] == "idastar") & (rows["heuristic"] == heuristic)
                & (rows["pruning"].astype(str) == prune)]
    return str(mine["config"].iloc[0]) if len(mine) else f"idastar {heuristic}"


def comparisons(data: ReportData, store) -> tuple[list[tuple[str, SweepComparison]], list[str]]:
    """(configuration label, comparison) of every IDA* configuration that could be predicted,
    and one line for each that could not."""
    done, skipped = [], []
    for sweep in data.sweeps:
        spec = read_spec(sweep.folder)
        if "idastar" not in spec.algorithms:
            continue
        rows = _rows(data, sweep.name)
        for heuristic in spec.heuristics:
            config = _config_label(data, sweep.name, heuristic, str(spec.prune))
            try:
                found = compare_heuristic(spec, rows, heuristic, store, build=False, sample=False,
                                          limit=PREDICTED_INSTANCES)
            except (NotSampledError, MissingTableError) as err:
                skipped.append(f"{config}: {err}; `tilesweep predict {sweep.folder}` computes them once and keeps "
                               "them in the store, and the next report shows them")
                continue
            except TilesweepError as err:  # a plugin not loaded here, a heuristic it cannot evaluate, ...
                skipped.append(f"{config}: {err}")
                continue
            if not found.agreements:
                skipped.append(f"{config}: no completed iteration (no solved run went past its first)")
                continue
            done.append((config, found))
    return done, skipped


@dataclass(frozen=True)
class Predictions:
    """The report's comparisons, computed once and drawn by both the page and the static figures."""

    has_idastar: bool
    done: list[tuple[str, SweepComparison]]   # (configuration label, comparison)
    skipped: list[str]                        # one line per configuration not predicted, with the reason


def predictions(data: ReportData, store=None) -> Predictions:
    """:func:`comparisons` of ``data``'s IDA* configurations (``store``: default ``$TILESWEEP_STORE``)."""
    from tilesweep.pdb_store import open_store

    has_idastar = bool((data.rows["algorithm"] == "idastar").any())
    done, skipped = comparisons(data, store or open_store(None)) if has_idastar else ([], [])
    return Predictions(has_idastar, done, skipped)


def agreement_table(done: list[tuple[str, SweepComparison]]) -> pd.DataFrame:
    """One row per configuration and method: the ratios predicted / measured."""
    rows = []
    for config, found in done:
        for a in found.agreements:
            rows.append([config, label(a.method), a.instances, a.iterations,
                         a.aggregate, a.iteration_gmean, a.iteration_p10, a.iteration_p90, a.instance_gmean,
                         a.instance_p10, a.instance_p90])
    return pd.DataFrame(rows, columns=TABLE_COLUMNS)


def ratio_cell(value) -> dict:
    """A ratio's cell: the exact value for sorting, the text by the table's one formatter."""
    return {**cell(value), "text": ratio_text(value)}


def page_table(table: pd.DataFrame) -> dict:
    """:func:`agreement_table` for the template, every ratio column formatted alike."""
    formats = [ratio_cell if column in RATIO_COLUMNS else cell for column in table.columns]
    return {"headers": list(table.columns),
            "rows": [[fmt(v) for fmt, v in zip(formats, row, strict=True)]
                     for row in table.itertuples(index=False, name=None)]}


def predicted_figure(config: str, found: SweepComparison, name: str):
    """Predicted against measured nodes of each completed iteration, log-log, one colour and
    marker per method, beside the diagonal where they are equal."""
    frame = found.iterations
    fig = _figure(name, f"{config}: predicted against measured, per completed iteration",
                  "nodes generated in the iteration, measured", "nodes generated, predicted", x_log=True, y_log=True)
    methods = [a.method for a in found.agreements]
    values = np.concatenate([frame["measured"].to_numpy(float)] + [frame[m].to_numpy(float) for m in methods])
    lo, hi = max(values[values > 0].min(), 1.0) / 1.5, values.max() * 1.5
    diagonal = fig.line([lo, hi], [lo, hi], color=look("measured").colour, line_dash="dashed")
    legend = [(DIAGONAL_LABEL, [diagonal])]
    for method in methods:
        source = ColumnDataSource(dict(measured=frame["measured"].to_numpy(float),
                                       predicted=frame[method].to_numpy(float),
                                       instance=frame["instance"].to_numpy("int64"),
                                       bound=frame["bound"].to_numpy("int64")))
        shown = look(method)
        dots = fig.scatter("measured", "predicted", source=source, color=shown.colour, marker=shown.bokeh_marker,
                           size=5, alpha=0.45)
        fig.add_tools(HoverTool(renderers=[dots], limit=1, tooltips=[
            ("method", shown.label), ("instance", "@instance"), ("bound", "@bound"),
            ("measured", "@measured{0,0}"), ("predicted", "@predicted{0,0}")]))
        legend.append((shown.label, [dots]))
    fig.add_layout(Legend(items=legend, click_policy="hide", location="top_left"), "center")
    return fig


def prediction_section(found: Predictions) -> tuple[dict, dict]:
    """The section's bokeh figures by name and its template context (``prediction``)."""
    figures = {f"predicted-{i}": predicted_figure(config, compared, f"predicted-{i}")
               for i, (config, compared) in enumerate(found.done)}
    configs = [{"label": config, "distributions": compared.model.describe(), "figure": name,
                "sample": (f"{compared.predicted:,} of its {compared.solved:,} solved instances, a uniform random "
                           "sample (seed 0)" if compared.predicted < compared.solved else "")}
               for name, (config, compared) in zip(figures, found.done, strict=True)]
    # the labels joined by "; ": one of them ("CDP, two steps") holds a comma
    return figures, {"has_idastar": found.has_idastar, "table": page_table(agreement_table(found.done)),
                     "configs": configs, "skipped": found.skipped, "limit": PREDICTED_INSTANCES,
                     "methods": "; ".join(label(m) for m in METHODS if m != "cdp-eps")}  # cdp-eps: only when asked
