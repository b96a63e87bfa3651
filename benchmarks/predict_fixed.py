"""KRE where its claim lies: fixed thresholds over uniform random start states.

    python benchmarks/predict_fixed.py --size 4 --heuristic manhattan --count 1000 --bounds 30,32,34,36,38,40

For ``count`` start states drawn uniformly (seed ``--seed``, as the distributions' sampler
draws them, :func:`solver.hdist.random_states`) and each threshold d, the nodes the whole
IDA* iteration with threshold d generates from each, counted by searching it level by level
(:func:`solver.cdp.real_start`, not stopping at a solution; the children of goal boards at
the last level are CDP's expectation), against KRE's prediction for the state's blank cell
and CDP's (one step, from the start state alone). Prints the means (the measured one with
its standard error: the mean is carried by the few starts of low h, so it needs many) and
the ratio of the means per threshold, and the machine line.

``--by-distance`` (8-puzzle: true distances from a BFS of every state) sets beside it the
sample IDA*'s own completed iterations are: the starts whose true distance exceeds d (an
iteration IDA* finishes without a solution), those that do not, and, among the former, the
ratio by the gap d - h(start) (the iteration's number, counted from 0, times 2).
"""

from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from tilesweep.jobs.predict import _tables, h_of, make_model  # noqa: E402
from tilesweep.jobs.quality import distances_of  # noqa: E402
from tilesweep.jobs.runrecord import machine_line  # noqa: E402
from tilesweep.pdb_store import open_store  # noqa: E402
from tilesweep.solver.board import goal_tiles  # noqa: E402
from tilesweep.solver.bruteforce import tree  # noqa: E402
from tilesweep.solver.cdp import cdp  # noqa: E402
from tilesweep.solver.hdist import random_states  # noqa: E402
from tilesweep.solver.kre import kre  # noqa: E402


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--size", type=int, default=4)
    parser.add_argument("--goal", default="blank-first")
    parser.add_argument("--heuristic", default="manhattan")
    parser.add_argument("--count", type=int, default=1000)
    parser.add_argument("--seed", type=int, default=12345)
    parser.add_argument("--bounds", default="30,32,34,36,38,40")
    parser.add_argument("--store", default=None)
    parser.add_argument("--by-distance", action="store_true", help="split by the starts' true distance (--size 3)")
    args = parser.parse_args()
    if args.by_distance and args.size != 3:
        parser.error(f"--by-distance needs the 8-puzzle's true distances; got --size {args.size}, expected 3")
    goal = goal_tiles(args.goal, args.size)
    bounds = [int(b) for b in args.bounds.split(",")]
    store = open_store(args.store)
    model = make_model(args.heuristic, args.size, goal, _tables(args.heuristic, args.size, goal, store), store)
    one, two, _ = model.conditionals
    starts = random_states(args.size, goal, args.count, args.seed)
    measured, kre_p, cdp_p = (np.zeros((args.count, len(bounds))) for _ in range(3))
    h0s = np.zeros(args.count, dtype=np.int64)
    began = time.perf_counter()
    for i, tiles in enumerate(starts.tolist()):
        t = tree(args.size, tiles.index(0), model.pruning)
        kre_p[i] = kre(t, model.dist.cells, bounds)[0]
        cdp_p[i] = cdp(t, tiles, args.size, model.H, one, two, False, model.dist.spread, bounds)
        h0 = h0s[i] = int(h_of(model, starts[i:i + 1])[0])
        for j, d in enumerate(bounds):  # a start above the threshold generates itself only
            measured[i, j] = 1 if h0 > d else cdp(t, tiles, args.size, model.H, one, two, False, model.dist.spread,
                                                  [d], depth=d)[0]
    print(f"{args.heuristic}, {args.size}x{args.size}, {args.count} uniform random start states (seed {args.seed}); "
          f"distributions: {model.describe()}; {time.perf_counter() - began:.0f} s")
    print("| threshold | measured, mean (standard error) | KRE, mean | KRE / measured | CDP, mean | CDP / measured |")
    print("|---|---|---|---|---|---|")
    for j, d in enumerate(bounds):
        m, k, c = measured[:, j].mean(), kre_p[:, j].mean(), cdp_p[:, j].mean()
        error = measured[:, j].std(ddof=1) / np.sqrt(args.count)
        print(f"| {d} | {m:,.1f} ({error:,.1f}) | {k:,.1f} | {k / m:.3f} | {c:,.1f} | {c / m:.3f} |")
    if args.by_distance:
        by_distance(bounds, measured, cdp_p, h0s, distances_of(starts, args.size, goal))
    print(machine_line())


def by_distance(bounds, measured, cdp_p, h0s, hstar) -> None:
    """CDP / measured (sums over the starts, each with h at most the threshold d) for all
    starts, for those of true distance above d (IDA*'s completed iterations) and the rest;
    then among the former by the gap d - h(start)."""
    def ratio(masks):
        """The ratio of the sums over every (threshold index, starts) pair, and their count."""
        n = sum(int(mask.sum()) for _, mask in masks)
        predicted = sum(cdp_p[mask, j].sum() for j, mask in masks)
        return f"{predicted / sum(measured[mask, j].sum() for j, mask in masks):.3f} ({n})" if n else None

    print("\n| threshold d | CDP / measured: all starts (n) | true distance > d | true distance <= d |")
    print("|---|---|---|---|")
    for j, d in enumerate(bounds):
        within = h0s <= d
        cells = [ratio([(j, within & split)]) or "-" for split in (hstar >= 0, hstar > d, hstar <= d)]
        print(f"| {d} | {' | '.join(cells)} |")
    print("\n| d - h(start) | CDP / measured, true distance > d (start-threshold pairs) |")
    print("|---|---|")
    for gap in range(0, max(bounds) + 1, 2):
        cell = ratio([(j, (h0s <= d) & (hstar > d) & (d - h0s == gap)) for j, d in enumerate(bounds)])
        if cell:
            print(f"| {gap} | {cell} |")


if __name__ == "__main__":
    main()
