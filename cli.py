"""tilesweep's command line: parse, call the library, print, map errors to exit codes.

This module is the app; each command group lives in ``commands/`` (``commands/__init__.py``).

Exit codes: 0 success (an unsolvable instance is a success), 2 bad input (one line on
stderr quoting the value), 1 anything else.
"""

from __future__ import annotations

import sys

AS_SCRIPT = not __package__  # run as `python cli.py` rather than `tilesweep` or `python -m ...`
if AS_SCRIPT:  # this checkout's folder is the tilesweep package
    import importlib.util
    from pathlib import Path as _Path

    _root = _Path(__file__).resolve().parent
    _spec = importlib.util.spec_from_file_location("tilesweep", _root / "__init__.py",
                                                   submodule_search_locations=[str(_root)])
    sys.modules["tilesweep"] = importlib.util.module_from_spec(_spec)
    _spec.loader.exec_module(sys.modules["tilesweep"])

import typer
from typer.core import TyperGroup

try:  # recent typer vendors its own click
    from typer._click import exceptions as click_errors
except ImportError:  # pragma: no cover - older typer on plain click
    from click import exceptions as click_errors

from tilesweep.commands import pdb, results, solve, sweep, ui


class OneLineErrors(TyperGroup):
    """Report click's own usage errors (a bad option value, an unknown option) as one
    line on stderr with exit code 2, like every other bad input."""

    def main(self, *args, standalone_mode: bool = True, **kwargs):
        try:
            code = super().main(*args, standalone_mode=False, **kwargs)
        except click_errors.NoArgsIsHelpError as err:
            typer.echo(err.ctx.get_help())
            code = 2
        except click_errors.UsageError as err:
            typer.echo(f"error: {err.format_message()}", err=True)
            code = 2
        except click_errors.ClickException as err:
            typer.echo(f"error: {err.format_message()}", err=True)
            code = 1
        except typer.Abort:
            typer.echo("error: interrupted", err=True)
            code = 130
        if not standalone_mode:
            return code
        sys.exit(code if isinstance(code, int) else 0)


app = typer.Typer(cls=OneLineErrors, add_completion=False, no_args_is_help=True, pretty_exceptions_enable=False,
                  help="Benchmark optimal sliding-tile puzzle search: solve, build PDBs, run sweeps on Dask.")
app.add_typer(pdb.app, name="pdb")
app.command(context_settings={"ignore_unknown_options": True})(solve.solve)  # tiles may start with "-"
app.command()(sweep.sweep)
for command in (results.summary, results.query, results.sql, results.compare, ui.ui, results.report):
    app.command()(command)

if AS_SCRIPT:
    sweep.PROGRAM = "python cli.py"


def main() -> None:
    """Console-script entry point."""
    try:
        app()
    except SystemExit as done:
        leave(done.code)


def leave(code) -> None:
    """Exit with ``code`` without the interpreter's teardown: freeing the modules of numba,
    LLVM, pandas and Dask takes 0.4-0.6 s after every command and nothing needs it. The
    normal exit when a child process is left, or a tracer or profiler (coverage,
    cProfile) waits to write at exit."""
    import logging
    import multiprocessing
    import os

    if (not isinstance(code, (int, type(None))) or multiprocessing.active_children()
            or sys.gettrace() is not None or sys.getprofile() is not None):
        sys.exit(code)
    sys.stdout.flush()
    sys.stderr.flush()
    logging.shutdown()
    os._exit(code or 0)


if __name__ == "__main__":
    main()
