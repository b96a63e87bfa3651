"""Predicted against measured IDA* iterations as a figure (matplotlib, the conventions of
:mod:`.figures`: Okabe & Ito's palette, a marker per method, log axes with compact ticks,
the legend below the plot, written through the package's atomic writer)."""

from __future__ import annotations

from pathlib import Path

import numpy as np
from matplotlib.figure import Figure

from tilesweep.pdb_store.files import atomic_write

from .figures import PNG_DPI, _legend, _log_ticks, look

LABELS = {"kre": "KRE", "cdp": "CDP", "cdp2": "CDP, two steps"}


def prediction_figure(frame, methods, title: str, width: float = 4.5) -> Figure:
    """Each completed iteration of ``frame`` (:func:`jobs.predict.measured_iterations`) as a
    point (measured, predicted) per method, and the diagonal where they are equal."""
    fig = Figure(figsize=(width, width * 1.05), layout="constrained")
    ax = fig.add_subplot()
    measured = frame["measured"].to_numpy(dtype=float)
    for i, method in enumerate(methods):
        style = look(i)
        ax.scatter(measured, frame[method].to_numpy(dtype=float), s=9, alpha=0.5, color=style["color"],
                   marker=style["marker"], label=LABELS.get(method, method), linewidths=0)
    values = np.concatenate([measured] + [frame[m].to_numpy(dtype=float) for m in methods])
    lo, hi = max(values[values > 0].min(), 1.0), values.max()
    ax.plot([lo, hi], [lo, hi], color="#000000", linewidth=0.8, label="predicted = measured")
    ax.set_xscale("log")
    ax.set_yscale("log")
    _log_ticks(ax.xaxis)
    _log_ticks(ax.yaxis)
    ax.set_xlabel("nodes generated in the iteration, measured")
    ax.set_ylabel("nodes generated, predicted")
    ax.set_title(title, fontsize="medium")
    _legend(fig, ax)
    return fig


def write_prediction_figure(fig: Figure, path: str | Path) -> Path:
    """Write ``fig`` to ``path`` (its suffix the format: png, pdf or svg)."""
    path = Path(path)
    fmt = path.suffix.lstrip(".") or "png"
    atomic_write(path, lambda handle: fig.savefig(handle, format=fmt, dpi=PNG_DPI))
    return path
