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


def load_tables(heuristic: str, size: int, goal, store: Optional[str], build: bool) -> tuple:
    """Pattern databases a ``pdb:`` heuristic needs, built on first use unless ``build`` is off."""
    from solver.heuristics import parse_heuristic
    spec = parse_heuristic(heuristic, size, goal)
    if not spec.is_pdb:
        return ()
    from pdb_store import open_store, tables_for

    def announce(group):
        typer.echo(f"building pattern database for tiles {','.join(map(str, group))} "
                   f"(size {size}); it is stored for later runs", err=True)

    return tables_for(spec, size, goal, open_store(store), build=build, on_build=announce)


def _print_solution(result, board, trace: bool) -> None:
    typer.echo(str(board))
    typer.echo(f"status     {result.status}")
    if result.status == "solved":
        typer.echo(f"moves      {result.moves or '(none: already solved)'}")
        typer.echo(f"cost       {result.cost}")
    for label, value in (("generated", f"{result.nodes_generated:,}"), ("expanded", f"{result.nodes_expanded:,}"),
                         ("ebf", "-" if result.ebf is None else f"{result.ebf:.4f}"), ("h0", result.h0),
                         ("seconds", f"{result.seconds:.6f}")):
        typer.echo(f"{label:<10} {value}")
    if result.max_depth is not None:
        typer.echo(f"max depth  {result.max_depth}")
    if trace and result.iterations:
        typer.echo("\niteration  bound  nodes generated")
        for i, it in enumerate(result.iterations, 1):
            typer.echo(f"{i:>9}  {it['bound']:>5}  {it['nodes_generated']:>15,}")


@app.command()
def solve(
    tiles: Annotated[str, typer.Argument(help="Tiles row-major, 0 = blank: '8 6 7 2 5 4 3 0 1', '8,6,7,...' or '867254301'.")],
    size: SizeOpt = None,
    goal: GoalOpt = "blank-last",
    algorithm: Annotated[str, typer.Option("--algorithm", "-a", help="astar, idastar, bfs or dfs.")] = "idastar",
    heuristic: Annotated[str, typer.Option("--heuristic", "-h", help="manhattan, linear-conflict, euclidean, misplaced, pdb:<partition>[+reflect].")] = "manhattan",
    store: StoreOpt = None,
    max_nodes: MaxNodesOpt = None,
    as_json: Annotated[bool, typer.Option("--json", help="Print one JSON object.")] = False,
    trace: Annotated[bool, typer.Option("--trace", help="Print the IDA* iteration table.")] = False,
    no_build: Annotated[bool, typer.Option("--no-build", help="Refuse instead of building a missing pattern database.")] = False,
) -> None:
    """Solve one board optimally and print the moves and the node counts.

    Example: tilesweep solve "8 6 7 2 5 4 3 0 1" --algorithm astar --heuristic linear-conflict
    """
    from solver import Board, solve as solve_board
    from solver.solve import check_algorithm, check_budget, resolve_goal

    def action():
        board = Board.parse(tiles, size)
        goal_t = resolve_goal(goal, board.size)
        check_algorithm(algorithm)
        check_budget(max_nodes, algorithm)
        tables = load_tables(heuristic, board.size, goal_t, store, build=not no_build)
        return board, solve_board(board, goal_t, algorithm, heuristic, tables, max_nodes)

    board, result = run_guarded(action)
    if as_json:
        typer.echo(json.dumps(result.to_dict()))
    else:
        _print_solution(result, board, trace)

# --- pdb ----------------------------------------------------------------------------------
# --- sweep, summary, query ----------------------------------------------------------------


def main() -> None:
    """Console-script entry point."""
    app()


if __name__ == "__main__":
    main()
