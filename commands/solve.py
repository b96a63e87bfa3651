"""``tilesweep solve``: one board, solved optimally, its moves and node counts printed."""

from __future__ import annotations

import json
from typing import Annotated, Optional

import typer

from tilesweep.commands.exits import run_guarded
from tilesweep.commands.options import (
    HEURISTIC_NAMES_AND_PLUGINS,
    ConventionsOpt,
    CpuTimeLimitOpt,
    GoalOpt,
    MaxMemoryOpt,
    MaxNodesOpt,
    PluginOpt,
    PruneOpt,
    SchedulerOpt,
    SizeOpt,
    StoreOpt,
    TimeLimitOpt,
    WorkersOpt,
    parsed_by,
)
from tilesweep.solver.errors import InvalidOptionError
from tilesweep.solver.options import check_split_depth

PARALLEL_ONLY = ("scheduler", "workers", "split-depth", "complete-last-iteration")


def announce_build(size: int):
    """A line on stderr for each pattern database built on first use."""
    def announce(group):
        typer.echo(f"building pattern database for tiles {','.join(map(str, group))} "
                   f"(size {size}); it is stored for later runs", err=True)
    return announce


def load_tables(heuristic: str, size: int, goal, store: Optional[str], build: bool) -> tuple:
    """Pattern databases a ``pdb:`` heuristic needs, built on first use (announced) unless ``build`` is off."""
    from tilesweep.api import load_tables as tables
    return tables(heuristic, size, goal, store, build, announce_build(size))


def _limits(result) -> str:
    """The limits a solve ran under, e.g. ``20,000,000 nodes, 1.9 GiB of boards, no time limit``."""
    return ", ".join([
        "no node limit" if result.max_nodes is None else f"{result.max_nodes:,} nodes",
        *([] if result.max_memory is None else [f"{result.max_memory / 2**30:.1f} GiB of boards"]),
        f"{result.cpu_time_limit:g} CPU seconds" if result.cpu_time_limit is not None
        else "no time limit" if result.time_limit is None else f"{result.time_limit:g} seconds"])


def _print_solution(result, board, goal, trace: bool) -> None:
    from tilesweep.solver.board import parity_facts
    typer.echo(str(board))
    for label, value in (("goal", result.goal), ("algorithm", result.algorithm), ("heuristic", result.heuristic),
                         ("pruning", result.pruning), ("limits", _limits(result))):
        typer.echo(f"{label:<10} {value}")
    if result.conventions != "korf":
        typer.echo(f"{'counting':<10} {result.conventions}")
    typer.echo(f"status     {result.status}" + (f" ({result.status_reason})" if result.status_reason else ""))
    if result.status == "unsolvable":
        typer.echo(f"reason     {parity_facts(board.tiles, goal, board.size)}")
    if result.status == "solved":
        typer.echo(f"moves      {result.moves or '(none: already solved)'}")
        typer.echo(f"cost       {result.cost}")
    for label, value in (("generated", f"{result.nodes_generated:,}"), ("expanded", f"{result.nodes_expanded:,}"),
                         ("ebf", "-" if result.ebf is None else f"{result.ebf:.4f}"), ("h0", result.h0),
                         ("seconds", f"{result.seconds:.6f} wall, {result.cpu_seconds:.6f} CPU")):
        typer.echo(f"{label:<10} {value}")
    if result.max_depth is not None:
        typer.echo(f"max depth  {result.max_depth}")
    if "split_depth" in result.extra:
        x = result.extra
        typer.echo(f"parallel   {x['workers']} workers, split depth {x['split_depth']} "
                   f"({x['frontier_roots']:,} roots)")
        typer.echo(f"completed  {x['nodes_completed_iterations']:,} nodes in the iterations before the last")
        typer.echo(f"last       {x['nodes_last_iteration']:,} nodes in the last iteration")
    if trace and result.iterations:
        typer.echo("\niteration  bound  nodes generated")
        for i, it in enumerate(result.iterations, 1):
            typer.echo(f"{i:>9}  {it['bound']:>5}  {it['nodes_generated']:>15,}")


def solve(
    tiles: Annotated[str, typer.Argument(
        help="Tiles row-major, 0 = blank: '8 6 7 2 5 4 3 0 1', '8,6,7,...' or '867254301'.")],
    size: SizeOpt = None,
    goal: GoalOpt = "blank-last",
    algorithm: Annotated[str, typer.Option("--algorithm", "-a", help="astar, idastar, bfs or dfs.")] = "idastar",
    heuristic: Annotated[str, typer.Option("--heuristic", "-H", help=f"{HEURISTIC_NAMES_AND_PLUGINS}.")] = "manhattan",
    store: StoreOpt = None,
    max_nodes: MaxNodesOpt = None,
    time_limit: TimeLimitOpt = None,
    cpu_time_limit: CpuTimeLimitOpt = None,
    max_memory: MaxMemoryOpt = None,
    prune: PruneOpt = "parent",
    conventions: ConventionsOpt = None,
    plugin: PluginOpt = None,
    as_json: Annotated[bool, typer.Option("--json", help="Print one JSON object.")] = False,
    trace: Annotated[bool, typer.Option("--trace", help="Print the IDA* iteration table.")] = False,
    no_build: Annotated[bool, typer.Option(
        "--no-build", help="Refuse instead of building a missing pattern database.")] = False,
    parallel: Annotated[bool, typer.Option(
        "--parallel", help="IDA* with its iterations split into Dask tasks (one board on many cores).")] = False,
    scheduler: SchedulerOpt = None,
    workers: WorkersOpt = None,
    split_depth: Annotated[Optional[int], typer.Option(
        "--split-depth", parser=parsed_by(lambda text: check_split_depth(text, None)),
        help="--parallel: depth of the frontier whose subtrees are the tasks' work (default 14 on 3x3, 11 on 4x4, 9 "
             "on 5x5).")] = None,
    complete_last_iteration: Annotated[bool, typer.Option(
        "--complete-last-iteration",
        help="--parallel: search the whole last iteration (a node count independent of workers and tasks) instead of"
             " cancelling its tasks at the first goal.")] = False,
    checkpoint: Annotated[Optional[str], typer.Option(
        "--checkpoint", metavar="FOLDER",
        help="IDA* by split search recording its progress in FOLDER/checkpoints at each iteration and subtree chunk; "
             "run again with the same FOLDER to go on where it stopped (tilesweep status FOLDER shows it).")] = None,
) -> None:
    """Solve one board optimally and print the moves and the node counts.

    Example: tilesweep solve "8 6 7 2 5 4 3 0 1" --algorithm astar --heuristic linear-conflict

    Parallel IDA*: tilesweep solve "14 13 15 7 11 12 9 5 6 0 2 1 4 8 10 3" --goal blank-first --parallel

    Resumable: tilesweep solve "14 13 15 7 11 12 9 5 6 0 2 1 4 8 10 3" --goal blank-first --checkpoint runs/k1
    """
    from tilesweep.solver import Board, solve as solve_search
    from tilesweep.solver.solve import check_algorithm, check_split, resolve_goal

    def action():
        from tilesweep.api import load_automaton, solve_board
        from tilesweep.jobs.plugins import load_files
        load_files(plugin or ())
        board = Board.parse(tiles, size)
        goal_t = resolve_goal(goal, board.size)
        check_algorithm(algorithm)
        given = [name for name, value in zip(PARALLEL_ONLY, (scheduler, workers, split_depth,
                                                               complete_last_iteration or None)) if value is not None]
        if given and not parallel and not (checkpoint and given == ["split-depth"]):
            raise InvalidOptionError(f"--{given[0]} applies only to --parallel; add --parallel or drop it")
        checkpoints = None if checkpoint is None else _checkpoints(checkpoint, algorithm)
        if parallel:
            tables = load_tables(heuristic, board.size, goal_t, store, build=not no_build)
            load_automaton(prune, board.size, store)
            return board, goal_t, _solve_parallel(board, goal_t, algorithm, heuristic, tables, max_nodes,
                                                  time_limit, prune, checkpoints)
        if checkpoints is not None:
            from tilesweep.solver.splitsearch import local_runner
            tables = load_tables(heuristic, board.size, goal_t, store, build=not no_build)
            load_automaton(prune, board.size, store)
            runner = local_runner(check_split_depth(split_depth, board.size), checkpoints=checkpoints)
            return board, goal_t, solve_search(board, goal_t, algorithm, heuristic, tables, max_nodes, time_limit,
                                               None, prune, split=runner, cpu_time_limit=cpu_time_limit,
                                               conventions=conventions)
        return board, goal_t, solve_board(board, goal=goal_t, algorithm=algorithm, heuristic=heuristic,
                                          store=store, build=not no_build, max_nodes=max_nodes,
                                          time_limit=time_limit, max_memory=max_memory, prune=prune,
                                          on_build=announce_build(board.size), cpu_time_limit=cpu_time_limit,
                                          conventions=conventions)

    def _solve_parallel(board, goal_t, algorithm, heuristic, tables, max_nodes, time_limit, prune, checkpoints):
        from tilesweep.cluster.connect import connect, scheduler_address
        from tilesweep.cluster.parallel import dask_runner
        depth = check_split_depth(split_depth, board.size)
        check_split(algorithm)
        scheduler_address(scheduler)  # a malformed address is bad input, before any work
        with connect(scheduler, workers) as client:
            runner = dask_runner(client, store, depth, complete_last_iteration, checkpoints=checkpoints)
            return solve_search(board, goal_t, algorithm, heuristic, tables, max_nodes, time_limit, None, prune,
                                split=runner, cpu_time_limit=cpu_time_limit, conventions=conventions)

    board, goal_t, result = run_guarded(action)
    if as_json:
        typer.echo(json.dumps(result.to_dict() | result.extra | _reason(result, board, goal_t)))
    else:
        _print_solution(result, board, goal_t, trace)


def _checkpoints(folder: str, algorithm: str):
    """The ``checkpoints`` of a split search kept in ``folder`` (made if missing)."""
    from pathlib import Path

    from tilesweep.jobs.checkpoints import folder_checkpoints
    if algorithm != "idastar":
        raise InvalidOptionError(f"--checkpoint records IDA* only, not {algorithm!r}; use --algorithm idastar")
    path = Path(folder)
    try:
        path.mkdir(parents=True, exist_ok=True)
    except (FileExistsError, NotADirectoryError):
        raise InvalidOptionError(f"--checkpoint {folder!r} is a file; expected a folder to keep the solve's "
                                 "progress in") from None
    return folder_checkpoints(path, {"solve": "tilesweep solve"})


def _reason(result, board, goal) -> dict:
    """For an unsolvable board, why (the parity sentence the web UI gives too)."""
    from tilesweep.solver.board import parity_reason
    return {"reason": parity_reason(board.tiles, goal, board.size)} if result.status == "unsolvable" else {}
