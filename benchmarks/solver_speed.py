"""Nodes per second of the search kernels, next to a plain C IDA* on the same core.

    python benchmarks/solver_speed.py                 # Korf #1 (276,361,933 nodes) and #79
    python benchmarks/solver_speed.py --korf 79 --astar-count 2000

IDA* + Manhattan runs on Korf's instances (blank-first goal); the C yardstick
(benchmarks/c_idastar.c, built with gcc -O3 -march=native when gcc is present) runs the
same instances with the same successor order and accounting, so the node counts must
match. A* + Manhattan runs on seeded uniform random 8-puzzles. CPU seconds, best of
``--repeats``.
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
from tilesweep.solver import Board, solve  # noqa: E402
from tilesweep.solver.board import goal_tiles  # noqa: E402
from tilesweep.solver.generators import uniform_instance  # noqa: E402


def best_cpu(fn, repeats: int):
    """(result, best CPU seconds) over ``repeats`` calls."""
    best, out = float("inf"), None
    for _ in range(repeats):
        start = time.process_time()
        out = fn()
        best = min(best, time.process_time() - start)
    return out, best


def c_yardstick(tiles: str, repeats: int) -> dict | None:
    """Run the C IDA* on ``tiles``; None when gcc is missing."""
    if shutil.which("gcc") is None:
        return None
    exe = Path(tempfile.gettempdir()) / "tilesweep_c_idastar"
    if not exe.exists():
        subprocess.run(["gcc", "-O3", "-march=native", "-o", str(exe), str(ROOT / "benchmarks" / "c_idastar.c")],
                       check=True)
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


def astar_eight(count: int, repeats: int) -> None:
    goal = goal_tiles("blank-last", 3)
    boards = [uniform_instance(3, goal, np.random.default_rng(np.random.SeedSequence([0, i]))) for i in range(count)]
    solve(boards[0], "blank-last", "astar", "manhattan")  # compile

    def run():
        return sum(solve(b, "blank-last", "astar", "manhattan").nodes_generated for b in boards)

    nodes, cpu = best_cpu(run, repeats)
    kernel = min(sum(solve(b, "blank-last", "astar", "manhattan").seconds for b in boards) for _ in range(repeats))
    print(f"A* manhattan, {count} random 8-puzzles: {nodes:,} nodes, {cpu:.3f} CPU s with Python "
          f"overhead = {nodes / cpu / 1e6:.2f} M nodes/s; search only {nodes / kernel / 1e6:.2f} M nodes/s")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--korf", type=int, nargs="*", default=[79, 1], help="Korf instance numbers (1-100)")
    parser.add_argument("--astar-count", type=int, default=1000)
    parser.add_argument("--repeats", type=int, default=5)
    args = parser.parse_args()
    print(machine_line())
    for number in args.korf:
        idastar_korf(number, args.repeats)
    astar_eight(args.astar_count, args.repeats)


if __name__ == "__main__":
    main()
