"""tilesweep's command line: parse, call the library, print, map errors to exit codes.

Exit codes: 0 success (an unsolvable instance is a success), 2 bad input (one line on
stderr quoting the value), 1 anything else.
"""

from __future__ import annotations

import json
import sys
from typing import Annotated, Optional

import typer

from solver.errors import InvalidBoardError, InvalidOptionError, TilesweepError, UnknownNameError

app = typer.Typer(add_completion=False, no_args_is_help=True, pretty_exceptions_enable=False,
                  help="Benchmark optimal sliding-tile puzzle search: solve, build PDBs, run sweeps on Dask.")
pdb_app = typer.Typer(no_args_is_help=True, help="Build, list and verify pattern databases.")
app.add_typer(pdb_app, name="pdb")

BAD_INPUT = (InvalidBoardError, InvalidOptionError, UnknownNameError)

StoreOpt = Annotated[Optional[str], typer.Option("--store", help="PDB store folder (default: $TILESWEEP_STORE or the per-user cache).")]
SizeOpt = Annotated[Optional[int], typer.Option("--size", help="Board width: 3, 4 or 5 (default: from the tile count).")]
GoalOpt = Annotated[str, typer.Option("--goal", help="blank-last, blank-first, or the goal's tiles.")]
MaxNodesOpt = Annotated[Optional[int], typer.Option("--max-nodes", help="Stop after generating this many nodes (status budget_exceeded).")]


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


# --- solve --------------------------------------------------------------------------------
# --- pdb ----------------------------------------------------------------------------------
# --- sweep, summary, query ----------------------------------------------------------------


def main() -> None:
    """Console-script entry point."""
    app()


if __name__ == "__main__":
    main()
