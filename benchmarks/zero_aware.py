"""Zero-aware pattern databases against tilesweep's own on Korf & Felner's 24-puzzles (or
Korf's 15-puzzles): nodes, CPU seconds and costs per instance, parent and automaton pruning.

    python benchmarks/zero_aware.py --plain-store /work/ystore --store /work/zstore
    python benchmarks/zero_aware.py --size 4 -H pdb:7-8+reflect --instances 1-100 ...

Each instance is solved with every (tables, pruning) configuration one after the other in
this process (the order reversed on every other instance), the CPU clock summed around each
solve; the costs must equal the published lengths. The zero-aware heuristic is ``-H`` with
``+zero-aware``, its tables read from ``--store``; the plain ones from ``--plain-store``.
"""

from __future__ import annotations

import argparse
import os
import sys
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))
sys.path.insert(0, str(HERE.parent))

from korf24_pruning import SIX_EASIEST  # noqa: E402
from pdb_yardstick import run_kernel  # noqa: E402

from tilesweep.jobs.published import published_figures  # noqa: E402
from tilesweep.jobs.sources import KORF50_24, KORF100  # noqa: E402
from tilesweep.pdb_store import open_store, tables_for  # noqa: E402
from tilesweep.solver import goal_tiles, parse_heuristic  # noqa: E402
from tilesweep.solver.fsm import automaton, parse_pruning  # noqa: E402
from tilesweep.solver.heuristics import kernel_heuristic  # noqa: E402
from tilesweep.solver.kernels import near_goal  # noqa: E402
from tilesweep.solver.limits import make_limits  # noqa: E402
from tilesweep.solver.search import idastar_call  # noqa: E402


def numbers_of(text: str) -> list[int]:
    """``1-5,9`` as [1, 2, 3, 4, 5, 9]."""
    out = []
    for part in text.split(","):
        first, _, last = part.partition("-")
        out += list(range(int(first), int(last or first) + 1))
    return out


def kernel_H(name: str, size: int, goal, store_dir):
    spec = parse_heuristic(name, size, goal)
    with open_store(store_dir) as store:
        return kernel_heuristic(spec, size, goal, tables_for(spec, size, goal, store, build=False))


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--size", type=int, default=5)
    parser.add_argument("-H", "--heuristic", default="pdb:6-6-6-6+reflect", help="the plain heuristic")
    parser.add_argument("--store", required=True, help="the store of the zero-aware tables")
    parser.add_argument("--plain-store", required=True, help="the store of the plain tables")
    parser.add_argument("--instances", default=None, help="instance numbers, e.g. 38,40 or 1-100 "
                        "(default: Korf & Felner's six easiest on 5x5, Korf's 100 on 4x4)")
    parser.add_argument("--prunes", default="parent,fsm", help="parent, fsm (the width's default depth), fsm:DEPTH")
    args = parser.parse_args()
    size, goal = args.size, goal_tiles("blank-first", args.size)
    published = published_figures(KORF50_24 if size == 5 else KORF100)
    numbers = numbers_of(args.instances or (SIX_EASIEST if size == 5 else "1-100"))
    zero = args.heuristic + "+zero-aware"
    heuristics = {"plain": kernel_H(args.heuristic, size, goal, args.plain_store),
                  "zero-aware": kernel_H(zero, size, goal, args.store)}
    print(f"{time.strftime('%Y-%m-%d %H:%M UTC', time.gmtime())}, {args.heuristic} against {zero}, load average "
          + " ".join(f"{x:.2f}" for x in os.getloadavg()), flush=True)
    calls = {}
    for prune in args.prunes.split(","):
        pruning = parse_pruning(prune, size)
        fsm = automaton(size, pruning.depth) if pruning.kind == "fsm" else None
        for label, H in heuristics.items():
            calls[f"{label} {prune}"] = idastar_call(size, goal, H, make_limits(), fsm)[1]
    for call in calls.values():
        call(near_goal(goal, size))  # compiled outside the clock
    totals = {label: [0, 0.0] for label in calls}
    for k, number in enumerate(numbers):
        line = [f"#{number} (length {published[number].length})"]
        for label in (list(calls) if k % 2 == 0 else list(calls)[::-1]):
            rows, cpu = run_kernel(calls[label], [published[number].tiles])
            cost, generated, _ = rows[0]
            if cost != published[number].length:
                sys.exit(f"#{number} {label}: cost {cost}, published {published[number].length}")
            totals[label][0] += generated
            totals[label][1] += cpu
            line.append(f"{label} {generated:,} nodes {cpu:.2f} CPU s")
        if size == 5 or k % 10 == 9 or k == len(numbers) - 1:
            print("; ".join(line) + f"; load {os.getloadavg()[0]:.2f}", flush=True)
    base_nodes, base_cpu = totals[next(iter(calls))]
    for label, (nodes, cpu) in totals.items():
        print(f"all: {label} {nodes:,} nodes, {cpu:.2f} CPU s, {nodes / cpu / 1e6:.1f} M nodes/s; against "
              f"{next(iter(calls))}: nodes {base_nodes / nodes:.2f}x fewer, CPU {base_cpu / cpu:.2f}x less")
    print("load average " + " ".join(f"{x:.2f}" for x in os.getloadavg()) + " at the end")


if __name__ == "__main__":
    main()
