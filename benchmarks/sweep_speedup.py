"""Speed-up of 2 Dask workers over 1 on a 15-puzzle sweep (IDA*, Manhattan, walk:K instances).

Run: ``python benchmarks/sweep_speedup.py [--count N] [--walk K]``. Each cluster is started
(and its workers' kernels warmed by the plugin) before the clock; the wall time covers
submission, solving and writing the Parquet parts. The target is >= 1.8x on 2 cores.
"""

from __future__ import annotations

import argparse
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from sweep_overhead import machine  # noqa: E402

from cluster.connect import connect  # noqa: E402
from cluster.run import run_plan  # noqa: E402
from jobs.results import load_results  # noqa: E402
from jobs.spec import build_spec  # noqa: E402
from jobs.sweep import prepare  # noqa: E402


def timed_sweep(tmp: str, workers: int, args) -> tuple[float, int]:
    options = dict(size=4, instances=f"walk:{args.walk}", count=args.count, seed=2, algorithms=("idastar",),
                   heuristics=("manhattan",), chunk_size=args.chunk, out=tmp, name=f"w{workers}")
    spec = build_spec(options, workers=workers)[0]
    plan = prepare(spec)
    with connect(workers=workers) as client:
        client.run(lambda: None)
        start = time.perf_counter()
        run_plan(client, plan)
        wall = time.perf_counter() - start
    return wall, int(load_results(spec.folder)["nodes_generated"].sum())


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--count", type=int, default=400)
    parser.add_argument("--walk", type=int, default=50)
    parser.add_argument("--chunk", type=int, default=10)
    args = parser.parse_args()
    print(machine())
    with tempfile.TemporaryDirectory() as tmp:
        one, nodes1 = timed_sweep(tmp, 1, args)
        two, nodes2 = timed_sweep(tmp, 2, args)
    assert nodes1 == nodes2
    print(f"15-puzzle idastar manhattan, {args.count} walk:{args.walk} instances, chunks of {args.chunk}, "
          f"{nodes1:,} nodes")
    print(f"1 worker: {one:.2f} s ({nodes1 / one:,.0f} nodes/s)   2 workers: {two:.2f} s "
          f"({nodes2 / two:,.0f} nodes/s)")
    print(f"speed-up: {one / two:.2f}x (target >= 1.8x)")


if __name__ == "__main__":
    main()
