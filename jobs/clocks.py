"""The two clocks a solve is timed by, and which one a figure of speed uses.

``seconds`` is wall time: a solve the operating system pauses (a busy machine) carries the
pause. ``cpu_seconds`` is the CPU time of the thread that searched, which other processes
do not add to: speed figures (summary's time, the report's time plots and tables, compare's
time ratio) use it unless ``--clock wall`` is asked for. Rows from before ``cpu_seconds``
have it null: they are left out of CPU figures, never counted as 0.
"""

from __future__ import annotations

from tilesweep.solver.errors import InvalidOptionError

COLUMNS = {"cpu": "cpu_seconds", "wall": "seconds"}
NAMES = {"cpu": "CPU", "wall": "wall"}
DEFAULT = "cpu"


def check_clock(clock: str) -> str:
    """``clock`` if it is ``cpu`` or ``wall``, else :class:`InvalidOptionError` naming it."""
    if clock not in COLUMNS:
        raise InvalidOptionError(f"clock {clock!r} is not known; expected cpu or wall")
    return clock


def seconds_label(clock: str) -> str:
    """``CPU seconds`` or ``wall seconds``: what a figure's time is."""
    return f"{NAMES[clock]} seconds"
