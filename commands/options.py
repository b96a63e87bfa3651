"""Options and arguments several commands share, and ``typed``, which parses an option's text
with the library's own parser at the edge so commands receive typed values."""

from __future__ import annotations

from typing import Annotated, Optional

import typer
from typer.core import TyperCommand, TyperGroup

from tilesweep.jobs.options import OPTION_PARSERS
from tilesweep.solver.errors import BAD_INPUT, InvalidOptionError
from tilesweep.solver.heuristics import BASE_HEURISTICS, PARTITIONS, WALKING, WD_SIZES


class BareFlags:
    """Help that shows a boolean flag (``--wide``, ``--help``) bare, as it is given: typer
    shows it as ``--wide <bool>``, which invites ``--wide true``."""

    def get_params(self, ctx):
        params = super().get_params(ctx)
        for param in params:
            if getattr(param, "is_flag", False) and param.metavar is None:
                param.metavar = ""
        return params


class Command(BareFlags, TyperCommand):
    """A tilesweep command (``app.command(cls=Command)``)."""


class Group(BareFlags, TyperGroup):
    """A tilesweep command group (``typer.Typer(cls=Group)``)."""


def partitions_by_size(prefix: str = "") -> str:
    """The named partitions by board, read from the table that defines them, e.g.
    ``"4-4, 5-3 (3x3); ..."``."""
    return "; ".join(f"{', '.join(prefix + p for p in names)} ({n}x{n})" for n, names in PARTITIONS.items())


# Every heuristic name, for the help of each command that takes one.
HEURISTIC_NAMES = (", ".join(h for h in BASE_HEURISTICS if h not in WALKING) + ", " + ", ".join(WALKING)
                   + f" ({' and '.join(f'{n}x{n}' for n in WD_SIZES)}); {partitions_by_size('pdb:')}; "
                   "+reflect and +blank-ignoring (weaker tables) after any pdb: name; "
                   "explicit groups pdb:1,2,3/4,5,6; max(A,B,...) of any of them")
# the commands that take --plugin: their heuristics may be plugins too (also inside max(...))
HEURISTIC_NAMES_AND_PLUGINS = (HEURISTIC_NAMES + "; plugin:NAME, a heuristic of a --plugin file or of an "
                               "installed package, alone or inside max(...)")


def typed(name: str):
    """The typer parser of option ``name``: the library's own parser, its error reported as
    click's bad value (one line quoting it, exit 2), so the command receives typed values."""
    return parsed_by(OPTION_PARSERS[name])


def parsed_by(parse):
    """A typer parser calling the library parser ``parse``, its error reported as :func:`typed`'s."""
    def parser(text: str):
        try:
            return parse(text)
        except BAD_INPUT as err:
            raise typer.BadParameter(str(err)) from None

    return parser


def listed(choices: tuple[str, ...]) -> str:
    """``"table, csv or json"``."""
    return ", ".join(choices[:-1]) + " or " + choices[-1]


def one_of(what: str, choices: tuple[str, ...]):
    """A typer parser accepting only ``choices`` for option ``what`` (e.g. ``"format"``), its
    error reported as :func:`typed`'s."""
    def parse(text: str) -> str:
        if text not in choices:
            raise InvalidOptionError(f"{what} {text!r} is not known; expected {listed(choices)}")
        return text

    return parsed_by(parse)


def format_option(*choices: str, note: str = ""):
    """A ``--format`` option taking one of ``choices``, checked as the command line is read."""
    return Annotated[str, typer.Option("--format", parser=one_of("format", choices), help=f"{listed(choices)}{note}.")]

StoreOpt = Annotated[Optional[str], typer.Option(
    "--store", help="PDB store folder (default: $TILESWEEP_STORE or the per-user cache).")]
SizeOpt = Annotated[Optional[int], typer.Option(
    "--size", parser=typed("size"), help="Board width: 3, 4 or 5 (default: from the tile count).")]
GoalOpt = Annotated[str, typer.Option("--goal", help="blank-last, blank-first, or the goal's tiles.")]
MaxNodesOpt = Annotated[Optional[int], typer.Option(
    "--max-nodes", parser=typed("max_nodes"), help="Stop after generating this many nodes (status budget_exceeded).")]
TimeLimitOpt = Annotated[Optional[float], typer.Option(
    "--time-limit", parser=typed("time_limit"), help="Stop a solve after this many wall seconds (status timeout).")]
CpuTimeLimitOpt = Annotated[Optional[float], typer.Option(
    "--cpu-time-limit", parser=typed("cpu_time_limit"),
    help="Stop a solve after this many seconds of its thread's CPU time, which a busy machine does not use up "
         "(status timeout); instead of --time-limit.")]
PruneOpt = Annotated[str, typer.Option(
    "--prune",
    help="parent (never undo the last move; Korf's counting) or fsm[:DEPTH] (an automaton of duplicate move strings).")]
ConventionsOpt = Annotated[Optional[str], typer.Option(
    "--conventions",
    help="What A*, BFS and DFS do and count: PRESET or PRESET,key=value,... Presets: korf (the default: tilesweep's "
         "accounting), pops-board-string (a textbook queue: every pop counted, A* ties by the board's string, "
         "order LRUD), heap-best-g (a heap with the best g per board, children counted when pushed). Keys: order, "
         "ties, duplicates, goal-test, count, f (docs/conventions.md).")]
MaxMemoryOpt = Annotated[Optional[int], typer.Option(
    "--max-memory", parser=typed("max_memory"),
    help="Memory A*, BFS and DFS may fill with boards, e.g. 2GB (status budget_exceeded, reason memory; default: "
         "from the memory limit).")]
SchedulerOpt = Annotated[Optional[str], typer.Option(
    "--scheduler", help="Dask scheduler address (default $DASK_SCHEDULER_ADDRESS, else a local cluster).")]
WorkersOpt = Annotated[Optional[int], typer.Option(
    "--workers", parser=typed("workers"), help="Local worker processes (default: the core count).")]
PluginOpt = Annotated[Optional[list[str]], typer.Option(
    "--plugin",
    help="A Python file of plugin heuristics (a HEURISTICS dict of numba functions h(tiles, goal)), named "
         "plugin:NAME; repeat for several.")]
FormatOpt = format_option("table", "csv", "json")
RowFormatOpt = format_option("table", "csv", "json", "parquet", note=" (parquet needs --output)")
TableOrJsonOpt = format_option("table", "json")
WideOpt = Annotated[bool, typer.Option(
    "--wide", help="Every summary column in the text table (csv and json always have them).")]
ClockOpt = Annotated[str, typer.Option(
    "--clock", help="Time figures by cpu (the solving thread's CPU time, the default) or wall seconds.")]
SweepsArg = Annotated[list[str], typer.Argument(help="Sweep folders (OUT/NAME), or folders holding sweeps.")]
