"""Parallel IDA* against serial IDA* on Korf's instances with any heuristic: every count.

    TILESWEEP_STORE=/work/store python benchmarks/parallel_equality.py --heuristic pdb:7-8+reflect --korf 1 2 3

For each instance, serial IDA* in this process and parallel IDA* (``solve --parallel``,
stopping where serial IDA* stops) on an embedded LocalCluster of ``--workers`` processes
at each ``--split-depth`` (``--all-on-workers``: every iteration in tasks, where the
small first ones would run in the client): the line says whether the iterations, nodes expanded and moves
are the same, with the wall seconds and the 1-minute load average. The pattern databases
come from the store (``$TILESWEEP_STORE``); nothing is built.
"""

from __future__ import annotations

import argparse
import os
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from tilesweep.cluster.connect import connect  # noqa: E402
from tilesweep.cluster.parallel import dask_runner  # noqa: E402
from tilesweep.cluster.tables import open_tables, resolve  # noqa: E402
from tilesweep.jobs.runrecord import machine_line  # noqa: E402
from tilesweep.jobs.sources import KORF100, read_instance_file  # noqa: E402
from tilesweep.solver import Board, solve  # noqa: E402
from tilesweep.solver.board import goal_tiles  # noqa: E402


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--korf", type=int, nargs="+", default=[1])
    parser.add_argument("--heuristic", default="pdb:7-8+reflect")
    parser.add_argument("--workers", type=int, default=2)
    parser.add_argument("--split-depth", type=int, nargs="+", default=[6, 11])
    parser.add_argument("--all-on-workers", action="store_true",
                        help="send every iteration to the workers (else the small first ones run here)")
    args = parser.parse_args()
    goal = goal_tiles("blank-first", 4)
    _, tables = open_tables(resolve(None), [args.heuristic], 4, goal)
    tables = tables.get(args.heuristic, ())
    boards = read_instance_file(str(KORF100), 4)
    print(machine_line())
    with connect(workers=args.workers) as client:
        runners = {d: dask_runner(client, None, d, small_here=not args.all_on_workers) for d in args.split_depth}
        for number in args.korf:
            board = Board(boards[number - 1], 4)
            load = f"load {os.getloadavg()[0]:.1f}"
            serial = solve(board, goal, "idastar", args.heuristic, tables)
            line = f"Korf #{number} {args.heuristic}: cost {serial.cost}, {serial.nodes_generated:,} nodes, serial " \
                   f"{serial.seconds:.2f} s ({load})"
            for depth, runner in runners.items():
                par = solve(board, goal, "idastar", args.heuristic, tables, split=runner)
                same = (par.iterations, par.nodes_expanded, par.moves) == (serial.iterations, serial.nodes_expanded,
                                                                           serial.moves)
                line += f"; depth {depth}: {'all equal' if same else 'DIFFER'} {par.seconds:.2f} s"
            print(line, flush=True)


if __name__ == "__main__":
    main()
