"""The report's bokeh figures, each built from :class:`ReportData` rows.

A figure never carries more than :data:`MAX_POINTS` points per series: larger sweeps are
thinned to a uniform random sample (seeded, so a report is reproducible) or aggregated
(curves are sampled at most :data:`CURVE_POINTS` times), and the figure's title says so.
"""

from __future__ import annotations

import json

import numpy as np
import pandas as pd
from bokeh.layouts import column
from bokeh.models import (
    ColumnDataSource,
    CustomJS,
    CustomJSHover,
    CustomJSTicker,
    CustomJSTickFormatter,
    FixedTicker,
    HoverTool,
    Legend,
    LinearAxis,
    Select,
    Span,
    Title,
)
from bokeh.palettes import Category10_10
from bokeh.plotting import figure

from .data import ReportData
from .log_axes import UNITS
from .plotted import (
    KINDS,
    coverage_curves,
    ebf_histogram,
    hardest_keys,
    iteration_rows,
    length_series,
    scatter_pairs,
    scatter_points,
    unsolved_note,
    value_label,
)

MAX_POINTS = 20_000
TOOLS = "pan,wheel_zoom,box_zoom,reset,save"


def colours(data: ReportData) -> dict[str, str]:
    return {c: Category10_10[i % 10] for i, c in enumerate(data.configs)}


# Log-axis labels in a few characters (2M, 300k, 45, 0.005, 2e-5): bokeh's own (2.000e+6) run
# together when a range spans less than a power of ten and every tick gets a label. Below 1, one
# form per axis: decimals (0.005, 0.01) unless a tick is under 0.0001, then powers (5e-5, 1e-4)
COMPACT_TICKS = """
const a = Math.abs(tick);
if (a === 0) return "0";
for (const [scale, unit] of UNITS)
    if (a >= scale) return +(tick / scale).toPrecision(3) + unit;
const tiny = ticks.some(t => t !== 0 && Math.abs(t) < 1e-4);
return a >= 1 || !tiny ? String(+tick.toPrecision(3)) : tick.toExponential(0);
""".replace("UNITS", json.dumps(UNITS))


# A hover shows one point's tooltip (``limit=1``) with the count of points under the pointer:
# unsolved runs share the edge lines and equal small counts share a place, and a tooltip
# each stacked dozens of them
POINTS_HERE = "return special_vars.indices.length.toLocaleString('en')"


# Log-axis ticks at round multiples of each power of ten, fewer the wider the range: bokeh's own
# LogTicker turns linear under two decades (500, 1k, ..., 3.5k), which crowds the top of the axis
LOG_TICKS = """
const {start, end} = cb_data, span = Math.log10(end / start);
const mantissas = span > 2.5 ? [1] : span > 1 ? [1, 2, 5] : span > 0.6 ? [1, 2, 3, 5] : [1, 2, 3, 4, 5, 6, 7, 8, 9];
const step = span > 2.5 ? Math.ceil(span / 8) : 1, ticks = [];
for (let e = Math.floor(Math.log10(start) / step) * step; e <= Math.ceil(Math.log10(end)); e += step)
    for (const m of mantissas) {
        const tick = +(m * 10 ** e).toPrecision(12);
        if (tick >= start && tick <= end) ticks.push(tick);
    }
if (ticks.length >= 2) return ticks;
const unit = 10 ** Math.floor(Math.log10((end - start) / 4));  // a narrow range: linear ticks
const size = [1, 2, 5, 10].map((m) => m * unit).find((d) => (end - start) / d <= 4);
const linear = [];
for (let t = Math.ceil(start / size) * size; t <= end; t += size) linear.push(+t.toPrecision(12));
return linear;
"""
LOG_MINOR_TICKS = """
const {start, end} = cb_data, ticks = [];
if (Math.log10(end / start) > 5) return ticks;
for (let e = Math.floor(Math.log10(start)); e <= Math.ceil(Math.log10(end)); e++)
    for (let m = 1; m <= 9; m++) { const t = m * 10 ** e; if (t >= start && t <= end) ticks.push(t); }
return ticks;
"""


def _figure(name: str, title: str, x_label: str, y_label: str, x_log=False, y_log=False, **kw):
    """A figure as wide as its place on the page (``width``: its width as a file, ``--figures``)."""
    fig = figure(name=name, title=title, width=kw.pop("width", 460), height=kw.pop("height", 400), tools=TOOLS,
                 sizing_mode="stretch_width", x_axis_type="log" if x_log else "linear",
                 y_axis_type="log" if y_log else "linear", **kw)
    fig.xaxis.axis_label, fig.yaxis.axis_label = x_label, y_label
    for log, axis in ((x_log, fig.xaxis), (y_log, fig.yaxis)):
        if log:
            axis.formatter = CustomJSTickFormatter(code=COMPACT_TICKS)
            axis.ticker = CustomJSTicker(major_code=LOG_TICKS, minor_code=LOG_MINOR_TICKS)
    fig.toolbar.logo = None
    return fig


def _thin(frame: pd.DataFrame) -> tuple[pd.DataFrame, str]:
    """At most MAX_POINTS rows (a seeded uniform sample) and the note to put on the figure."""
    limit = MAX_POINTS
    if len(frame) <= limit:
        return frame, ""
    sample = frame.sample(limit, random_state=0).sort_index()
    return sample, f" ({limit:,} of {len(frame):,} shown: a uniform random sample)"


def scatter(data: ReportData, config: str, base: str, value: str, name: str | None = None,
            changed: bool = False):
    """``value`` of ``config`` against ``base`` per instance, log-log, unsolved on the edge;
    with ``changed``, the points off the diagonal (a different value) stand out."""
    pairs, note = _thin(scatter_pairs(data, config, base, value))
    points, lo, edge = scatter_points(pairs, value, changed)
    x, y = points["x"].to_numpy(float), points["y"].to_numpy(float)
    label = value_label(data, value)
    fig = _figure(name or f"scatter-{value}-{config}", label, f"{base}", f"{config}",
                  x_log=True, y_log=True, x_range=(lo, edge * 1.6), y_range=(lo, edge * 1.6))
    # The title in lines a 460-pixel figure holds whole, read top down: the value, the
    # configuration, "vs" its baseline, the thinning note. Each Title added "above" sits
    # between the figure's own title and those added before it.
    if note:
        fig.add_layout(Title(text=note.strip(" ()"), text_font_style="italic", text_color="#a33"), "above")
    fig.add_layout(Title(text=f"vs {base}", text_font_style="normal"), "above")
    fig.add_layout(Title(text=config), "above")
    fig.line([lo, edge * 1.6], [lo, edge * 1.6], color="#888", line_dash="dashed")
    for where, failed in (("width", ~points["status"].eq("solved")), ("height", ~points["status_base"].eq("solved"))):
        if failed.any():  # the edge line only where a run did not solve
            fig.add_layout(Span(location=edge, dimension=where, line_color="#c33", line_dash="dotted"))
    tips = [("instance", "@instance"), (base, "@base_text"), (config, "@text"), ("points here", "$index{count}")]
    columns = dict(x=x, y=y, instance=points["instance"].to_numpy("int64"),
                   base_text=_side_text(points[f"{value}_base"], points["status_base"], value),
                   text=_side_text(points[value], points["status"], value))
    for state in KINDS:  # "not solved" kinds in red; each kind its own marker, told apart without colour
        mask = points["kind"].eq(state).to_numpy()
        if not mask.any() and state != "both solved":
            continue
        source = ColumnDataSource({k: v[mask] for k, v in columns.items()})
        dots = fig.scatter("x", "y", source=source, size=5 if SCATTER_MARKERS[state] != "circle" else 4, alpha=0.5,
                           color=SCATTER_COLOURS.get(state, "#d62728"), marker=SCATTER_MARKERS[state], name=state)
        fig.add_tools(HoverTool(renderers=[dots], tooltips=tips + [("", state)], limit=1,
                                formatters={"$index": CustomJSHover(code=POINTS_HERE)}))
    return fig


SCATTER_COLOURS = {"both solved": "#1f77b4", "both solved, changed": "#ff7f0e"}
SCATTER_MARKERS = {"both solved": "circle", "both solved, changed": "square", "not solved": "triangle",
                   "baseline not solved": "inverted_triangle", "neither solved": "x"}


def _side_text(values: pd.Series, statuses: pd.Series, value: str) -> np.ndarray:
    """A side's value as a tooltip says it: the number when it solved, else its status (an
    unsolved run has no value; the budget it stopped at is none)."""
    unit = "" if value == "nodes_generated" else " s"
    return np.array([(f"{v:,.0f}" if unit == "" else f"{v:.4g}{unit}") if s == "solved" else f"not solved ({s})"
                     for v, s in zip(values.to_numpy(float), statuses.astype(str))], dtype=object)


def by_length(data: ReportData):
    """Median and quartiles of nodes generated per optimal solution length, one line each.
    A run that stopped unsolved has no length: its configuration's legend entry counts them."""
    fig = _figure("by-length", "nodes generated by solution length (median, quartiles)", "solution length (moves)",
                  "nodes generated", y_log=True, width=940)
    fig.add_layout(Title(text="runs that did not solve have no length: not drawn, counted in the legend",
                         text_font_style="italic", text_font_size="11px"), "above")
    legend, series = [], length_series(data)
    for config, rows in data.rows.groupby("config", sort=False, observed=True):
        q = series[series["config"] == config]  # a length without a run is NaN: the line breaks there
        source = ColumnDataSource(dict(cost=q["cost"].to_numpy(float), n=q["n"].to_numpy(),
                                       q1=np.maximum(q["q1"].to_numpy(float), 1),
                                       median=np.maximum(q["median"].to_numpy(float), 1),
                                       q3=np.maximum(q["q3"].to_numpy(float), 1)))
        colour = colours(data)[config]
        band = fig.varea("cost", "q1", "q3", source=source, fill_color=colour, fill_alpha=0.15)
        line = fig.line("cost", "median", source=source, color=colour, line_width=2)
        dots = fig.scatter("cost", "median", source=source, color=colour, size=4)
        fig.add_tools(HoverTool(renderers=[dots], tooltips=[("configuration", config), ("length", "@cost"),
                                                           ("solved runs", "@n"), ("median nodes", "@median{0,0}")]))
        note = unsolved_note(rows)
        legend.append((f"{config} ({note})" if note else config, [line, band, dots]))
    fig.add_layout(Legend(items=legend, click_policy="hide"), "right")
    _counts_axis(fig, series)
    return fig


def _counts_axis(fig, series: pd.DataFrame) -> None:
    """The number of solved runs per length along the top (the most any configuration has;
    0 where no run has that length), as the static figure has it."""
    n = series.groupby("cost")["n"].max()
    if n.empty:
        return
    step = max(len(n) // 15, 1)
    ticks = [float(c) for c in n.index[::step]]
    fig.add_layout(LinearAxis(axis_label="solved runs per length (n)", ticker=FixedTicker(ticks=ticks),
                              major_label_overrides={t: f"{v:,}" for t, v in zip(ticks, n.to_numpy()[::step])}),
                   "above")


def coverage(data: ReportData, value: str):
    """Share of each configuration's instances solved within N nodes (or T seconds), log x."""
    label = value_label(data, value)
    fig = _figure(f"coverage-{value}", f"instances solved within a number of {label}", label, "share solved",
                  x_log=True, y_range=(0, 1.02), width=940)
    legend, curves = [], coverage_curves(data, value)
    for config in data.configs:  # a configuration that solved nothing keeps its (empty) line and legend entry
        curve = curves[curves["config"] == config]
        line = fig.step(curve["x"].to_numpy(), curve["share"].to_numpy(), mode="after", color=colours(data)[config],
                        line_width=2)
        legend.append((config, [line]))
    fig.add_layout(Legend(items=legend, click_policy="hide"), "right")  # outside: curves stay in view
    return fig


def ebf_distribution(data: ReportData):
    """Histogram (share of solved runs per bin) of the effective branching factor."""
    bins = ebf_histogram(data)
    fig = _figure("ebf", "effective branching factor (share of solved runs per bin)", "EBF", "share of runs", width=940)
    if bins.empty:
        return fig
    legend = []
    for config, rows in bins.groupby("config", sort=False):
        x = np.append(rows["left"].to_numpy(), rows["right"].iloc[-1])  # the last bin closed at its right edge
        y = np.append(rows["share"].to_numpy(), rows["share"].iloc[-1])
        line = fig.step(x, y, mode="after", color=colours(data)[config], line_width=2)
        legend.append((config, [line]))
    fig.add_layout(Legend(items=legend, click_policy="hide"), "right")
    return fig


def iterations_title(key: str) -> str:
    """The iterations plot's title, naming the instance it shows (SWEEP:INSTANCE)."""
    return f"IDA*: nodes generated per iteration: instance {key}"


def iterations(data: ReportData):
    """Nodes generated per IDA* iteration against its bound, for an instance chosen in a list."""
    logs = iteration_rows(data)
    keys = hardest_keys(logs)
    fig = _figure("iterations", iterations_title(keys[0] if keys else ""), "bound (f limit)",
                  "nodes generated in the iteration", y_log=True, width=940)
    select = Select(name="iteration-instance", title="instance (the hardest by nodes)", value=keys[0] if keys else "",
                    options=keys)
    shown_sources, all_sources, legend = [], [], []
    for config, rows in logs.groupby("config", sort=False):
        every = ColumnDataSource(dict(key=rows["key"].to_numpy(), bound=rows["bound"].to_numpy(float),
                                      nodes=rows["nodes"].to_numpy(float)))
        first = rows[rows["key"] == select.value]
        shown = ColumnDataSource(dict(bound=first["bound"].to_numpy(float), nodes=first["nodes"].to_numpy(float)))
        line = fig.line("bound", "nodes", source=shown, color=colours(data)[config], line_width=2)
        dots = fig.scatter("bound", "nodes", source=shown, color=colours(data)[config], size=6)
        legend.append((config, [line, dots]))
        shown_sources.append(shown)
        all_sources.append(every)
    if legend:
        fig.add_layout(Legend(items=legend, click_policy="hide"), "right")
    fig.add_tools(HoverTool(tooltips=[("bound", "@bound"), ("nodes", "@nodes{0,0}")]))
    select.js_on_change("value", CustomJS(args=dict(shown=shown_sources, every=all_sources, title=fig.title), code="""
        const key = cb_obj.value;
        title.text = `${title.text.split(": instance ")[0]}: instance ${key}`;
        for (let i = 0; i < shown.length; i++) {
            const d = every[i].data, bound = [], nodes = [];
            for (let j = 0; j < d.key.length; j++)
                if (d.key[j] === key) { bound.push(d.bound[j]); nodes.push(d.nodes[j]); }
            shown[i].data = {bound: bound, nodes: nodes};
        }"""))
    return column(select, fig, name="iterations-panel", sizing_mode="stretch_width"), bool(keys)
