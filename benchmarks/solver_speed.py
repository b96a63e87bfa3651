"""Nodes per second of the search kernels, next to a plain C IDA* on the same core.

    python benchmarks/solver_speed.py                 # Korf #1 (276,361,933 nodes) and #79
    python benchmarks/solver_speed.py --korf 79 --astar-count 2000
    python benchmarks/solver_speed.py --korf --repeats 5   # A* only

IDA* + Manhattan runs on Korf's instances (blank-first goal); the C yardstick
(benchmarks/c_idastar.c, built with gcc -O3 -march=native when gcc is present) runs the
same instances with the same successor order and accounting, so the node counts must
match. CPU seconds, best of ``--repeats``.

A* + Manhattan runs on 1,000 seeded uniform random 8-puzzles and 200 15-puzzles from
40-move random walks (blank-last goal), against the C A* (benchmarks/c_astar.c, same
accounting and tie-breaks): cost, nodes generated and expanded must match on every board.
Search CPU time only (process CPU time around each kernel call, around the C program's
searches), best of ``--repeats`` each, runs interleaved; then the time of one
solve of a board next to the goal (the per-solve overhead).
"""

from __future__ import annotations

import argparse
import json
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from tilesweep.jobs.runrecord import machine_line  # noqa: E402
from tilesweep.jobs.sources import KORF100, read_instance_file  # noqa: E402
from tilesweep.solver import Board, parse_heuristic, solve  # noqa: E402
from tilesweep.solver.batch import kernel_boards  # noqa: E402
from tilesweep.solver.board import goal_tiles  # noqa: E402
from tilesweep.solver.generators import random_walk_instance, uniform_instance  # noqa: E402
from tilesweep.solver.geometry import neighbours64  # noqa: E402
from tilesweep.solver.graphsearch import ASTAR, graph_search_kernel  # noqa: E402
from tilesweep.solver.heuristics import kernel_heuristic  # noqa: E402
from tilesweep.solver.kernels import goal_positions  # noqa: E402
from tilesweep.solver.limits import make_limits  # noqa: E402
from tilesweep.solver.search import graph_call  # noqa: E402
from tilesweep.solver.solve import check_budget  # noqa: E402


def best_cpu(fn, repeats: int):
    """(result, best CPU seconds) over ``repeats`` calls."""
    best, out = float("inf"), None
    for _ in range(repeats):
        start = time.process_time()
        out = fn()
        best = min(best, time.process_time() - start)
    return out, best


def built(name: str) -> Path:
    """benchmarks/NAME.c compiled with gcc -O3 -march=native (again when the source is newer)."""
    source, exe = ROOT / "benchmarks" / f"{name}.c", Path(tempfile.gettempdir()) / f"tilesweep_{name}"
    if not exe.exists() or exe.stat().st_mtime < source.stat().st_mtime:
        subprocess.run(["gcc", "-O3", "-march=native", "-o", str(exe), str(source)], check=True)
    return exe


def c_yardstick(tiles: str, repeats: int) -> dict | None:
    """Run the C IDA* on ``tiles``; None when gcc is missing."""
    if shutil.which("gcc") is None:
        return None
    exe = built("c_idastar")
    runs = [json.loads(subprocess.run([str(exe), *tiles.split()], check=True, capture_output=True,
                                      text=True).stdout) for _ in range(repeats)]
    return min(runs, key=lambda r: r["cpu_seconds"])


def idastar_korf(number: int, repeats: int) -> None:
    """IDA* + Manhattan on one Korf instance, runs interleaved with the C yardstick.

    Interleaving and keeping the best of each side spreads the machine's drift (a shared
    virtual machine here) over both programs alike.
    """
    board = Board(read_instance_file(str(KORF100), 4)[number - 1], 4)
    solve(Board.goal(4, "blank-first").apply("R"), "blank-first", "idastar", "manhattan")  # compile
    ours, result, c_run = float("inf"), None, None
    for _ in range(repeats):
        result, cpu = best_cpu(lambda: solve(board, "blank-first", "idastar", "manhattan"), 1)
        ours = min(ours, cpu)
        run = c_yardstick(board.text(), 1)
        if run:
            c_run = run if c_run is None or run["cpu_seconds"] < c_run["cpu_seconds"] else c_run
    rate = result.nodes_generated / ours
    line = (f"IDA* manhattan Korf #{number}: cost {result.cost}, {result.nodes_generated:,} nodes, "
            f"{ours:.3f} CPU s, {rate / 1e6:.1f} M nodes/s")
    if c_run:
        c_rate = c_run["nodes_generated"] / c_run["cpu_seconds"]
        same = "same nodes" if c_run["nodes_generated"] == result.nodes_generated else "NODE COUNTS DIFFER"
        line += f"; C: {c_rate / 1e6:.1f} M nodes/s ({same}); numba/C = {rate / c_rate:.0%}"
    print(line)


def astar_boards(count8: int, count15: int) -> dict[int, np.ndarray]:
    """The A* instance set per width: uniform random 8-puzzles (seed 0) and 15-puzzles from
    40-move random walks (seed 1), instance i from SeedSequence([seed, i]); boards that
    are the goal are left out."""
    sets = {}
    for size, seed, count in ((3, 0, count8), (4, 1, count15)):
        goal = goal_tiles("blank-last", size)
        rngs = [np.random.default_rng(np.random.SeedSequence([seed, i])) for i in range(count)]
        boards = np.array([(uniform_instance(3, goal, rng) if size == 3 else
                            random_walk_instance(4, goal, 40, rng)).tiles for rng in rngs], dtype=np.int8)
        sets[size] = boards[kernel_boards(boards, goal, size)]
    return sets


def c_astar(size: int, boards: np.ndarray) -> tuple[list[tuple[int, int, int]], float]:
    """(cost, generated, expanded) per board and the search CPU seconds of the C A*."""
    exe = built("c_astar")
    text = "\n".join(" ".join(map(str, row)) for row in boards.tolist())
    lines = subprocess.run([str(exe), str(size), *map(str, goal_tiles("blank-last", size))], input=text,
                           check=True, capture_output=True, text=True).stdout.splitlines()
    return [tuple(map(int, line.split())) for line in lines[:-1]], json.loads(lines[-1])["cpu_seconds"]


def numba_astar(size: int, boards: np.ndarray, general: bool = False) -> tuple[list[tuple[int, int, int]], float]:
    """(cost, generated, expanded) per board and the CPU seconds of tilesweep's A* kernel
    calls (the kernel solve() and solve_boards() run, compiled before the clock; with
    ``general`` the general graph-search kernel instead)."""
    goal = goal_tiles("blank-last", size)
    H = kernel_heuristic(parse_heuristic("manhattan", size, goal), size, goal)
    limits = make_limits(check_budget(None, "astar"))
    _, call = graph_call(ASTAR, size, goal, H, limits)
    if general:
        goal_pos, nbr = goal_positions(goal), neighbours64(size)
        no_fsm, search = np.zeros(4, dtype=np.int32), graph_search_kernel(H)

        def call(tiles):
            return search(ASTAR, tiles, size, goal_pos, nbr, H, limits, no_fsm, False)
    call(boards[0])
    clock, seconds, out = time.process_time, 0.0, []
    for tiles in boards:
        start = clock()
        _, _, cost, generated, expanded, _, _ = call(tiles)
        seconds += clock() - start
        out.append((int(cost), int(generated), int(expanded)))
    return out, seconds


def astar_yardstick(count8: int, count15: int, repeats: int) -> None:
    """A* + Manhattan against the C A* on the same boards, runs interleaved, best of
    ``repeats`` each; search CPU time only on both sides (the machine is shared, so wall
    time would count other programs' turns)."""
    sets = astar_boards(count8, count15)
    best = {(size, side): float("inf") for size in sets for side in ("numba", "C")}
    nodes, differ = {}, {}
    for _ in range(repeats):
        for size, boards in sets.items():
            ours, seconds = numba_astar(size, boards)
            best[size, "numba"] = min(best[size, "numba"], seconds)
            nodes[size] = sum(row[1] for row in ours)
            if shutil.which("gcc"):
                theirs, seconds = c_astar(size, boards)
                best[size, "C"] = min(best[size, "C"], seconds)
                differ[size] = sum(a != b for a, b in zip(ours, theirs, strict=True))
    for size, boards in sets.items():
        rate = nodes[size] / best[size, "numba"]
        line = (f"A* manhattan, {len(boards)} {size * size - 1}-puzzles: {nodes[size]:,} nodes, "
                f"{best[size, 'numba']:.3f} CPU s, {rate / 1e6:.2f} M nodes/s")
        if size in differ:
            c_rate = nodes[size] / best[size, "C"]
            same = "same cost and nodes on every board" if differ[size] == 0 else \
                f"COUNTS DIFFER on {differ[size]} boards"
            line += (f"; C: {best[size, 'C']:.3f} CPU s, {c_rate / 1e6:.2f} M nodes/s ({same}); "
                     f"numba/C = {rate / c_rate:.2f}")
        print(line)
    for size, boards in sets.items():
        seconds = min(numba_astar(size, boards, general=True)[1] for _ in range(repeats))
        print(f"  the general kernel (5x5, --prune fsm; all A* before solver/astar.py): "
              f"{nodes[size] / seconds / 1e6:.2f} M nodes/s on the {size * size - 1}-puzzles, best of {repeats}")
    if differ:
        total = sum(nodes.values())
        rate = total / sum(best[s, "numba"] for s in sets)
        c_rate = total / sum(best[s, "C"] for s in sets)
        print(f"A* manhattan, all {sum(map(len, sets.values()))} boards: {rate / 1e6:.2f} M nodes/s, "
              f"C {c_rate / 1e6:.2f} M nodes/s, numba/C = {rate / c_rate:.2f}")


def per_solve_overhead(repeats: int = 2000) -> None:
    """Time per A* solve of a board one move from the goal: through solve() and per kernel call."""
    board = Board.goal(3, "blank-last").apply("U")
    solve(board, "blank-last", "astar", "manhattan")  # compile
    start = time.perf_counter()
    results = [solve(board, "blank-last", "astar", "manhattan") for _ in range(repeats)]
    wall = (time.perf_counter() - start) / repeats
    kernel = min(r.seconds for r in results)
    start = time.perf_counter()
    for _ in range(repeats):
        time.thread_time()
    clock = (time.perf_counter() - start) / repeats
    print(f"A* per-solve overhead, 8-puzzle one move from the goal: {wall * 1e6:.1f} us per solve(), "
          f"{kernel * 1e6:.1f} us in the kernel call; solve() reads the CPU clock twice, "
          f"{clock * 1e6:.2f} us a read here (a system call on some virtual machines)")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--korf", type=int, nargs="*", default=[79, 1], help="Korf instance numbers (1-100)")
    parser.add_argument("--astar-count", type=int, default=1000, help="random 8-puzzles for A*")
    parser.add_argument("--astar-walks", type=int, default=200, help="15-puzzles from 40-move walks for A*")
    parser.add_argument("--repeats", type=int, default=5)
    args = parser.parse_args()
    print(machine_line())
    for number in args.korf:
        idastar_korf(number, args.repeats)
    astar_yardstick(args.astar_count, args.astar_walks, args.repeats)
    per_solve_overhead()


if __name__ == "__main__":
    main()
