"""Progress on stderr: a redrawn line on a terminal, else a line per tenth of the work."""

from __future__ import annotations

import sys

import typer


def clock(seconds: float | None) -> str:
    """``M:SS``, or ``--:--`` for None."""
    return "--:--" if seconds is None else f"{int(seconds) // 60}:{int(seconds) % 60:02d}"


ETA_FROM = 0.1  # a pattern database's ETA is shown once this share of its entries is filled


class BuildProgressLine:
    """A pattern-database build's progress on stderr: depth, entries filled, rate, ETA
    (a redrawn line on a terminal, else a line per tenth of the entries)."""

    def __init__(self):
        self.tty, self.last_decile = sys.stderr.isatty(), -1

    def __call__(self, p) -> None:
        frac = p.filled / p.entries
        rate = p.filled / p.seconds if p.seconds > 0 else 0.0
        # The first layers fill a few entries each: an ETA from them was thousands of times
        # too long (6,723 min for a 20 s table).
        eta = p.remaining_seconds() if frac >= ETA_FROM else None
        line = (f"tiles {','.join(map(str, p.group))}: depth {p.depth}  {p.filled:,}/{p.entries:,} "
                f"entries ({100 * frac:.0f} %)  {rate:,.0f}/s  ETA {clock(eta)}")
        if self.tty:
            typer.echo("\r" + line + "\033[K", err=True, nl=False)
        elif int(frac * 10) != self.last_decile:
            self.last_decile = int(frac * 10)
            typer.echo(line, err=True)

    def done(self) -> None:
        """End the redrawn line, ready for the next table."""
        if self.tty:
            typer.echo("", err=True)
        self.last_decile = -1


#: What the progress says of kernels: numba compiling them (the first run on a machine, or
#: after an upgrade), a process waiting while another compiles them, and how long it took.
KERNEL_NOTICES = {"compiling": "compiling kernels (first run only)…",
                  "waiting": "waiting for another process compiling the kernels…",
                  "compiled": "kernels compiled in {seconds:.1f} s"}


class ProgressBar:
    """A progress line on stderr: chunks, solves, rate and ETA (redrawn on a terminal).

    Rate and ETA come from the measured pace of the tasks (:class:`~tilesweep.cluster.run.Progress`);
    what the kernels do (:meth:`kernels`) is said on lines of its own.
    """

    def __init__(self, width: int = 30):
        self.width, self.tty, self.last_decile = width, sys.stderr.isatty(), -1

    def __call__(self, p) -> None:
        frac = p.solves_done / p.solves_total if p.solves_total else 1.0
        bar = "#" * int(frac * self.width) + "-" * (self.width - int(frac * self.width))
        rate = "--" if p.rate is None else f"{p.rate:,.0f}"
        line = (f"[{bar}] {p.chunks_done}/{p.chunks_total} chunks  {p.solves_done:,}/{p.solves_total:,} "
                f"solves  {rate}/s  ETA {clock(p.eta)}")
        if self.tty:
            typer.echo("\r" + line, err=True, nl=p.chunks_done == p.chunks_total)
        elif int(frac * 10) != self.last_decile or p.chunks_done == p.chunks_total:
            self.last_decile = int(frac * 10)
            typer.echo(line, err=True)

    def kernels(self, event: dict) -> None:
        """Say what a worker's kernels do (an event of :data:`~tilesweep.cluster.plugin.KERNELS_TOPIC`)."""
        text = KERNEL_NOTICES.get(event.get("state"))
        if text is not None:
            typer.echo(("\r\033[K" if self.tty else "") + text.format(seconds=event.get("seconds", 0.0)), err=True)
