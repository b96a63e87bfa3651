"""``tilesweep check-heuristic``: is a heuristic admissible and consistent on every 8-puzzle board
(or a sample, or a sweep's optimal paths), and how close does it come to the true distance?"""

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
    sweep: Annotated[Optional[str], typer.Option(
        "--sweep", help="Check against a sweep's solved rows of --size and --goal: their start boards and every "
                        "board on their optimal paths, whose true distance is the cost left.")] = None,
    states: Annotated[Optional[int], typer.Option(
        "--states", parser=typed("count"),
        help="Also the distribution of h over N uniform random solvable boards (--seed); alone on 15- and "
             "24-puzzles: the distribution only, no check.")] = None,
    fmt: TableOrJsonOpt = "table",
) -> None:
    """Check a heuristic against the exact distance of every board (BFS from the goal), or
    of a sample of boards solved optimally (--sample N), or of the boards on a sweep's optimal
    paths (--sweep): admissible (never above it) and consistent (changes by at most 1 across a
    move); and how good it is: the distribution of h, mean h/h*, the share with h = h*. Exit 1
    when it finds a violation.

    Example: tilesweep check-heuristic plugin:twice-manhattan --plugin examples/heuristics/manhattan.py
    """
    from tilesweep.commands.solve import load_tables
    from tilesweep.jobs.check import STRONGEST, check_heuristic as check, check_paths, check_sample
    from tilesweep.jobs.plugins import load_files
    from tilesweep.jobs.quality import sampled_distribution, solved_paths
    from tilesweep.solver.solve import resolve_goal

    def checked(goal_t, tables):
        if sweep is not None:
            paths, solved = solved_paths(sweep, size, goal_t)
            return check_paths(heuristic, size, goal_t, tables, paths,
                               f"the optimal paths of {solved:,} solved instances of {sweep}", worst)
        if sample is None:
            return None if states is not None and size != 3 else check(heuristic, size, goal_t, tables, worst)
        ref = reference or STRONGEST.get(size, "manhattan")
        return check_sample(heuristic, size, goal_t, tables, sample, seed, ref,
                            load_tables(ref, size, goal_t, store, True), worst)

    def action():
        load_files(plugin or ())
        goal_t = resolve_goal(goal, size)
        tables = load_tables(heuristic, size, goal_t, store, True)
        found = checked(goal_t, tables)
        sampled = None if states is None else sampled_distribution(heuristic, size, goal_t, tables, states, seed)
        return found, sampled

    result, sampled = run_guarded(action)
    if result is None:
        _print_sampled(heuristic, sampled, fmt)
        return
    result.sampled = sampled
    if fmt == "json":
        typer.echo(json.dumps({**asdict(result), "admissible": result.admissible, "consistent": result.consistent}))
    else:
        _print(result)
    if not (result.admissible and result.consistent):
        raise typer.Exit(1)


def _print_sampled(heuristic: str, sampled, fmt: str) -> None:
    """The distribution of h over random boards, without a check."""
    if fmt == "json":
        typer.echo(json.dumps({"heuristic": heuristic, "sampled": sampled.to_dict()}))
        return
    typer.echo(f"heuristic   {heuristic}")
    _print_values("random", sampled, typer.echo)


def _print(r, err: bool = False, values: bool | None = None) -> None:
    """Print a check's findings (to stderr with ``err``), the distribution of h with
    ``values`` (by default unless ``err``: a sweep's check keeps to its verdict)."""
    echo = functools.partial(typer.echo, err=err)
    echo(f"heuristic   {r.heuristic}")
    if r.starts is not None:
        echo(f"boards      {r.boards:,} on {r.reference} (each start board and the board after each move, its true "
             f"distance the cost left); {r.moves:,} moves out of them")
    elif r.reference:
        echo(f"boards      {r.boards:,} uniform random boards (seed {r.seed}), their optimal costs by IDA* "
             f"with {r.reference}; {r.moves:,} moves out of them")
    else:
        echo(f"boards      {r.boards:,} (every board of the goal's parity), {r.moves // 2:,} moves between them")
    echo(f"admissible  {'yes' if r.admissible else 'no'}: {r.overestimates:,} boards with h above the "
         "true distance")
    echo(f"consistent  {'yes' if r.consistent else 'no'}: {r.inconsistent_moves:,} moves across which h "
         "changes by more than 1")
    echo(f"mean h      {r.mean_h:.3f} against a mean true distance of {r.mean_distance:.3f}")
    echo(f"h / h*      {_ratio(r.mean_ratio, r.exact_share)} of the boards")
    if r.starts is not None:
        echo(f"starts      {_ratio(r.starts.mean_ratio, r.starts.exact_share)} of the {r.starts.boards:,} start "
             f"boards alone; mean h {r.starts.mean_h:.3f} against a mean true distance {r.starts.mean_distance:.3f}")
    if values if values is not None else not err:
        _print_values("checked", r.distribution, echo)
        if r.sampled is not None:
            _print_values("random", r.sampled, echo)
    for board, h, d in r.worst_overestimates:
        echo(f"overestimate  {board}  h = {h}, true distance {d}")
    for (a, ha), (b, hb) in r.worst_jumps:
        echo(f"jump          {a} (h = {ha}) -> {b} (h = {hb})")


def _ratio(mean_ratio: float, exact_share: float) -> str:
    """``mean 0.812 (h* > 0); h = h* on 2.31 %``."""
    return f"mean {mean_ratio:.4f} (boards with h* > 0); h = h* on {exact_share:.2%}"


BAR = 40  # characters of the longest bar of a distribution


def _print_values(what: str, d, echo) -> None:
    """A distribution of h: its boards and mean, then per value the boards and their share."""
    boards = "the boards checked" if what == "checked" else d.method
    echo(f"h values    over {boards}: mean {d.mean:.4f}")
    shares = d.shares()
    top = max(shares, default=1)
    for value, count, share in zip(d.values, d.counts, shares):
        echo(f"  h = {value:<4} {count:>12,}  {share:>7.3%}  {'#' * round(BAR * share / top)}")
