"""``tilesweep figures``: the report's figures as static files a paper can print (matplotlib).

PDF, SVG and PNG need nothing more; PGF (text typeset by the paper's own LaTeX, ``\\input``
in a ``figure``) needs ``pdflatex``, which matplotlib runs to measure the text.

Each figure is complete in itself: axis labels with units, the legend inside the axes, one
colour (Okabe & Ito's colour-blind-safe palette), marker and line style per configuration,
so a greyscale print still tells them apart. The data come from :mod:`.plotted`, the same
tables the bokeh page draws, and the predictions from the page's comparison
(:mod:`.prediction_section`, through :mod:`..predict`). Files are written through the
package's atomic writer.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

import numpy as np
from matplotlib.figure import Figure
from matplotlib.patches import Rectangle
from matplotlib.ticker import MaxNLocator

from tilesweep.pdb_store.files import atomic_write
from tilesweep.solver.errors import InvalidOptionError, TilesweepError

from ..paired import paired_ratio
from .data import ReportData
from .layers import layer_shares
from .log_axes import log_ticks
from .method_looks import DIAGONAL_LABEL, look as method_look, ratio_text
from .plotted import (
    EBF_WHISKERS,
    baseline_of,
    before_after,
    coverage_curves,
    ebf_summary,
    hardest_keys,
    iteration_rows,
    length_series,
    ratio_ecdf,
    ratio_points,
    scatter_pairs,
    scatter_points,
    unsolved_notes,
    value_label,
)
from .prediction_section import Predictions, predictions

FORMATS = ("pdf", "svg", "png", "pgf")
STYLES = ("paper", "slides")
PNG_DPI = 300  # a 3.3-inch figure at 300 dpi: about 1,000 pixels wide, 2x and more of a screen figure
LEGEND_COLUMNS = 2
NAMED_INSTANCES = 3  # the IDA* iterations of the hardest few instances, one figure each
# Okabe & Ito (2008), "Color Universal Design": told apart under every common colour-vision deficiency
PALETTE = ("#0072B2", "#E69F00", "#009E73", "#D55E00", "#CC79A7", "#56B4E9", "#000000", "#F0E442")
MARKERS = ("o", "s", "^", "D", "v", "P", "X", "*", "<", ">")
LINESTYLES = ("-", "--", ":", "-.", (0, (5, 1)), (0, (3, 1, 1, 1, 1, 1)))


WIDTHS = {"paper": 3.4, "slides": 8.0}  # inches: one column of a two-column paper; a 16:9 slide's body
MAX_WIDTH = 20.0


def parse_width(text: str) -> float:
    """A figure width in inches (``3.4``) or points (``246pt``), between 1 and 20 inches."""
    try:
        inches = float(text[:-2]) / 72 if text.endswith("pt") else float(text)
    except ValueError:
        inches = float("nan")
    if not 1 <= inches <= MAX_WIDTH:
        raise InvalidOptionError(f"width {text!r} is not a figure width; expected inches from 1 to {MAX_WIDTH:g} "
                                 "(e.g. 3.4) or points (e.g. 246pt)")
    return inches


@dataclass(frozen=True)
class Style:
    """A figure size and type scale: ``paper`` for a journal column, ``slides`` for a projector."""

    name: str = "paper"
    width: float | None = None  # inches; None: the style's own (WIDTHS)

    def __post_init__(self):
        if self.width is None:
            object.__setattr__(self, "width", WIDTHS[self.name])

    @property
    def rc(self) -> dict:
        size = 8 if self.name == "paper" else 14
        return {"font.size": size, "axes.labelsize": size, "legend.fontsize": size - 1.5,
                "xtick.labelsize": size - 1, "ytick.labelsize": size - 1, "lines.linewidth": 1.2 if size < 10 else 2,
                "lines.markersize": 3.5 if size < 10 else 6,
                "pdf.fonttype": 42,  # TrueType: the fonts embed and the text stays selectable
                "svg.fonttype": "none", "axes.grid": True, "grid.alpha": 0.3, "legend.framealpha": 0.85,
                "pgf.texsystem": "pdflatex", "pgf.rcfonts": False}  # PGF: the paper's own fonts

    def figure(self, square: bool = False, legend_rows: int = 0) -> Figure:
        """A figure ``width`` inches wide, its plot square (a scatter: 45 degrees on its
        diagonal) or 3:2, with room below for ``legend_rows`` lines of legend."""
        height = (self.width if square else self.width / 1.5) + legend_rows * self.rc["legend.fontsize"] * 1.6 / 72
        return Figure(figsize=(self.width, height), layout="constrained")

    def legend_rows(self, labels: list[str]) -> int:
        return -(-len(labels) // legend_columns(labels))


def legend_columns(labels: list[str]) -> int:
    """Two columns of short labels, one of long ones (a column holds about 30 characters)."""
    return 1 if max(map(len, labels), default=0) > 30 else min(LEGEND_COLUMNS, len(labels))


def look(index: int) -> dict:
    """Colour, marker and line style of the ``index``-th configuration (all three differ between neighbours)."""
    return {"color": PALETTE[index % len(PALETTE)], "marker": MARKERS[index % len(MARKERS)],
            "linestyle": LINESTYLES[index % len(LINESTYLES)]}


def _legend(fig: Figure, ax) -> None:
    """The legend below the plot, inside the file: it hides no data however many configurations."""
    handles, labels = ax.get_legend_handles_labels()
    fig.legend(handles, labels, loc="outside lower center", ncols=legend_columns(labels))


def coverage(data: ReportData, value: str, style: Style) -> Figure:
    """Share of each configuration's runs solved within a number of nodes (or seconds), log x."""
    fig = style.figure(legend_rows=style.legend_rows(data.configs))
    ax = fig.add_subplot()
    curves = coverage_curves(data, value)
    for i, config in enumerate(data.configs):
        curve = curves[curves["config"] == config]
        ax.step(curve["x"], curve["share"], where="post", label=config, markevery=max(len(curve) // 6, 1),
                **look(i))
    ax.set_xscale("log")
    log_ticks(ax.xaxis)
    ax.set_ylim(0, 1.02)
    ax.set(xlabel=value_label(data, value), ylabel="share of runs solved")
    _legend(fig, ax)
    return fig


# how each kind of scatter point is drawn: marker, colour, filled
POINT_KINDS = {"both solved": ("o", PALETTE[0], False), "both solved, changed": ("s", PALETTE[4], True),
               "not solved": ("^", PALETTE[3], True), "baseline not solved": (">", PALETTE[1], True),
               "neither solved": ("X", PALETTE[6], True)}


def scatter(data: ReportData, config: str, base: str, value: str, style: Style, changed: bool = False) -> Figure:
    """``value`` of ``config`` (y) against ``base`` (x) per instance: square log-log with the
    diagonal; runs that did not solve in a labelled band beyond every solved value; with
    ``changed``, the instances whose value differs (a before/after pair) drawn apart."""
    points, lo, edge = scatter_points(scatter_pairs(data, config, base, value), value, changed)
    fig = style.figure(square=True, legend_rows=5)  # the diagonal, the band, up to 3 kinds of point
    ax = fig.add_subplot()
    top = edge * 2.5
    ax.plot([lo, top], [lo, top], color="0.5", linestyle="--", linewidth=0.8, marker="", label="equal")
    band = {"color": "0.85", "zorder": 0, "linewidth": 0}
    failed_y = points["kind"].isin(["not solved", "neither solved"]).any()
    failed_x = points["kind"].isin(["baseline not solved", "neither solved"]).any()
    if failed_y:
        ax.axhspan(edge / 1.6, top, **band)
    if failed_x:
        ax.axvspan(edge / 1.6, top, **band)
    if failed_x or failed_y:  # the band is named in the legend, where no point can hide the words
        ax.add_patch(Rectangle((0, 0), 0, 0, color=band["color"], label="not solved: no value, drawn in the band"))
    for kind, (marker, colour, filled) in POINT_KINDS.items():
        mine = points[points["kind"] == kind]
        if len(mine):
            ax.scatter(mine["x"], mine["y"], s=12, marker=marker, facecolors=colour if filled else "none",
                       edgecolors=colour, linewidths=0.7, label=f"{kind} ({len(mine):,})")
    ax.set(xscale="log", yscale="log", xlim=(lo, top), ylim=(lo, top), aspect="equal")
    log_ticks(ax.xaxis)
    log_ticks(ax.yaxis)
    label = value_label(data, value)
    ax.set(xlabel=f"{base}: {label}", ylabel=f"{config}: {label}")
    _legend(fig, ax)
    return fig


def ratio_scatter(data: ReportData, config: str, base: str, value: str, style: Style,
                  quotient: str | None = None) -> Figure:
    """Per instance both solved: the ratio of ``config``'s ``value`` to ``base``'s (y) against
    ``base``'s (x), log-log; the line of equal values and the geometric mean with its 95 %
    interval (:func:`~tilesweep.jobs.paired.paired_ratio`). ``quotient`` names the ratio on
    the y axis (default ``config / base``)."""
    points = ratio_points(data, config, base, value)
    fig = style.figure(square=True, legend_rows=4)  # room for the quotient's name along y
    ax = fig.add_subplot()
    ax.axhline(1, color="0.5", linestyle="--", linewidth=0.8, label="equal")
    if len(points):
        mean = paired_ratio(points["ratio"].to_numpy() * points["x"].to_numpy(), points["x"].to_numpy())
        if np.isfinite(mean["ratio_low"]):
            ax.axhspan(mean["ratio_low"], mean["ratio_high"], color=PALETTE[3], alpha=0.2, linewidth=0,
                       label=f"95% interval {mean['ratio_low']:.3g}-{mean['ratio_high']:.3g}")
        ax.axhline(mean["ratio"], color=PALETTE[3], linestyle="-", linewidth=1.0,
                   label=f"geometric mean {mean['ratio']:.3g}")
    ax.scatter(points["x"], points["ratio"], s=10, marker="o", facecolors="none", edgecolors=PALETTE[0],
               linewidths=0.6, label=f"instances both solved ({len(points):,})")
    ax.set(xscale="log", yscale="log")
    log_ticks(ax.xaxis)
    log_ticks(ax.yaxis)
    label = value_label(data, value)
    ax.set(xlabel=f"{base}: {label}", ylabel=f"{quotient or f'{config} / {base}'}\n(ratio of {label})")
    _legend(fig, ax)
    return fig


def ratio_distribution(data: ReportData, config: str, base: str, style: Style) -> Figure:
    """ECDF of the per-instance node ratio ``config`` / ``base`` over the instances both solved."""
    curve = ratio_ecdf(data, config, base)
    fig = style.figure(legend_rows=1)
    ax = fig.add_subplot()
    ax.step(curve["ratio"], curve["share"], where="post", markevery=max(len(curve) // 8, 1),
            label=f"{config} / {base} (n = {len(curve):,})", **look(0))
    ax.axvline(1, color="0.5", linestyle="--", linewidth=0.8)
    ax.set_xscale("log")
    log_ticks(ax.xaxis)
    ax.set(xlabel="nodes generated, ratio to the baseline", ylabel="share of instances both solved", ylim=(0, 1.02))
    _legend(fig, ax)
    return fig


def by_length(data: ReportData, style: Style) -> Figure:
    """Median nodes generated per optimal solution length, quartiles as a band, and below it
    the number of solved runs (n) behind each point; no line across a length without a
    solved run; the runs that did not solve (no length) counted in the legend."""
    series = length_series(data)
    notes = unsolved_notes(data)
    labels = [config + (f" ({notes[config]} not drawn)" if notes.get(config) else "") for config in data.configs]
    fig = style.figure(legend_rows=style.legend_rows(labels))
    fig.set_figheight(fig.get_figheight() + style.width / 5)  # room for the panel of counts
    grid = fig.add_gridspec(2, 1, height_ratios=(3, 1))
    ax = fig.add_subplot(grid[0])
    counts = fig.add_subplot(grid[1], sharex=ax)
    for i, (config, label) in enumerate(zip(data.configs, labels)):
        q = series[series["config"] == config]
        ax.fill_between(q["cost"], q["q1"], q["q3"], color=look(i)["color"], alpha=0.15, linewidth=0)
        ax.plot(q["cost"], q["median"], label=label, **look(i))
        counts.plot(q["cost"], q["n"], **look(i))
    ax.set_yscale("log")
    log_ticks(ax.yaxis)
    ax.set(ylabel="nodes generated\n(median, quartiles)")
    ax.tick_params(labelbottom=False)
    counts.set(xlabel="optimal solution length (moves)", ylabel="solved\nruns (n)")
    counts.set_ylim(0, max(series["n"].max(), 1) * 1.2)  # the highest count's marker whole
    counts.xaxis.set_major_locator(MaxNLocator(6, integer=True))  # lengths are whole moves
    counts.yaxis.set_major_locator(MaxNLocator(3, integer=True))
    _legend(fig, ax)
    return fig


def ebf(data: ReportData, style: Style) -> Figure:
    """The effective branching factor of each configuration's solved runs: a box (quartiles,
    median) and whiskers (:data:`EBF_WHISKERS` percentiles) per configuration, named on its
    row, so any number of them stay apart in any print."""
    rows = ebf_summary(data)
    fig = Figure(figsize=(style.width, max(style.width / 1.5, 0.8 + 0.36 * len(rows))), layout="constrained")
    ax = fig.add_subplot()
    drawn = rows[rows["n"] > 0]
    stats = [{"label": f"{r.config} (n = {r.n:,})", "whislo": r.low, "q1": r.q1, "med": r.median, "q3": r.q3,
              "whishi": r.high, "fliers": []} for r in drawn.itertuples()]
    if stats:
        ax.bxp(stats[::-1], orientation="horizontal", showfliers=False, widths=0.4, patch_artist=True,
               boxprops={"facecolor": PALETTE[5], "edgecolor": "black", "linewidth": 0.7},
               medianprops={"color": "black", "linewidth": 1.4}, whiskerprops={"linewidth": 0.7},
               capprops={"linewidth": 0.7})
    names = ax.get_yaxis_transform()  # x in axes fractions, y in data: each name above its box, full width
    for y, entry in enumerate(stats[::-1], start=1):
        ax.text(0.01, y + 0.24, entry["label"], transform=names, fontsize="small", va="bottom", ha="left")
    ax.set_ylim(0.5, len(stats) + 0.8)
    ax.set_yticks([])
    ax.grid(axis="y", visible=False)
    low, high = EBF_WHISKERS
    ax.set(xlabel="effective branching factor of the solved runs")
    fig.supxlabel(f"box: quartiles and median; whiskers: {low}th to {high}th percentile", fontsize="small")
    return fig


def iterations(data: ReportData, logs, key: str, style: Style) -> Figure:
    """Nodes generated per IDA* iteration against its bound, for the instance ``key``."""
    return _log_lines(data, logs[logs["key"] == key], "bound", "nodes", style,
                      f"f bound of the iteration (moves), instance {key}", "nodes generated in the iteration")


def layers(data: ReportData, style: Style) -> Figure:
    """Where IDA*'s nodes go: each configuration's share of nodes per f-layer (:mod:`.layers`), log y."""
    return _log_lines(data, layer_shares(data), "layer", "share", style,
                      "f bound − optimal cost (0: last iteration)", "share of the nodes generated")


def predicted(found, label: str, style: Style) -> Figure:
    """KRE's and CDP's nodes against the measured ones, one point per completed IDA* iteration
    of one configuration (``found``: a :class:`~tilesweep.jobs.predict.SweepComparison`),
    square log-log with the diagonal; each method's sum ratio in the legend, its name,
    colour and marker from :mod:`.method_looks` (as the page's)."""
    frame = found.iterations
    names = [DIAGONAL_LABEL] + [f"{method_look(a.method).label} (sum ratio {ratio_text(a.aggregate)})"
                                for a in found.agreements]
    fig = style.figure(square=True, legend_rows=style.legend_rows(names))
    ax = fig.add_subplot()
    measured = frame["measured"].to_numpy(float)
    values = np.concatenate([measured] + [frame[a.method].to_numpy(float) for a in found.agreements])
    lo, hi = max(values[values > 0].min(), 1.0) / 1.5, values.max() * 1.5
    ax.plot([lo, hi], [lo, hi], color=method_look("measured").colour, linestyle="--", linewidth=0.8, marker="",
            label=names[0])
    for a, name in zip(found.agreements, names[1:]):
        shown = method_look(a.method)
        ax.scatter(measured, frame[a.method].to_numpy(float), s=9, marker=shown.mpl_marker, facecolors="none",
                   edgecolors=shown.colour, linewidths=0.6, alpha=0.7, label=name)
    ax.set(xscale="log", yscale="log", xlim=(lo, hi), ylim=(lo, hi), aspect="equal")
    log_ticks(ax.xaxis)
    log_ticks(ax.yaxis)
    ax.set(xlabel=f"{label}: measured\n(nodes generated per completed iteration)", ylabel="predicted nodes generated")
    _legend(fig, ax)
    return fig


def predicted_figures(data: ReportData, style: Style, store=None, on_skip=None,
                      predicted_here: Predictions | None = None) -> dict[str, Figure]:
    """:func:`predicted` of each IDA* configuration that can be predicted here: ``predicted_here``
    when the report computed them already, else the report's comparison
    (:func:`.prediction_section.predictions`: at most its sample of instances, tables and
    sampled distributions read from ``store``, never built); ``on_skip(line)`` hears why each
    other one is not drawn."""
    found = predictions(data, store) if predicted_here is None else predicted_here
    for line in found.skipped if on_skip else ():
        on_skip(line)
    return {f"predicted-vs-measured-{label}": predicted(compared, label, style) for label, compared in found.done}


def _log_lines(data: ReportData, frame, x: str, y: str, style: Style, xlabel: str, ylabel: str) -> Figure:
    """One line of ``frame``'s ``y`` against ``x`` per configuration that has rows, log y."""
    fig = style.figure(legend_rows=style.legend_rows(data.configs))
    ax = fig.add_subplot()
    for i, config in enumerate(data.configs):
        rows = frame[frame["config"] == config]
        if len(rows):
            ax.plot(rows[x], rows[y], label=config, **look(i))
    ax.set_yscale("log")
    log_ticks(ax.yaxis)
    ax.xaxis.set_major_locator(MaxNLocator(6, integer=True))  # bounds and layers are whole moves
    ax.set(xlabel=xlabel, ylabel=ylabel)
    _legend(fig, ax)
    return fig


VALUES = ("nodes_generated", "seconds")


def build_figures(data: ReportData, style: Style, compare: bool = False, store=None,
                  on_skip=None, predicted_here: Predictions | None = None) -> dict[str, Figure]:
    """Every figure by file name (without extension); with ``compare`` (two sweeps, OLD NEW),
    the before/after figures of each configuration both ran too. ``store``: where the
    predictions read pattern databases and distributions (default ``$TILESWEEP_STORE`` or the
    per-user cache); ``on_skip(line)``: why an IDA* configuration has no prediction figure;
    ``predicted_here``: the predictions when already computed (the report's)."""
    figures = {f"coverage-{v}": coverage(data, v, style) for v in VALUES}
    for config in data.configs:
        base = baseline_of(data, config)
        if base is None:
            continue
        for value in VALUES:
            figures[f"scatter-{value}-{config}"] = scatter(data, config, base, value, style)
            figures[f"ratio-{value}-{config}"] = ratio_scatter(data, config, base, value, style)
        figures[f"ratio-ecdf-{config}"] = ratio_distribution(data, config, base, style)
    figures["by-length"] = by_length(data, style)
    figures["ebf"] = ebf(data, style)
    logs = iteration_rows(data)
    for key in hardest_keys(logs)[:NAMED_INSTANCES]:
        figures[f"iterations-{key}"] = iterations(data, logs, key, style)
    if (data.rows["algorithm"] == "idastar").any():
        figures["f-layers"] = layers(data, style)
        figures |= predicted_figures(data, style, store, on_skip, predicted_here)
    return figures | (before_after_figures(data, style) if compare else {})


def before_after_figures(data: ReportData, style: Style) -> dict[str, Figure]:
    """Per configuration both sweeps ran: new against old per instance (nodes, the changed
    ones drawn apart; seconds) and the time ratio new / old against the old time."""
    if len(data.sweeps) != 2:
        raise InvalidOptionError(f"--compare needs exactly two sweeps (OLD NEW); got {len(data.sweeps)}")
    old, new = (s.name for s in data.sweeps)
    figures = {}
    for before, after in before_after(data, old, new):
        name = after.split(": ", 1)[-1]
        for value in VALUES:
            figures[f"before-after-{value}-{name}"] = scatter(data, after, before, value, style,
                                                              changed=value == "nodes_generated")
        figures[f"before-after-ratio-seconds-{name}"] = ratio_scatter(data, after, before, "seconds", style,
                                                                      quotient=f"{new} / {old}: {name}")
    return figures


class TexUnavailableError(TilesweepError):
    """PGF output asked for without a LaTeX to measure its text."""


def check_format(fmt: str) -> None:
    """PGF needs pdflatex on PATH (matplotlib typesets each label to measure it)."""
    import shutil

    if fmt == "pgf" and not shutil.which("pdflatex"):
        raise TexUnavailableError("format 'pgf' needs pdflatex (Debian: apt-get install --no-install-recommends "
                                  "texlive-latex-base texlive-latex-recommended); pdf, svg and png need nothing more")


def write_figures(data: ReportData, folder: str | Path, fmt: str = "pdf", style: Style = Style(),
                  compare: bool = False, store=None, on_skip=None, predicted_here: Predictions | None = None
                  ) -> list[Path]:
    """Write every figure of ``data`` into ``folder`` as ``NAME.FMT`` (with ``compare``, the
    before/after figures too; ``store``, ``on_skip``, ``predicted_here``: :func:`build_figures`'s);
    return the paths."""
    import matplotlib

    check_format(fmt)
    folder = Path(folder)
    written = []
    with matplotlib.rc_context(style.rc):
        # bad input refused before the folder is made
        figures = build_figures(data, style, compare, store, on_skip, predicted_here)
        folder.mkdir(parents=True, exist_ok=True)
        for name, fig in figures.items():
            path = folder / f"{file_name(name)}.{fmt}"
            atomic_write(path, lambda handle, fig=fig: fig.savefig(handle, format=fmt, dpi=PNG_DPI, **_metadata(fmt)))
            written.append(path)
    return written


def _metadata(fmt: str) -> dict:
    """No creation date in a PDF or SVG, so the same sweep gives the same file (PGF has no metadata)."""
    dates = {"pdf": {"CreationDate": None}, "svg": {"Date": None}, "png": None}
    return {"metadata": dates[fmt]} if fmt in dates else {}


def file_name(name: str) -> str:
    return "".join(c if c.isalnum() or c in "-_." else "_" for c in name)
