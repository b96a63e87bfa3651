"""A plugin heuristic's cost per node: examples/heuristics/manhattan.py's Manhattan distance,
full-board form (``manhattan-plugin``) and incremental form (``manhattan-incremental``),
against the built-in ``manhattan`` with IDA* on Korf's instances, one after the other in one
process (same node counts asserted). Then A* with the built-in and with the full-board
plugin (A* calls no incremental form) on those of the instances small enough for A*'s
memory, beside the built-in in the general graph kernel, the one a plugin runs in (the
built-in itself runs in the packed A* kernel). Speeds are nodes per CPU second of the
solving thread, so other processes on the machine slow each solve less than its wall clock.

    python benchmarks/plugin_speed.py            # Korf's instances 1-10
    python benchmarks/plugin_speed.py 2 5        # the instances given (1-based ids)
"""

import os
import platform
import sys
import time
from pathlib import Path

import numba
import numpy as np

from tilesweep.jobs.plugins import load_files
from tilesweep.jobs.published import published_figures
from tilesweep.jobs.sources import KORF100
from tilesweep.solver import Board, solve
from tilesweep.solver.kernels import _graph_call
from tilesweep.solver.plugins import plugin
from tilesweep.solver.solve import prepare

ROOT = Path(__file__).resolve().parents[1]
HEURISTICS = ("manhattan", "plugin:manhattan-plugin", "plugin:manhattan-incremental")
ASTAR_MAX_NODES = 20_000_000  # A* on the instances whose published IDA* count is at most this (memory)


def korf(ids):
    return {i: Board(board.tiles, 4) for i, board in published_figures(KORF100).items() if i in ids}


def general_kernel_speed(board, nodes: int) -> float:
    """Nodes per CPU second of A* + the built-in Manhattan distance in the general graph
    kernel, timed on a second call (the first compiles or loads it)."""
    inputs = prepare(4, "blank-first", "astar", "manhattan", (), None, None, None, "parent", None).inputs
    _, call = _graph_call(inputs)
    tiles = np.array(board.tiles, dtype=np.int8)
    call(tiles)  # compiled (or loaded) outside the clock
    start = time.thread_time()
    out = call(tiles)
    seconds = time.thread_time() - start
    assert int(out[3]) == nodes, (out[3], nodes)  # the same nodes generated
    return nodes / seconds


def astar_table(ids) -> None:
    """A*: the built-in (packed kernel), the built-in in the general kernel, the plugin."""
    small = {i: b for i, b in korf(ids).items() if published_figures(KORF100)[i].nodes <= ASTAR_MAX_NODES}
    if not small:
        return
    print("\nA*, the full-board plugin (A* has no incremental form):")
    print("| instance | nodes | built-in (packed kernel) | built-in in the general kernel | ratio | plugin | ratio |")
    print("|---|---|---|---|---|---|---|")
    nodes, cpu = 0, [0.0, 0.0, 0.0]
    for i, board in small.items():
        builtin, mine = (solve(board, "blank-first", "astar", h) for h in HEURISTICS[:2])
        assert (mine.status, mine.nodes_generated, mine.cost) == ("solved", builtin.nodes_generated, builtin.cost)
        general = general_kernel_speed(board, builtin.nodes_generated)
        print(astar_row(f"Korf #{i}", builtin.nodes_generated, [speed(builtin), general, speed(mine)]), flush=True)
        nodes += builtin.nodes_generated
        for k, s in enumerate((speed(builtin), general, speed(mine))):
            cpu[k] += builtin.nodes_generated / s
    print(astar_row("all", nodes, [nodes / c for c in cpu]))


def astar_row(label: str, nodes: int, speeds: list[float]) -> str:
    """A row of the A* table: speeds of the packed built-in, the general built-in, the plugin."""
    packed, general, mine = speeds
    return (f"| {label} | {nodes:,} | {packed / 1e6:.2f} M nodes/s | {general / 1e6:.2f} M nodes/s | "
            f"{general / packed:.3f} | {mine / 1e6:.2f} M nodes/s | {mine / packed:.3f} |")


def speed(result) -> float:
    return result.nodes_generated / result.cpu_seconds


@numba.njit
def call_boards(function, boards, goal, calls):
    """``function(board, goal)`` ``calls`` times, cycling through ``boards``: the sum of h."""
    total = 0
    for i in range(calls):
        total += function(boards[i % boards.shape[0]], goal)
    return total


@numba.njit
def call_steps(step, boards, goal, calls):
    """``step`` ``calls`` times on moves of ``boards``' tiles (each tile's move from cell 0 to 1)."""
    total = 0
    for i in range(calls):
        board = boards[i % boards.shape[0]]
        tile = board[0] if board[0] != 0 else board[1]
        total += step(board, goal, 40, tile, 0, 1)
    return total


def ns_per_call(loop, function, boards, goal, calls=2_000_000) -> float:
    """CPU nanoseconds of one call of ``function`` on its own, outside any search."""
    loop(function, boards, goal, 10)  # compile
    start = time.thread_time()
    loop(function, boards, goal, calls)
    return (time.thread_time() - start) / calls * 1e9


def main(ids):
    load_files([ROOT / "examples" / "heuristics" / "manhattan.py"])
    print(f"{platform.processor() or platform.machine()}, {os.cpu_count()} cores; "
          f"load average {os.getloadavg()[0]:.1f} at the start")
    print("| instance | nodes (all three) | cost | built-in | full-board plugin | ratio | incremental plugin | ratio |")
    print("|---|---|---|---|---|---|---|---|")
    nodes, cpu = 0, dict.fromkeys(HEURISTICS, 0.0)
    for i, board in korf(ids).items():
        runs = {h: solve(board, "blank-first", "idastar", h) for h in HEURISTICS}
        builtin = runs["manhattan"]
        for h, run in runs.items():
            assert (run.status, run.nodes_generated, run.cost) == ("solved", builtin.nodes_generated, builtin.cost), h
            cpu[h] += run.cpu_seconds
        nodes += builtin.nodes_generated
        line = f"| Korf #{i} | {builtin.nodes_generated:,} | {builtin.cost} | {speed(builtin) / 1e6:.1f} M nodes/s"
        for h in HEURISTICS[1:]:
            line += f" | {speed(runs[h]) / 1e6:.1f} M nodes/s | {speed(runs[h]) / speed(builtin):.3f}"
        print(line + " |", flush=True)
    total = [nodes / cpu[h] for h in HEURISTICS]
    print(f"| all | {nodes:,} | | {total[0] / 1e6:.1f} M nodes/s | {total[1] / 1e6:.1f} M nodes/s | "
          f"{total[1] / total[0]:.3f} | {total[2] / 1e6:.1f} M nodes/s | {total[2] / total[0]:.3f} |")
    boards = np.array([board.tiles for board in korf(ids).values()], dtype=np.int64)
    goal = np.arange(16, dtype=np.int64)
    example = plugin("manhattan-incremental")
    print(f"per node: built-in {1e9 / total[0]:.1f} ns, full-board plugin {1e9 / total[1]:.1f} ns, "
          f"incremental plugin {1e9 / total[2]:.1f} ns; the plugin's functions alone, called in a loop "
          f"on these boards: full-board {ns_per_call(call_boards, example.function, boards, goal):.1f} ns, "
          f"incremental {ns_per_call(call_steps, example.step, boards, goal):.1f} ns a call")
    astar_table(ids)
    print(f"load average {os.getloadavg()[0]:.1f} at the end")


if __name__ == "__main__":
    main([int(x) for x in sys.argv[1:]] or list(range(1, 11)))
