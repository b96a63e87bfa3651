"""Move pruning by automaton against parent pruning on Korf & Felner's 24-puzzles, IDA* with
pattern databases: nodes, CPU seconds and costs per instance, and the automaton's build.

    python benchmarks/korf24_pruning.py --store DIR                      # the six easiest, fsm:12
    python benchmarks/korf24_pruning.py --store DIR --instances 38,40 --depths 10,12,14

Each instance is solved with parent pruning and with the automaton of each depth
(:mod:`solver.fsm`), one after the other in this process (the order reversed on every
other instance), the CPU clock summed around each solve; the costs must equal the
published lengths. The automaton of each depth is built first, in this process, its CPU
and wall seconds reported (the string search compiled beforehand, on a small width).
``PUBLISHED`` holds Korf & Felner's (2002) expansion counts of the 50 (with 6-6-6-6 and its
reflection, parent pruning); tilesweep counts one more node on each (the start board), so
``--project`` turns a configuration's measured rate and node ratio into CPU-hours for all 50.
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

from pdb_yardstick import run_kernel  # noqa: E402

from tilesweep.jobs.published import published_figures  # noqa: E402
from tilesweep.jobs.sources import KORF50_24  # noqa: E402
from tilesweep.pdb_store import open_store, tables_for  # noqa: E402
from tilesweep.solver import goal_tiles, parse_heuristic  # noqa: E402
from tilesweep.solver.fsm import build_automaton, duplicate_strings  # noqa: E402
from tilesweep.solver.heuristics import kernel_heuristic  # noqa: E402
from tilesweep.solver.kernels import near_goal  # noqa: E402
from tilesweep.solver.limits import make_limits  # noqa: E402
from tilesweep.solver.search import idastar_call  # noqa: E402

GOAL = goal_tiles("blank-first", 5)
SIX_EASIEST = "38,40,25,32,44,37"
# Korf & Felner (2002), the table of the 50 instances: nodes expanded with 6-6-6-6 and its
# reflection, parent pruning (transcribed in github.com/clausecker/24puzzle, doc/korf.txt).
PUBLISHED = {
    1: 2031102635, 2: 211884984525, 3: 21148144928, 4: 10991471966, 5: 2899007625, 6: 103460814368,
    7: 106321592792, 8: 116202273788, 9: 1818005616606, 10: 1519052821943, 11: 1654042891186,
    12: 624413663951, 13: 1959833487, 14: 1283051362385, 15: 173999717809, 16: 3803445934,
    17: 367150048758, 18: 987725030433, 19: 218284544233, 20: 312016177684, 21: 724024589335,
    22: 3592980531, 23: 171498441076, 24: 357290691483, 25: 292174444, 26: 12397787391, 27: 53444360033,
    28: 2258006870, 29: 4787505637, 30: 1634941420, 31: 26200330686, 32: 428222507, 33: 1062250612558,
    34: 481039271661, 35: 116131234743, 36: 2582008940, 37: 1496759944, 38: 38173507, 39: 161211472633,
    40: 65099578, 41: 26998190480, 42: 245852754920, 43: 55147320204, 44: 867106238, 45: 79148491306,
    46: 65675717510, 47: 30443173162, 48: 555085543507, 49: 108197305702, 50: 4156099168506,
}


def timed_build(depth: int):
    """The 5x5 automaton of ``depth``, its wall and CPU seconds."""
    wall, cpu = time.perf_counter(), time.process_time()
    table = build_automaton(5, depth)
    return table, time.perf_counter() - wall, time.process_time() - cpu


def main() -> None:
    from tilesweep.jobs.runrecord import machine_line

    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("-H", "--heuristic", default="pdb:6-6-6-6+reflect")
    parser.add_argument("--store", default=None, help="a PDB store holding the tables (default: TILESWEEP_STORE)")
    parser.add_argument("--instances", default=SIX_EASIEST, help="Korf & Felner's instance numbers")
    parser.add_argument("--depths", default="12", help="automaton depths, e.g. 10,12,14")
    args = parser.parse_args()
    numbers = [int(i) for i in args.instances.split(",")]
    published = published_figures(KORF50_24)
    spec = parse_heuristic(args.heuristic, 5, GOAL)
    with open_store(args.store) as store:
        H = kernel_heuristic(spec, 5, GOAL, tables_for(spec, 5, GOAL, store, build=False))
    print(machine_line())
    print(f"{time.strftime('%Y-%m-%d %H:%M UTC', time.gmtime())}, {args.heuristic}, load average "
          + " ".join(f"{x:.2f}" for x in os.getloadavg()), flush=True)
    duplicate_strings(3, 4)  # compile the string search
    calls = {"parent": idastar_call(5, GOAL, H, make_limits())[1]}
    for depth in (int(d) for d in args.depths.split(",")):
        table, wall, cpu = timed_build(depth)
        print(f"automaton fsm:{depth}: {table.strings:,} strings, {len(table.full) // 4:,} states, "
              f"built in {wall:.1f} s wall, {cpu:.1f} CPU s", flush=True)
        calls[f"fsm:{depth}"] = idastar_call(5, GOAL, H, make_limits(), table)[1]
    for call in calls.values():
        call(near_goal(GOAL, 5))  # compiled outside the clock
    totals = {label: [0, 0.0] for label in calls}
    for k, number in enumerate(numbers):
        board = [published[number].tiles]
        line = [f"#{number} (length {published[number].length})"]
        for label in (list(calls) if k % 2 == 0 else list(calls)[::-1]):
            rows, cpu = run_kernel(calls[label], board)
            cost, generated, _ = rows[0]
            if cost != published[number].length:
                sys.exit(f"#{number} {label}: cost {cost}, published {published[number].length}")
            totals[label][0] += generated
            totals[label][1] += cpu
            line.append(f"{label} {generated:,} nodes {cpu:.1f} CPU s")
        print("; ".join(line) + f"; load {os.getloadavg()[0]:.2f}", flush=True)
    base_nodes, base_cpu = totals["parent"]
    for label, (nodes, cpu) in totals.items():
        print(f"all: {label} {nodes:,} nodes, {cpu:.1f} CPU s, {nodes / cpu / 1e6:.1f} M nodes/s; against parent: "
              f"nodes {base_nodes / nodes:.2f}x fewer, CPU {base_cpu / cpu:.2f}x less; projected for the 50: "
              f"{sum(PUBLISHED.values()) * nodes / base_nodes / (nodes / cpu) / 3600:.0f} CPU-hours")
    print("load average " + " ".join(f"{x:.2f}" for x in os.getloadavg()) + " at the end")


if __name__ == "__main__":
    main()
