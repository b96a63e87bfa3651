"""Nodes per second of IDA* + linear conflicts against IDA* + Manhattan distance, same run.

    python benchmarks/lines_speed.py                        # Korf's first 30, one round
    python benchmarks/lines_speed.py --first 10 --repeats 3 --prune fsm
    python benchmarks/lines_speed.py -H linear-conflict --write-counts lc.json   # counts only
    python benchmarks/lines_speed.py --check-counts lc.json # same counts as that file's?

Each heuristic solves the same Korf instances (blank-first goal) in one process, the two
alternating instance by instance (and round by round, best CPU time of ``--repeats`` per
solve), so the machine's load falls on both alike. The figure is the ratio of nodes
generated per CPU second: linear conflicts over Manhattan, per instance and over all. The
load average is printed at the start and the end. ``--write-counts`` keeps each solve's
status, cost, nodes generated and expanded and iteration table (run it with another
checkout first on ``PYTHONPATH``, e.g. a folder holding a ``tilesweep`` link to it, to
compare with ``--check-counts``).
"""

from __future__ import annotations

import argparse
import json
import os
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from tilesweep.jobs.runrecord import machine_line  # noqa: E402
from tilesweep.jobs.sources import KORF100, read_instance_file  # noqa: E402
from tilesweep.solver import Board, solve  # noqa: E402

HEURISTICS = ("manhattan", "linear-conflict")


def counts(result) -> dict:
    """What must not change between two versions of a kernel."""
    return {"status": result.status, "cost": result.cost, "generated": result.nodes_generated,
            "expanded": result.nodes_expanded, "iterations": result.iterations}


def load() -> str:
    return " ".join(f"{x:.1f}" for x in os.getloadavg())


def measure(boards, heuristics, repeats: int, prune: str) -> dict:
    """Best CPU seconds and counts of each (heuristic, instance), solves alternating."""
    for h in heuristics:  # compile, build tables
        solve(Board.goal(4, "blank-first").apply("R"), "blank-first", "idastar", h, prune=prune)
    best: dict = {}
    for _ in range(repeats):
        for number, board in enumerate(boards, 1):
            for h in heuristics:
                start = time.process_time()
                result = solve(board, "blank-first", "idastar", h, prune=prune)
                cpu = time.process_time() - start
                if (h, number) not in best or cpu < best[h, number][0]:
                    best[h, number] = (cpu, counts(result))
    return best


def report(best, boards, heuristics) -> None:
    """A line per instance and the totals; the ratio when both heuristics ran."""
    both = set(HEURISTICS) <= set(heuristics)
    total = {h: [0, 0.0] for h in heuristics}
    ratios = []
    for number in range(1, len(boards) + 1):
        cells, rates = [], {}
        for h in heuristics:
            cpu, c = best[h, number]
            total[h][0] += c["generated"]
            total[h][1] += cpu
            rates[h] = c["generated"] / cpu
            cells.append(f"{h} {c['generated']:,} nodes {cpu:.3f} s {rates[h] / 1e6:.1f} M/s")
        if both:
            ratios.append(rates["linear-conflict"] / rates["manhattan"])
            cells.append(f"ratio {ratios[-1]:.2f}")
        print(f"#{number}: " + "; ".join(cells), flush=True)
    for h, (nodes, cpu) in total.items():
        print(f"all {h}: {nodes:,} nodes, {cpu:.2f} CPU s, {nodes / cpu / 1e6:.1f} M nodes/s")
    if both:
        lc, md = total["linear-conflict"], total["manhattan"]
        print(f"linear-conflict / manhattan nodes/s: {lc[0] / lc[1] / (md[0] / md[1]):.3f} over all; "
              f"per instance min {min(ratios):.3f}, median {sorted(ratios)[len(ratios) // 2]:.3f}")


def check(best, path: Path) -> None:
    """Exit 1 unless every count this run shares with the file's is equal."""
    other = json.loads(path.read_text())
    shared = [key for key in other if tuple(json.loads(key)) in best]
    bad = [key for key in shared if best[tuple(json.loads(key))][1] != other[key]]
    print(f"counts against {path}: {len(shared) - len(bad)} of {len(shared)} equal")
    if bad or not shared:
        print("differ: " + ", ".join(bad))
        raise SystemExit(1)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--first", type=int, default=30, help="Korf's instances 1..FIRST")
    parser.add_argument("--repeats", type=int, default=1, help="rounds; the best CPU time of each solve")
    parser.add_argument("--prune", default="parent", help="parent or fsm[:DEPTH], for both heuristics")
    parser.add_argument("-H", "--heuristic", action="append", choices=HEURISTICS,
                        help="only these (default both)")
    parser.add_argument("--write-counts", type=Path, help="write each solve's counts to this JSON file")
    parser.add_argument("--check-counts", type=Path, help="compare the counts with this file's")
    args = parser.parse_args()
    heuristics = tuple(args.heuristic or HEURISTICS)
    boards = [Board(tiles, 4) for tiles in read_instance_file(str(KORF100), 4)[:args.first]]
    print(machine_line())
    print(f"load average at the start: {load()}", flush=True)
    best = measure(boards, heuristics, args.repeats, args.prune)
    report(best, boards, heuristics)
    print(f"load average at the end: {load()}")
    if args.write_counts:
        args.write_counts.write_text(json.dumps({json.dumps(list(k)): v[1] for k, v in best.items()}))
    if args.check_counts:
        check(best, args.check_counts)


if __name__ == "__main__":
    main()
