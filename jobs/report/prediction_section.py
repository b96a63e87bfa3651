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

import numpy as np
import pandas as pd
from bokeh.models import ColumnDataSource, HoverTool, Legend

from tilesweep.pdb_store.errors import MissingTableError
from tilesweep.solver.errors import TilesweepError

from ..predict import METHODS, NotSampledError, SweepComparison, compare_heuristic
from ..verify import read_spec
from .data import ReportData
from .page import frame_table
from .plots import _figure

LABELS = {"kre": "KRE", "cdp": "CDP", "cdp2": "CDP, two steps"}
PREDICTED_INSTANCES = 500   # per configuration; ~5 ms each on the 8-puzzle (docs/predict.md)
COLOURS = {"kre": "#d55e00", "cdp": "#0072b2", "cdp2": "#009e73"}   # Okabe & Ito, as the static figure
MARKERS = {"kre": "triangle", "cdp": "circle", "cdp2": "square"}
TABLE_COLUMNS = ["configuration", "method", "instances", "iterations", "sum ratio",
                 "iteration gmean", "iteration p10", "iteration p90", "instance gmean", "instance p10", "instance p90"]


def _rows(data: ReportData, sweep: str) -> pd.DataFrame:
    """The IDA* rows of ``sweep`` with what a prediction reads (tiles, iterations)."""
    return data.con.execute("SELECT instance, algorithm, heuristic, pruning, status, iterations, tiles FROM results "
                            "WHERE sweep = ? AND algorithm = 'idastar'", [sweep]).df()


def _label(data: ReportData, sweep: str, heuristic: str, prune: str) -> str:
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
            label = _label(data, sweep.name, heuristic, str(spec.prune))
            try:
                found = compare_heuristic(spec, rows, heuristic, store, build=False, sample=False,
                                          limit=PREDICTED_INSTANCES)
            except (NotSampledError, MissingTableError) as err:
                skipped.append(f"{label}: {err}; `tilesweep predict {sweep.folder}` computes them once and keeps "
                               "them in the store, and the next report shows them")
                continue
            except TilesweepError as err:  # a plugin not loaded here, a heuristic it cannot evaluate, ...
                skipped.append(f"{label}: {err}")
                continue
            if not found.agreements:
                skipped.append(f"{label}: no completed iteration (no solved run went past its first)")
                continue
            done.append((label, found))
    return done, skipped


def agreement_table(done: list[tuple[str, SweepComparison]]) -> pd.DataFrame:
    """One row per configuration and method: the ratios predicted / measured."""
    rows = []
    for label, found in done:
        for a in found.agreements:
            rows.append([label, LABELS.get(a.method, a.method), a.instances, a.iterations,
                         a.aggregate, a.iteration_gmean, a.iteration_p10, a.iteration_p90, a.instance_gmean,
                         a.instance_p10, a.instance_p90])
    return pd.DataFrame(rows, columns=TABLE_COLUMNS)


def predicted_figure(label: str, found: SweepComparison, name: str):
    """Predicted against measured nodes of each completed iteration, log-log, one colour and
    marker per method, beside the diagonal where they are equal."""
    frame = found.iterations
    fig = _figure(name, f"{label}: predicted against measured, per completed iteration",
                  "nodes generated in the iteration, measured", "nodes generated, predicted", x_log=True, y_log=True)
    methods = [a.method for a in found.agreements]
    values = np.concatenate([frame["measured"].to_numpy(float)] + [frame[m].to_numpy(float) for m in methods])
    lo, hi = max(values[values > 0].min(), 1.0) / 1.5, values.max() * 1.5
    legend = [("predicted = measured", [fig.line([lo, hi], [lo, hi], color="#888", line_dash="dashed")])]
    for method in methods:
        source = ColumnDataSource(dict(measured=frame["measured"].to_numpy(float),
                                       predicted=frame[method].to_numpy(float),
                                       instance=frame["instance"].to_numpy("int64"),
                                       bound=frame["bound"].to_numpy("int64")))
        dots = fig.scatter("measured", "predicted", source=source, color=COLOURS.get(method, "#000"),
                           marker=MARKERS.get(method, "circle"), size=5, alpha=0.45)
        fig.add_tools(HoverTool(renderers=[dots], limit=1, tooltips=[
            ("method", LABELS.get(method, method)), ("instance", "@instance"), ("bound", "@bound"),
            ("measured", "@measured{0,0}"), ("predicted", "@predicted{0,0}")]))
        legend.append((LABELS.get(method, method), [dots]))
    fig.add_layout(Legend(items=legend, click_policy="hide", location="top_left"), "center")
    return fig


def prediction_section(data: ReportData, store=None) -> tuple[dict, dict]:
    """The section's bokeh figures by name and its template context (``prediction``)."""
    from tilesweep.pdb_store import open_store

    has_idastar = bool((data.rows["algorithm"] == "idastar").any())
    done, skipped = comparisons(data, store or open_store(None)) if has_idastar else ([], [])
    figures = {f"predicted-{i}": predicted_figure(label, found, f"predicted-{i}")
               for i, (label, found) in enumerate(done)}
    configs = [{"label": label, "distributions": found.model.describe(), "figure": name,
                "sample": (f"{found.predicted:,} of its {found.solved:,} solved instances, a uniform random sample "
                           "(seed 0)" if found.predicted < found.solved else "")}
               for name, (label, found) in zip(figures, done, strict=True)]
    return figures, {"has_idastar": has_idastar, "table": frame_table(agreement_table(done)), "configs": configs,
                     "skipped": skipped, "limit": PREDICTED_INSTANCES,
                     "methods": ", ".join(LABELS[m] for m in METHODS if m in LABELS)}  # cdp-eps: only when asked
