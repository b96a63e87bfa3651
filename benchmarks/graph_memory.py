"""Peak process memory per board stored by A*, BFS and DFS: the figures behind --max-memory.

    python benchmarks/graph_memory.py                  # 2**20 .. 2**22 boards per algorithm

A* is measured twice: with parent pruning it runs the packed kernel (solver/astar.py, 3×3
and 4×4), with FSM pruning the general one (solver/graphsearch.py, also 5×5). Each run is
a fresh process that warms the kernel, notes its peak RSS, then runs the
search on Korf's instance #1 with a cap of S stored boards (it stops with
``budget_exceeded``/``memory`` before its node store would double past S) and notes the
peak RSS again. The figure is (peak after - peak before) / S; the worst over the caps is
what ``solver.solve.BYTES_PER_STATE`` must be at least.
"""

from __future__ import annotations

import argparse
import json
import resource
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
KORF1 = "14 13 15 7 11 12 9 5 6 0 2 1 4 8 10 3"


def measure(algorithm: str, states: int) -> dict:
    """In this process: the peak-RSS growth of one capped search (``astar-fsm``: A* with
    FSM pruning)."""
    import numpy as np

    from tilesweep.solver import Board, goal_tiles, parse_heuristic, search
    from tilesweep.solver.fsm import automaton
    from tilesweep.solver.heuristics import kernel_heuristic
    from tilesweep.solver.limits import UNLIMITED, make_limits
    from tilesweep.solver.solve import SolveResult

    goal = goal_tiles("blank-first", 4)
    H = kernel_heuristic(parse_heuristic("manhattan", 4, goal), 4, goal)

    name, _, prune = algorithm.partition("-")
    fsm = automaton(4, 4) if prune else None  # a shallow one: building it adds no peak

    def run(tiles, cap):
        board = Board(tiles, 4)
        result = SolveResult(board.text(), 4, "blank-first", name, "manhattan", "")
        return search.run(name, board, goal, H, make_limits(UNLIMITED, None, cap), result, fsm)

    run(Board.goal(4, "blank-first").apply("R").tiles, 2048)  # compile or load the kernel
    np.zeros(1)
    before = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss * 1024
    result = run(tuple(map(int, KORF1.split())), states)
    after = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss * 1024
    return {"algorithm": algorithm, "states": states, "status": result.status,
            "reason": result.status_reason, "nodes_generated": result.nodes_generated,
            "bytes_per_state": (after - before) / states}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--child", nargs=2, metavar=("ALGORITHM", "STATES"), help=argparse.SUPPRESS)
    parser.add_argument("--powers", type=int, nargs="+", default=[20, 21, 22])
    parser.add_argument("--algorithms", nargs="+", default=["astar", "astar-fsm", "bfs", "dfs"])
    args = parser.parse_args()
    if args.child:
        print(json.dumps(measure(args.child[0], int(args.child[1]))))
        return
    worst = {}
    for algorithm in args.algorithms:
        for power in args.powers:
            out = subprocess.run([sys.executable, __file__, "--child", algorithm, str(1 << power)], check=True,
                                 capture_output=True, text=True, cwd=ROOT).stdout
            row = json.loads(out)
            worst[algorithm] = max(worst.get(algorithm, 0), row["bytes_per_state"])
            print(f"{algorithm:<9} cap 2**{power} boards: {row['status']}/{row['reason']} after "
                  f"{row['nodes_generated']:,} nodes, {row['bytes_per_state']:.1f} bytes per board")
    print("worst:", {k: round(v, 1) for k, v in worst.items()})


if __name__ == "__main__":
    main()
