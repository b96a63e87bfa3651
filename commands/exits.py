"""Library errors as one line on stderr and an exit code: 2 for bad input (quoting the value),
1 for any other ``TilesweepError``."""

from __future__ import annotations

import typer

from tilesweep.solver.errors import BAD_INPUT, TilesweepError


def fail(message: str, code: int) -> None:
    """Print one line on stderr and exit with ``code``."""
    typer.echo(f"error: {message}", err=True)
    raise typer.Exit(code)


def run_guarded(action):
    """Call ``action``, turning library errors into one line and an exit code."""
    try:
        return action()
    except BAD_INPUT as err:
        fail(str(err), 2)
    except TilesweepError as err:
        fail(str(err), 1)
