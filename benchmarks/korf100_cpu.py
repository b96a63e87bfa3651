"""CPU seconds and nodes of IDA* on Korf's 100 instances for heuristics and prunings.

    python benchmarks/korf100_cpu.py -H "max(pdb:6-6-3+reflect,walking-distance)" --prune parent --prune fsm
    python benchmarks/korf100_cpu.py -H walking-distance --prune fsm --first 20

A sweep's ``seconds`` column is the wall time of each search, which on a busy shared
machine counts the time other processes hold the core; this runs the same solves in one
process and reads the process's CPU clock around each, so the figures hold under load.
Tables come from the PDB store (``$TILESWEEP_STORE`` or the per-user cache). Every cost is
checked against the other configurations of the run (they must all agree).
"""

from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from tilesweep.jobs.runrecord import machine_line  # noqa: E402
from tilesweep.jobs.sources import KORF100, read_instance_file  # noqa: E402
from tilesweep.pdb_store import open_store, tables_for  # noqa: E402
from tilesweep.solver import Board, goal_tiles, parse_heuristic, solve  # noqa: E402


def run(heuristic: str, prune: str, boards, store, each: bool = False) -> tuple[list[int], int, float]:
    """Costs, total nodes generated and total CPU seconds of one configuration (``each``:
    also a line per instance, so a run stopped early still tells what it solved)."""
    goal = goal_tiles("blank-first", 4)
    tables = tables_for(parse_heuristic(heuristic, 4, goal), 4, goal, store)
    solve(Board.goal(4, "blank-first").apply("R"), goal, "idastar", heuristic, tables, prune=prune)  # warm
    costs, nodes, cpu = [], 0, 0.0
    for number, board in enumerate(boards, 1):
        start = time.process_time()
        result = solve(board, goal, "idastar", heuristic, tables, prune=prune)
        seconds = time.process_time() - start
        cpu += seconds
        costs.append(result.cost)
        nodes += result.nodes_generated
        if each:
            print(f"  #{number}: cost {result.cost}, {result.nodes_generated:,} nodes, CPU {seconds:.2f} s",
                  flush=True)
    return costs, nodes, cpu


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("-H", "--heuristic", action="append", required=True)
    parser.add_argument("--prune", action="append", default=None, help="parent, fsm[:DEPTH]; repeat")
    parser.add_argument("--first", type=int, default=100, help="only the first N instances")
    parser.add_argument("--each", action="store_true", help="a line per instance")
    args = parser.parse_args()
    boards = [Board(t, 4) for t in read_instance_file(str(KORF100), 4)[: args.first]]
    print(machine_line())
    reference = None
    with open_store(None) as store:
        for heuristic in args.heuristic:
            for prune in args.prune or ["parent"]:
                costs, nodes, cpu = run(heuristic, prune, boards, store, args.each)
                reference = reference or costs
                same = "costs agree" if costs == reference else "COSTS DIFFER"
                print(f"{heuristic} ({prune}), {len(boards)} instances: total cost {sum(costs)}, "
                      f"mean nodes {nodes / len(boards):,.0f}, CPU {cpu:.1f} s, "
                      f"{nodes / cpu / 1e6:.2f} M nodes/s; {same}", flush=True)


if __name__ == "__main__":
    main()
