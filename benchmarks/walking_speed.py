"""Nodes per second of IDA* with walking distance against IDA* with Manhattan distance.

    python benchmarks/walking_speed.py                    # Korf #1, #79, #12
    python benchmarks/walking_speed.py --korf 1 --repeats 5 --prune fsm

Both heuristics solve the same Korf instances (blank-first goal); runs are interleaved
with the C IDA* + Manhattan yardstick (benchmarks/c_idastar.c), best CPU time of
``--repeats`` each, so the machine's drift (a shared virtual machine here) shows in the
yardstick's figure of the same run. Walking distance explores fewer, costlier nodes; the
ratio of nodes per second is the figure this benchmark reports.
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "benchmarks"))

from solver_speed import best_cpu, c_yardstick  # noqa: E402

from tilesweep.jobs.runrecord import machine_line  # noqa: E402
from tilesweep.jobs.sources import KORF100, read_instance_file  # noqa: E402
from tilesweep.solver import Board, solve  # noqa: E402

HEURISTICS = ("manhattan", "walking-distance")


def compare(number: int, repeats: int, prune: str) -> dict[str, float]:
    """Best CPU seconds and nodes/s of each heuristic and of C on Korf instance ``number``."""
    board = Board(read_instance_file(str(KORF100), 4)[number - 1], 4)
    for h in HEURISTICS:  # compile, build tables
        solve(Board.goal(4, "blank-first").apply("R"), "blank-first", "idastar", h, prune=prune)
    best = {h: (float("inf"), None) for h in HEURISTICS}
    c_run = None
    for _ in range(repeats):
        for h in HEURISTICS:
            result, cpu = best_cpu(lambda h=h: solve(board, "blank-first", "idastar", h, prune=prune), 1)
            if cpu < best[h][0]:
                best[h] = (cpu, result)
        run = c_yardstick(board.text(), 1)
        if run and (c_run is None or run["cpu_seconds"] < c_run["cpu_seconds"]):
            c_run = run
    rates = {}
    for h in HEURISTICS:
        cpu, result = best[h]
        rates[h] = result.nodes_generated / cpu
        print(f"Korf #{number} {h} ({prune}): cost {result.cost}, {result.nodes_generated:,} nodes, "
              f"{cpu:.3f} CPU s, {rates[h] / 1e6:.1f} M nodes/s")
    if c_run:
        rates["c"] = c_run["nodes_generated"] / c_run["cpu_seconds"]
        print(f"Korf #{number} C yardstick (manhattan, parent): {rates['c'] / 1e6:.1f} M nodes/s")
    print(f"Korf #{number} walking-distance / manhattan nodes/s = "
          f"{rates['walking-distance'] / rates['manhattan']:.0%}")
    return rates


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--korf", type=int, nargs="*", default=[1, 79, 12], help="Korf instance numbers (1-100)")
    parser.add_argument("--repeats", type=int, default=3)
    parser.add_argument("--prune", default="parent", help="parent or fsm[:DEPTH], for both heuristics")
    args = parser.parse_args()
    print(machine_line())
    for number in args.korf:
        compare(number, args.repeats, args.prune)


if __name__ == "__main__":
    main()
