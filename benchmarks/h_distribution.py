"""How long sampling a heuristic's distribution takes: a million uniform random boards.

    python benchmarks/h_distribution.py [--store DIR] [--count N] [--seed S]

For each heuristic of the 15- and 24-puzzle (blank-first goal; a ``pdb:`` one only when its
tables are in the store): :func:`tilesweep.jobs.quality.sampled_distribution` over N boards
(default 1,000,000), after a warm-up call that compiles the kernels; wall and process CPU
seconds, the mean h, the machine and the load average.
"""

from __future__ import annotations

import argparse
import os
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from tilesweep.jobs.quality import sampled_distribution  # noqa: E402
from tilesweep.jobs.runrecord import machine_line  # noqa: E402
from tilesweep.pdb_store import MissingTableError, open_store, tables_for  # noqa: E402
from tilesweep.solver import goal_tiles, parse_heuristic  # noqa: E402

HEURISTICS = {4: ["manhattan", "linear-conflict", "walking-distance", "pdb:7-8+reflect"],
              5: ["manhattan", "linear-conflict", "pdb:6-6-6-6+reflect"]}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--store", default=None)
    parser.add_argument("--count", type=int, default=1_000_000)
    parser.add_argument("--seed", type=int, default=1)
    args = parser.parse_args()
    print(machine_line())
    store = open_store(args.store)
    for size, names in HEURISTICS.items():
        goal = goal_tiles("blank-first", size)
        for name in names:
            try:
                tables = tables_for(parse_heuristic(name, size, goal), size, goal, store, build=False)
            except MissingTableError:
                print(f"{size * size - 1}-puzzle {name}: tables not in the store, left out")
                continue
            sampled_distribution(name, size, goal, tables, 10, 0)  # compiles
            wall, cpu = time.perf_counter(), time.process_time()
            found = sampled_distribution(name, size, goal, tables, args.count, args.seed)
            wall, cpu = time.perf_counter() - wall, time.process_time() - cpu
            print(f"{size * size - 1}-puzzle {name}: {args.count:,} boards in {wall:.2f} s wall, {cpu:.2f} s CPU; "
                  f"mean h {found.mean:.4f} (load average {os.getloadavg()[0]:.1f})")


if __name__ == "__main__":
    main()
