"""How each prediction method is named and drawn, wherever it is shown: the report's
prediction section (:mod:`.prediction_section`, bokeh), the static figures (:mod:`.figures`,
matplotlib) and the prediction table. One table, so a reader meets the same name, colour and
marker in the page, the paper's figure and its table.

Colours are Okabe & Ito's (2008) colour-blind-safe palette; each method also has its own
marker, so a greyscale print still tells them apart.
"""

from __future__ import annotations

from dataclasses import dataclass

import pandas as pd


@dataclass(frozen=True)
class MethodLook:
    """One method's name in legends and tables, its colour, and its marker in bokeh's and matplotlib's names."""

    label: str
    colour: str
    bokeh_marker: str
    mpl_marker: str


LOOKS = {
    "kre": MethodLook("KRE", "#D55E00", "triangle", "^"),
    "cdp": MethodLook("CDP", "#0072B2", "circle", "o"),
    "cdp2": MethodLook("CDP, two steps", "#009E73", "square", "s"),
    "cdp-eps": MethodLook("CDP, epsilon-truncated", "#CC79A7", "diamond", "D"),
    "measured": MethodLook("measured", "#888888", "dash", "_"),  # the diagonal where predicted = measured
}
DIAGONAL_LABEL = f"predicted = {LOOKS['measured'].label}"


def look(method: str) -> MethodLook:
    """``method``'s look; a method not in :data:`LOOKS` is named by its key, in black."""
    return LOOKS.get(method, MethodLook(method, "#000000", "circle", "o"))


def label(method: str) -> str:
    return look(method).label


def ratio_text(value) -> str:
    """A ratio predicted / measured to three significant digits, trailing zeros kept so a
    column lines up (2.00, 0.467, 18.4, 312); whole above 1,000 (12,345); ``–`` when missing."""
    if value is None or pd.isna(value):
        return "–"
    if abs(value) >= 999.5:  # where three digits would turn to 1.00e+03
        return f"{value:,.0f}"
    return f"{value:#.3g}".rstrip(".")
