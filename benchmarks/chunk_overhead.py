"""A sweep chunk's time in one process against its search seconds: what Python and the batch
kernel add around the solves.

Run: ``python benchmarks/chunk_overhead.py [--chunks 8] [--chunk-size 20000]``.

Chunks of ``tilesweep sweep --size 3 --count 1000000 --algorithm idastar --heuristic
manhattan`` (the million-instance plan) go through :func:`solve_chunk_table` as a worker's
task does; each chunk's wall time is set against the sum of its rows' ``seconds``. The
first chunk loads the kernels and is not counted.
"""

from __future__ import annotations

import argparse
import time

import pyarrow.compute as pc

from tilesweep.jobs.runrecord import machine_line
from tilesweep.jobs.sources import InstanceSource
from tilesweep.jobs.spec import SweepSpec
from tilesweep.jobs.work import chunk_jobs, solve_chunk_table


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--chunks", type=int, default=8)
    parser.add_argument("--chunk-size", type=int, default=20_000)
    args = parser.parse_args()
    spec = SweepSpec(size=3, goal="blank-last", instances=InstanceSource("uniform"), count=1_000_000, seed=0,
                     algorithms=("idastar",), heuristics=("manhattan",), max_nodes=None,
                     chunk_size=args.chunk_size, name="chunks", out="unused")
    jobs = chunk_jobs(spec)
    print(machine_line())
    solve_chunk_table(jobs[0])
    wall = search = 0.0
    for job in jobs[1:args.chunks + 1]:
        start = time.perf_counter()
        table = solve_chunk_table(job)
        wall += time.perf_counter() - start
        search += pc.sum(table["seconds"]).as_py()
    print(f"{args.chunks} chunks of {args.chunk_size:,}: {wall:.3f} s wall, {search:.3f} search seconds, "
          f"{wall / search:.3f}x")


if __name__ == "__main__":
    main()
