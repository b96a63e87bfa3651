"""Progress on stderr: a redrawn line on a terminal, else a line per tenth of the work."""

from __future__ import annotations

import sys

import typer


class BuildProgressLine:
    """A pattern-database build's progress on stderr: depth, entries filled, rate, ETA
    (a redrawn line on a terminal, else a line per tenth of the entries)."""

    def __init__(self):
        self.tty, self.last_decile = sys.stderr.isatty(), -1

    def __call__(self, p) -> None:
        frac = p.filled / p.entries
        rate = p.filled / p.seconds if p.seconds > 0 else 0.0
        eta = (p.entries - p.filled) / rate if rate > 0 else 0.0
        line = (f"tiles {','.join(map(str, p.group))}: depth {p.depth}  {p.filled:,}/{p.entries:,} "
                f"entries ({100 * frac:.0f} %)  {rate:,.0f}/s  ETA {int(eta) // 60}:{int(eta) % 60:02d}")
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


class ProgressBar:
    """A progress line on stderr: chunks, solves, rate and ETA (redrawn on a terminal)."""

    def __init__(self, width: int = 30):
        self.width, self.tty, self.last_decile = width, sys.stderr.isatty(), -1

    def __call__(self, p) -> None:
        frac = p.solves_done / p.solves_total if p.solves_total else 1.0
        rate = p.solves_new / p.elapsed if p.elapsed > 0 else 0.0
        eta = (p.solves_total - p.solves_done) / rate if rate > 0 else 0.0
        bar = "#" * int(frac * self.width) + "-" * (self.width - int(frac * self.width))
        line = (f"[{bar}] {p.chunks_done}/{p.chunks_total} chunks  {p.solves_done:,}/{p.solves_total:,} "
                f"solves  {rate:,.0f}/s  ETA {int(eta) // 60}:{int(eta) % 60:02d}")
        if self.tty:
            typer.echo("\r" + line, err=True, nl=p.chunks_done == p.chunks_total)
        elif int(frac * 10) != self.last_decile or p.chunks_done == p.chunks_total:
            self.last_decile = int(frac * 10)
            typer.echo(line, err=True)
