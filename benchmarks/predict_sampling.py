"""How long sampling a heuristic's distributions takes: a million uniform random 15-puzzles.

    python benchmarks/predict_sampling.py [--count 1000000] [--store DIR] [-H manhattan -H pdb:6-6-3+reflect]

For each heuristic, in one process after a warm-up call (kernels compiled): the seconds to
draw ``count`` uniform random states (:func:`solver.hdist.random_states`), to evaluate h on
them with the batch kernels, and to build every table :func:`solver.hdist.sampled_distributions`
keeps (h by blank cell; the one-step table over every move of each state; the two-step
table over one random move and every move after it: about 7 h evaluations per state), and
the same with a fifth as many tilted states (:func:`solver.hdist.tilted_states`, 300
Metropolis steps each). Wall
seconds (``time.perf_counter``) and process CPU seconds, the load average before and after,
and the machine line.
"""

from __future__ import annotations

import argparse
import os
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from tilesweep.jobs.predict import _tables  # noqa: E402
from tilesweep.jobs.runrecord import machine_line  # noqa: E402
from tilesweep.pdb_store import open_store  # noqa: E402
from tilesweep.solver.board import goal_tiles  # noqa: E402
from tilesweep.solver.hdist import random_states, sampled_distributions  # noqa: E402
from tilesweep.solver.heuristics import kernel_heuristic, parse_heuristic  # noqa: E402
from tilesweep.solver.search import heuristic_values  # noqa: E402


def timed(call):
    wall, cpu = time.perf_counter(), time.process_time()
    out = call()
    return out, time.perf_counter() - wall, time.process_time() - cpu


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--count", type=int, default=1_000_000)
    parser.add_argument("--store", default=None)
    parser.add_argument("-H", "--heuristic", action="append")
    args = parser.parse_args()
    goal = goal_tiles("blank-first", 4)
    store = open_store(args.store)
    print(f"load average before: {os.getloadavg()}")
    random_states(4, goal, 10, 0)
    boards, wall, cpu = timed(lambda: random_states(4, goal, args.count, 0))
    print(f"| step | heuristic | wall s | CPU s |\n|---|---|---|---|\n| {args.count:,} random states | - | "
          f"{wall:.2f} | {cpu:.2f} |")
    for name in args.heuristic or ["manhattan", "pdb:6-6-3+reflect"]:
        H = kernel_heuristic(parse_heuristic(name, 4, goal), 4, goal, _tables(name, 4, goal, store))
        sampled_distributions(4, goal, H, 1000, 0)
        _, wall, cpu = timed(lambda H=H: heuristic_values(boards, 4, H))
        print(f"| h of the {args.count:,} | {name} | {wall:.2f} | {cpu:.2f} |")
        _, wall, cpu = timed(lambda H=H: sampled_distributions(4, goal, H, args.count, 0))
        print(f"| every table (states, h, one and two steps) | {name} | {wall:.2f} | {cpu:.2f} |")
        _, wall, cpu = timed(lambda H=H: sampled_distributions(4, goal, H, args.count, 0, args.count // 5))
        print(f"| the same and {args.count // 5:,} tilted states | {name} | {wall:.2f} | {cpu:.2f} |")
    print(f"load average after: {os.getloadavg()}")
    print(machine_line())


if __name__ == "__main__":
    main()
