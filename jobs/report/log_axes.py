"""Log axes of the static figures: ticks at round values whose labels keep apart, labelled
in a few characters (as the page's log axes)."""

from __future__ import annotations

import numpy as np
from matplotlib.ticker import FuncFormatter, Locator, LogLocator, MaxNLocator, NullFormatter

# The unit letters of compact labels, largest first; the page's tick formatter reads the same
UNITS = ((1e15, "P"), (1e12, "T"), (1e9, "G"), (1e6, "M"), (1e3, "k"))


def compact(value: float, _position=None) -> str:
    """A tick label in a few characters: 1T, 1M, 300k, 45, 0.005, 1e-5 (as the page's log axes)."""
    if value == 0:
        return "0"
    for scale, unit in UNITS:
        if abs(value) >= scale:
            return f"{value / scale:.3g}{unit}"
    # three digits below 1e-3 too: the linear ticks of a narrow axis (4.5e-5, 5e-5) stay apart
    return f"{value:.3g}".replace("e-0", "e-")


class RoundLogLocator(Locator):
    """Log-axis ticks at round multiples of each power of ten, fewer the wider the range (as
    the page's, for a narrower axis): powers of ten alone over 1.5 decades, 1-2-5 over 0.6,
    every multiple below 0.3; at least two ticks, linear ones when even that is too few. On a
    drawn x axis the first set whose neighbouring labels keep apart is taken, coarser sets
    before finer ones, else the least crowded (a narrow range of seconds, 4e-5 to 7e-5, gave
    labels that touched on a 3.4-inch scatter)."""

    def __call__(self):
        return self.tick_values(*self.axis.get_view_interval())

    def tick_values(self, vmin, vmax):
        vmin, vmax = sorted((max(vmin, 1e-300), max(vmax, 1e-300)))
        candidates = [(ticks, self._room(ticks, vmin, vmax)) for ticks in self._candidates(vmin, vmax)]
        if not candidates:  # a range too narrow for two ticks inside it
            return MaxNLocator(4).tick_values(vmin, vmax)
        fitting = [ticks for ticks, room in candidates if room >= 0]
        return fitting[0] if fitting else max(candidates, key=lambda c: c[1])[0]

    @staticmethod
    def _candidates(vmin, vmax):
        """Tick sets of at least two ticks: the range's own choice, then coarser, then finer
        round sets, then every second or fourth power of ten, then linear ticks."""
        span = np.log10(vmax / vmin)
        # a 3.4-inch axis holds labels a third of a decade apart over 1.5 decades at most (0.005 0.01 0.02
        # ran together over 2.3 decades of seconds on Korf's 100)
        mantissa_sets = ([1], [1, 3], [1, 2, 5], [1, 2, 3, 5], range(1, 10))
        first = 0 if span > 1.5 else 2 if span > 0.6 else 3 if span > 0.3 else 4
        order = list(range(first, -1, -1)) + list(range(first + 1, len(mantissa_sets)))
        powers = range(int(np.floor(np.log10(vmin))), int(np.ceil(np.log10(vmax))) + 1)
        step = int(np.ceil(span / 8)) if span > 1.5 else 1
        choices = [(mantissa_sets[i], step) for i in order] + [([1], step * 2), ([1], step * 4)]
        sets = [np.array([m * 10.0 ** e for e in powers if e % s == 0 for m in mantissas]) for mantissas, s in choices]
        sets += [MaxNLocator(bins).tick_values(vmin, vmax) for bins in (4, 3, 2)]
        for ticks in sets:
            ticks = ticks[(ticks >= vmin) & (ticks <= vmax)]
            if len(ticks) >= 2:
                yield ticks

    def _room(self, ticks, vmin, vmax) -> float:
        """The narrowest gap in points between neighbouring x labels (negative: they run
        together), a character taken as half the type size wide, a label centred on its tick,
        a space kept between; a y axis stacks its labels, which always fit."""
        axis = self.axis
        if axis is None or axis.axis_name != "x":
            return 0.0
        length = axis.axes.bbox.width * 72 / axis.figure.dpi  # points
        size = axis.get_major_ticks(1)[0].label1.get_fontsize()
        at = np.log10(ticks / vmin) / np.log10(vmax / vmin) * length
        chars = np.array([len(compact(t)) for t in ticks])
        return float(np.min(np.diff(at) - 0.5 * size * (chars[:-1] + chars[1:]) - size / 2))


def log_ticks(axis) -> None:
    """Major ticks at round values, labelled compactly; minor at 2..9 times powers of ten, unlabelled."""
    axis.set_major_locator(RoundLogLocator())
    axis.set_minor_locator(LogLocator(base=10, subs=np.arange(2, 10) * 0.1, numticks=12))
    axis.set_major_formatter(FuncFormatter(compact))
    axis.set_minor_formatter(NullFormatter())
