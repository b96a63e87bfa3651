"""``tilesweep check-heuristic``: is a heuristic admissible and consistent on every 8-puzzle board?"""

from __future__ import annotations

import functools
import json
from dataclasses import asdict
from typing import Annotated, Optional

import typer

from tilesweep.commands.exits import run_guarded
from tilesweep.commands.options import HEURISTIC_NAMES_AND_PLUGINS, GoalOpt, PluginOpt, StoreOpt, TableOrJsonOpt, typed


def check_heuristic(
    heuristic: Annotated[str, typer.Argument(help=f"The heuristic to check: {HEURISTIC_NAMES_AND_PLUGINS}.")],
    size: Annotated[int, typer.Option(
        "--size", parser=typed("size"), help="Board width (3: every board against its exact distance).")] = 3,
    goal: GoalOpt = "blank-last",
    plugin: PluginOpt = None,
    store: StoreOpt = None,
    worst: Annotated[int, typer.Option("--worst", help="Violations to show, the worst first.")] = 5,
    sample: Annotated[Optional[int], typer.Option(
        "--sample", parser=typed("count"),
        help="Check N uniform random boards against optimal costs solved with --reference (15-puzzles: required)."
    )] = None,
    seed: Annotated[int, typer.Option("--seed", parser=typed("seed"), help="Seed of the --sample boards.")] = 0,
    reference: Annotated[Optional[str], typer.Option(
        "--reference",
        help="The admissible heuristic the --sample boards are solved with (default: the strongest built-in, "
             "pdb:7-8+reflect on 4x4).")] = None,
    fmt: TableOrJsonOpt = "table",
) -> None:
    """Check a heuristic against the exact distance of every board (BFS from the goal), or
    of a sample of boards solved optimally (--sample N): admissible (never above it) and
    consistent (changes by at most 1 across a move). Exit 1 when it finds a violation.

    Example: tilesweep check-heuristic plugin:twice-manhattan --plugin examples/heuristics/manhattan.py
    """
    from tilesweep.commands.solve import load_tables
    from tilesweep.jobs.check import STRONGEST, check_heuristic as check, check_sample
    from tilesweep.jobs.plugins import load_files
    from tilesweep.solver.solve import resolve_goal

    def action():
        load_files(plugin or ())
        goal_t = resolve_goal(goal, size)
        tables = load_tables(heuristic, size, goal_t, store, True)
        if sample is None:
            return check(heuristic, size, goal_t, tables, worst)
        ref = reference or STRONGEST.get(size, "manhattan")
        return check_sample(heuristic, size, goal_t, tables, sample, seed, ref,
                            load_tables(ref, size, goal_t, store, True), worst)

    result = run_guarded(action)
    if fmt == "json":
        typer.echo(json.dumps({**asdict(result), "admissible": result.admissible, "consistent": result.consistent}))
    else:
        _print(result)
    if not (result.admissible and result.consistent):
        raise typer.Exit(1)


def _print(r, err: bool = False) -> None:
    """Print a check's findings (to stderr with ``err``)."""
    echo = functools.partial(typer.echo, err=err)
    echo(f"heuristic   {r.heuristic}")
    if r.reference:
        echo(f"boards      {r.boards:,} uniform random boards (seed {r.seed}), their optimal costs by IDA* "
             f"with {r.reference}; {r.moves:,} moves out of them")
    else:
        echo(f"boards      {r.boards:,} (every board of the goal's parity), {r.moves // 2:,} moves between them")
    echo(f"admissible  {'yes' if r.admissible else 'no'}: {r.overestimates:,} boards with h above the "
         "true distance")
    echo(f"consistent  {'yes' if r.consistent else 'no'}: {r.inconsistent_moves:,} moves across which h "
         "changes by more than 1")
    echo(f"mean h      {r.mean_h:.3f} against a mean true distance of {r.mean_distance:.3f}")
    for board, h, d in r.worst_overestimates:
        echo(f"overestimate  {board}  h = {h}, true distance {d}")
    for (a, ha), (b, hb) in r.worst_jumps:
        echo(f"jump          {a} (h = {ha}) -> {b} (h = {hb})")
