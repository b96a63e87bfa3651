"""How good are the 8-puzzle pattern databases? Every one of the 181,440 states, both goals.

    python benchmarks/pdb_quality.py [--store DIR] [--astar-every K]

For each heuristic: the mean h, the largest h - true distance (must be <= 0: admissible),
the share of states where h is above, equal to and below Manhattan, and, for every K-th
state (K = 1: all of them), whether A* with it returns the true distance. True distances
come from a breadth-first search from the goal over all states.
"""

from __future__ import annotations

import argparse
import sys
import tempfile
import time
from collections import deque
from itertools import permutations
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from tilesweep.jobs.runrecord import machine_line  # noqa: E402
from tilesweep.pdb_store import open_store, tables_for  # noqa: E402
from tilesweep.solver import Board, goal_tiles, is_solvable, parse_heuristic, solve  # noqa: E402
from tilesweep.solver.geometry import neighbours  # noqa: E402
from tilesweep.solver.heuristics import kernel_heuristic  # noqa: E402
from tilesweep.solver.hstate import h_many  # noqa: E402

HEURISTICS = ["manhattan", "linear-conflict", "pdb:4-4", "pdb:5-3", "pdb:4-4+reflect", "pdb:5-3+reflect"]


def true_distances(goal: tuple[int, ...]) -> dict[tuple[int, ...], int]:
    """Distance to ``goal`` of every state that reaches it, by BFS from the goal."""
    table = neighbours(3)
    dist = {goal: 0}
    queue = deque([goal])
    while queue:
        state = queue.popleft()
        blank = state.index(0)
        for target in table[blank]:
            if target >= 0:
                nxt = list(state)
                nxt[blank], nxt[target] = nxt[target], 0
                nxt = tuple(nxt)
                if nxt not in dist:
                    dist[nxt] = dist[state] + 1
                    queue.append(nxt)
    return dist


def report_goal(goal_name: str, store, astar_every: int) -> None:
    goal = goal_tiles(goal_name, 3)
    dist = true_distances(goal)
    states = [s for s in permutations(range(9)) if is_solvable(s, goal, 3)]
    boards = np.array(states, dtype=np.int8)
    true = np.array([dist[s] for s in states])
    print(f"\ngoal {goal_name}: {len(states):,} states, mean true distance {true.mean():.3f}")
    print(f"{'heuristic':<17} {'mean h':>7} {'max h-d':>7} {'> manh':>7} {'= manh':>7} {'< manh':>7} "
          f"{'A* checked':>10} {'A* wrong':>8} {'seconds':>7}")
    values = {}
    for name in HEURISTICS:
        spec = parse_heuristic(name, 3, goal)
        tables = tables_for(spec, 3, goal, store)
        h = h_many(boards, 3, kernel_heuristic(spec, 3, goal, tables))
        values[name] = h
        manh = values["manhattan"]
        start = time.perf_counter()
        sample = range(0, len(states), astar_every)
        wrong = sum(solve(Board(states[i], 3), goal, "astar", name, tables).cost != true[i] for i in sample)
        print(f"{name:<17} {h.mean():>7.3f} {int((h - true).max()):>7} {np.mean(h > manh):>7.1%} "
              f"{np.mean(h == manh):>7.1%} {np.mean(h < manh):>7.1%} {len(sample):>10,} {wrong:>8} "
              f"{time.perf_counter() - start:>7.1f}")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--store", help="PDB store (default: a temporary one)")
    parser.add_argument("--astar-every", type=int, default=1, help="run A* on every K-th state")
    args = parser.parse_args()
    print(machine_line())
    with tempfile.TemporaryDirectory() as tmp, open_store(args.store or tmp) as store:
        for goal_name in ("blank-last", "blank-first"):
            report_goal(goal_name, store, args.astar_every)


if __name__ == "__main__":
    main()
