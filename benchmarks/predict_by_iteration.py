"""The predictions of a finished IDA* sweep by iteration, counted from each instance's first.

    python benchmarks/predict_by_iteration.py sweeps/NAME --epsilon trees --real-depth 10

Through ``tilesweep.predict(..., iterations=True)`` (``tilesweep predict``'s comparison of
completed iterations): for each method, the sum ratio predicted / measured over every
completed iteration, then per iteration number (1: each instance's first) the instances
that completed it, the measured nodes summed over them and each method's sum over the same
iterations divided by them. With ``--instances``, each instance's ratio of sums too. Prints
the machine line and the seconds the predictions took.
"""

from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

import tilesweep  # noqa: E402
from tilesweep.jobs.predict import METHODS  # noqa: E402
from tilesweep.jobs.runrecord import machine_line  # noqa: E402


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("sweep")
    parser.add_argument("--heuristic", "-H", default=None, help="only this heuristic of the sweep")
    parser.add_argument("--epsilon", default="off", choices=("off", "states", "trees"), help="cdp-eps too")
    parser.add_argument("--real-depth", type=int, default=0)
    parser.add_argument("--store", default=None)
    parser.add_argument("--instances", action="store_true", help="print each instance's ratios too")
    args = parser.parse_args()
    start = time.process_time()
    frame = tilesweep.predict(args.sweep, store=args.store, real_depth=args.real_depth, iterations=True,
                              epsilon=args.epsilon)
    seconds = time.process_time() - start
    for heuristic, rows in frame.groupby("heuristic", sort=False):
        if args.heuristic and heuristic != args.heuristic:
            continue
        methods = [m for m in METHODS if m in rows and rows[m].notna().all()]
        rows = rows.assign(number=rows.groupby("instance").cumcount() + 1)
        print(f"{heuristic}: {len(rows):,} completed iterations of {rows['instance'].nunique()} instances, "
              f"{int(rows['measured'].sum()):,} nodes")
        print("sum ratio  " + "  ".join(f"{m} {rows[m].sum() / rows['measured'].sum():.3g}" for m in methods))
        print("| iteration | instances | measured | " + " | ".join(f"{m} / measured" for m in methods) + " |")
        for number, it in rows.groupby("number"):
            ratios = " | ".join(f"{it[m].sum() / it['measured'].sum():.3g}" for m in methods)
            print(f"| {number} | {it['instance'].nunique()} | {int(it['measured'].sum()):,} | {ratios} |")
        if args.instances:
            sums = rows.groupby("instance")[["measured", *methods]].sum()
            for instance, s in sums.iterrows():
                print(f"#{instance + 1} {int(s['measured']):,} " + " ".join(f"{m} {s[m] / s['measured']:.3g}"
                                                                       for m in methods))
    print(f"predictions: {seconds:.1f} CPU s")
    print(machine_line())


if __name__ == "__main__":
    main()
