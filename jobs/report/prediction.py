"""``tilesweep predict --plot``: predicted against measured IDA* iterations as one file, the
figure ``tilesweep figures`` draws per IDA* configuration (:func:`.figures.predicted`)."""

from __future__ import annotations

from pathlib import Path

import matplotlib

from tilesweep.pdb_store.files import atomic_write

from .figures import PNG_DPI, Style, predicted

PLOT_WIDTH = 4.5  # inches: a figure on its own, wider than a paper's column


def write_prediction_figure(found, path: str | Path) -> Path:
    """Write :func:`.figures.predicted` of ``found`` (a
    :class:`~tilesweep.jobs.predict.SweepComparison`) to ``path``, its suffix the format
    (png, pdf or svg)."""
    path = Path(path)
    fmt = path.suffix.lstrip(".") or "png"
    style = Style("paper", PLOT_WIDTH)
    with matplotlib.rc_context(style.rc):
        fig = predicted(found, f"idastar {found.heuristic}", style)
        atomic_write(path, lambda handle: fig.savefig(handle, format=fmt, dpi=PNG_DPI))
    return path
