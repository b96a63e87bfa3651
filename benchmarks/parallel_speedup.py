"""Parallel IDA* of one board against serial IDA*: wall time, speed-up and node counts.

    python benchmarks/parallel_speedup.py                     # Korf #1, Manhattan, 2 workers
    python benchmarks/parallel_speedup.py --korf 88 --repeats 1

Serial IDA* runs in this process; parallel IDA* (``solve --parallel``) on embedded
LocalClusters of one and of ``--workers`` processes, once stopping where serial IDA*
stops (the default: the same nodes as serial IDA*, for any workers) and once searching the
last iteration whole (``--complete-last-iteration``). Runs alternate;
each line gives wall seconds of the search (the cluster's start and the kernels'
compilation excluded), the 1-minute load average before and after the run, and the node
counts, which must be serial IDA*'s for every iteration before the last, and for every
iteration and the moves when stopping at the goal. The same work, the
completed iterations, is also timed on both sides: parallel by its iterations' wall times,
serial at its overall node rate (its kernel does not time iterations). The Dask overhead of an
iteration is estimated from the iterations that generate under 10,000 nodes (their
search takes microseconds, so their wall time is Dask's round trip).
"""

from __future__ import annotations

import argparse
import os
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from tilesweep.cluster.connect import connect  # noqa: E402
from tilesweep.cluster.parallel import dask_runner  # noqa: E402
from tilesweep.jobs.runrecord import machine_line  # noqa: E402
from tilesweep.jobs.sources import KORF100, read_instance_file  # noqa: E402
from tilesweep.solver import Board, solve  # noqa: E402
from tilesweep.solver.options import check_split_depth  # noqa: E402


def load() -> str:
    return f"load {os.getloadavg()[0]:.1f}"


def parallel_line(label: str, par, serial, completed: int, before: str) -> None:
    x = par.extra
    same = "equal" if x["nodes_completed_iterations"] == completed and par.cost == serial.cost else "DIFFER"
    if "stop" in label:  # stopping where serial IDA* stops: every count and the moves are its own
        same = "all equal" if (par.iterations, par.nodes_expanded, par.moves) == (
            serial.iterations, serial.nodes_expanded, serial.moves) and same == "equal" else "DIFFER"
    small = [s for s, it in zip(x["iteration_seconds"], par.iterations, strict=True) if it["nodes_generated"] < 10_000]
    overhead = f"{1000 * sum(small) / len(small):.0f} ms" if small else "-"
    serial_done = serial.seconds * completed / serial.nodes_generated
    par_done = sum(x["iteration_seconds"][:-1])
    print(f"{label:<28} {par.seconds:8.3f} s  {before}  {par.nodes_generated:,} nodes (completed iterations "
          f"{x['nodes_completed_iterations']:,}: {same}; last {x['nodes_last_iteration']:,}); completed "
          f"iterations {par_done:.3f} s (serial ~{serial_done:.3f} s); small iteration {overhead}; after: {load()}",
          flush=True)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--korf", type=int, default=1, help="Korf instance number (1-100)")
    parser.add_argument("--heuristic", default="manhattan")
    parser.add_argument("--workers", type=int, default=2)
    parser.add_argument("--split-depth", type=int, default=None)
    parser.add_argument("--repeats", type=int, default=2)
    parser.add_argument("--modes", choices=("both", "stop", "whole"), default="both",
                        help="stop where serial IDA* stops, search the whole last iteration, or both")
    args = parser.parse_args()
    depth = check_split_depth(args.split_depth, 4)
    board = Board(read_instance_file(str(KORF100), 4)[args.korf - 1], 4)
    print(machine_line())
    print(f"Korf #{args.korf}, {args.heuristic}, 1 and {args.workers} workers, split depth {depth}")
    solve(Board.goal(4, "blank-first").apply("R"), "blank-first", "idastar", args.heuristic)  # compile
    best: dict[str, float] = {}
    modes = [mode for mode in ("stop at goal", "whole last iteration") if args.modes in ("both", mode.split()[0])]
    with connect(workers=1) as one, connect(workers=args.workers) as many:
        runners = {f"{n} worker{'s' * (n > 1)}, {mode}":
                   dask_runner(client, None, depth, mode == "whole last iteration")
                   for mode in modes for n, client in ((1, one), (args.workers, many))}
        for _ in range(args.repeats):
            before = load()
            serial = solve(board, "blank-first", "idastar", args.heuristic)
            completed = sum(it["nodes_generated"] for it in serial.iterations[:-1])
            best["serial"] = min(best.get("serial", float("inf")), serial.seconds)
            print(f"{'serial':<28} {serial.seconds:8.3f} s  {before}  {serial.nodes_generated:,} nodes (completed "
                  f"iterations {completed:,}, last {serial.iterations[-1]['nodes_generated']:,}); after: {load()}",
                  flush=True)
            for label, runner in runners.items():
                before = load()
                par = solve(board, "blank-first", "idastar", args.heuristic, split=runner)
                best[label] = min(best.get(label, float("inf")), par.seconds)
                parallel_line(label, par, serial, completed, before)
    print(f"best of {args.repeats}: " + ", ".join(f"{label} {seconds:.3f} s" for label, seconds in best.items()))
    for mode in modes:
        one_s, many_s = best[f"1 worker, {mode}"], best[f"{args.workers} workers, {mode}"]
        print(f"{mode}: {args.workers} workers {one_s / many_s:.2f}x one worker, {best['serial'] / many_s:.2f}x serial")


if __name__ == "__main__":
    main()
