"""tilesweep's command line: parse, call the library, print, map errors to exit codes.

This module is the app; each command group lives in ``commands/`` (``commands/__init__.py``).

Exit codes: 0 success (an unsolvable instance is a success), 2 bad input (one line on
stderr quoting the value), 1 anything else.
"""

from __future__ import annotations

import re
import sys
from typing import Annotated

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

try:  # recent typer vendors its own click
    from typer._click import exceptions as click_errors
except ImportError:  # pragma: no cover - older typer on plain click
    from click import exceptions as click_errors

from tilesweep.commands import check, pdb, predict, results, sbatch, solve, status, sweep, ui, warm
from tilesweep.commands.options import Command, Group


class OneLineErrors(Group):
    """Report click's own usage errors (a bad option value, an unknown option) as one
    line on stderr with exit code 2, like every other bad input."""

    def invoke(self, ctx):
        """A Ctrl-C that a command does not report itself is ``error: interrupted`` (typer
        would exit 130 without a word)."""
        try:
            return super().invoke(ctx)
        except KeyboardInterrupt:
            raise typer.Abort() from None

    def main(self, *args, standalone_mode: bool = True, **kwargs):
        try:
            code = super().main(*args, standalone_mode=False, **kwargs)
        except click_errors.NoArgsIsHelpError as err:
            typer.echo(err.ctx.get_help())
            code = 2
        except click_errors.UsageError as err:
            typer.echo(f"error: {err.format_message()}{flag_hint(err)}", err=True)
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


def flag_hint(err) -> str:
    """For ``--wide true``: say that a flag takes no value."""
    extra = re.search(r"unexpected extra argument\S* \((\S+?)[ )]", err.format_message())
    if extra and extra[1].lower() in ("true", "false", "yes", "no", "on", "off", "1", "0"):
        return f"; a flag takes no value: give it alone to turn it on, leave it out to turn it off (not {extra[1]!r})"
    return ""


HELP = {"help_option_names": ["-h", "--help"]}  # the subcommands inherit it
app = typer.Typer(cls=OneLineErrors, add_completion=False, no_args_is_help=True, pretty_exceptions_enable=False,
                  context_settings=HELP,
                  help="Benchmark optimal sliding-tile puzzle search: solve, build PDBs, run sweeps on Dask.")


def show_version(wanted: bool) -> None:
    """``--version``: print the package version and stop."""
    if wanted:
        from tilesweep import __version__
        typer.echo(f"tilesweep {__version__}")
        raise typer.Exit()


@app.callback()
def options(version: Annotated[bool, typer.Option("--version", is_eager=True, callback=show_version,
                                                  help="Print the version and exit.")] = False) -> None:
    """The program's own options, before any command."""


app.add_typer(pdb.app, name="pdb")
app.command(cls=Command, context_settings={"ignore_unknown_options": True})(solve.solve)  # tiles may start with "-"
for command in (sweep.sweep, results.summary, results.query, results.sql, results.compare, ui.ui, results.report,
                results.figures, results.table, results.verify,
                warm.warm, status.status, status.cancel, check.check_heuristic, predict.predict, sbatch.sbatch_script):
    app.command(cls=Command)(command)

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
