"""``max(...)`` of two pattern databases against each alone, with IDA* on Korf's instances:
nodes and nodes/s of ``pdb:5-5-5``, ``pdb:6-6-3`` (the PDB kernel), ``pdb:6-6-3`` in the
general IDA* kernel (the one a max runs in: the yardstick of its per-node cost) and
``max(pdb:5-5-5,pdb:6-6-3)``; equal costs asserted.

    python benchmarks/pdb_max.py 2 5 13      # Korf instance ids (1-based)
"""

import os
import sys
import time

import numpy as np
from plugin_speed import korf

from tilesweep.pdb_store import open_store, tables_for
from tilesweep.solver import goal_tiles, parse_heuristic, solve
from tilesweep.solver.geometry import neighbours64
from tilesweep.solver.heuristics import kernel_heuristic
from tilesweep.solver.idastar import _idastar
from tilesweep.solver.kernels import goal_positions, near_goal
from tilesweep.solver.limits import make_limits

PARTS = ("pdb:5-5-5", "pdb:6-6-3")
MAX = f"max({','.join(PARTS)})"


def general_kernel(board, goal, spec, tables):
    """IDA* of ``spec`` in the general kernel: (nodes, cost, seconds)."""
    H = kernel_heuristic(spec, 4, goal, tables)
    args = (4, goal_positions(goal), neighbours64(4), H, make_limits(), np.zeros(4, np.int32), False)
    _idastar(near_goal(goal, 4), *args)  # compiled or loaded before the clock
    start = time.perf_counter()
    status, _, cost, generated, *_ = _idastar(board.array(), *args)
    return int(generated), int(cost), time.perf_counter() - start


def main(ids):
    goal = goal_tiles("blank-first", 4)
    print(f"load average {os.getloadavg()[0]:.1f}")
    with open_store() as store:
        tables = {h: tables_for(parse_heuristic(h, 4, goal), 4, goal, store) for h in (*PARTS, MAX)}
        for i, board in korf(ids).items():
            runs = {h: solve(board, goal, "idastar", h, tables[h]) for h in (*PARTS, MAX)}
            assert len({r.cost for r in runs.values()}) == 1
            line = [f"Korf #{i} (cost {runs[MAX].cost}):"]
            for h, r in runs.items():
                line.append(f"{h} {r.nodes_generated:,} nodes {r.nodes_generated / r.seconds / 1e6:.2f} M/s;")
            nodes, cost, seconds = general_kernel(board, goal, parse_heuristic(PARTS[1], 4, goal), tables[PARTS[1]])
            assert (nodes, cost) == (runs[PARTS[1]].nodes_generated, runs[PARTS[1]].cost)
            line.append(f"{PARTS[1]} in the general kernel {nodes / seconds / 1e6:.2f} M/s")
            print(" ".join(line))
    print(f"load average {os.getloadavg()[0]:.1f}")


if __name__ == "__main__":
    main([int(x) for x in sys.argv[1:]] or [2, 5, 13])
