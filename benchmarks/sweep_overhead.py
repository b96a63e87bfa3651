"""Dask overhead: the same chunks run by an in-process loop and by one Dask worker.

Run: ``python benchmarks/sweep_overhead.py [--count N]``. Both runs solve the same chunks
and write the same Parquet parts; kernels are compiled first in both (the worker plugin
warms them; the local loop is warmed by a first pass), and the cluster is started before
the clock. Runs alternate (local, Dask, local, ...). Overhead = (Dask wall - local wall) /
Dask wall, for the best and for the median runs; the target is < 5 %. With one worker the
client writes each part while the worker solves the next chunk, so Dask can come out ahead.
"""

from __future__ import annotations

import argparse
import os
import platform
import statistics
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

import dask  # noqa: E402
import numba  # noqa: E402
import numpy as np  # noqa: E402

from tilesweep.cluster.connect import connect  # noqa: E402
from tilesweep.cluster.run import run_plan  # noqa: E402
from tilesweep.jobs.spec import build_spec  # noqa: E402
from tilesweep.jobs.sweep import prepare, run_local  # noqa: E402


def machine() -> str:
    """One line naming the machine and the library versions."""
    return (f"{platform.node()} {platform.machine()} {platform.processor() or ''} cores={os.cpu_count()} "
            f"python={platform.python_version()} numpy={np.__version__} numba={numba.__version__} "
            f"dask={dask.__version__}")


def spec_for(out: str, name: str, args):
    options = dict(size=3, count=args.count, seed=1, algorithms=("idastar",),
                   heuristics=("manhattan", "linear-conflict"), out=out, name=name)
    return build_spec(options, workers=1)[0]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--count", type=int, default=4000)
    parser.add_argument("--repeats", type=int, default=3)
    args = parser.parse_args()
    print(machine())
    with tempfile.TemporaryDirectory() as tmp:
        warm = prepare(spec_for(tmp, "warm", argparse.Namespace(count=50)))
        run_local(warm)
        local, remote = [], []
        with connect(workers=1) as client:
            for r in range(args.repeats):
                plan = prepare(spec_for(tmp, f"local{r}", args))
                start = time.perf_counter()
                run_local(plan)
                local.append(time.perf_counter() - start)
                plan = prepare(spec_for(tmp, f"dask{r}", args))
                start = time.perf_counter()
                run_plan(client, plan)
                remote.append(time.perf_counter() - start)
        chunks = plan.spec.n_chunks
    best_local, best_dask = min(local), min(remote)
    overhead = (best_dask - best_local) / best_dask
    median_overhead = (statistics.median(remote) - statistics.median(local)) / statistics.median(remote)
    print(f"8-puzzle idastar x (manhattan, linear-conflict), {args.count} instances, {chunks} chunks "
          f"of {plan.spec.chunk_size}")
    print(f"in-process loop: {best_local:.2f} s   dask (1 worker): {best_dask:.2f} s   "
          f"(best of {args.repeats}: local {['%.2f' % t for t in local]}, dask {['%.2f' % t for t in remote]})")
    print(f"dask overhead: {100 * overhead:.1f} % of wall time, best against best "
          f"({100 * median_overhead:.1f} % median against median; target < 5 %)")


if __name__ == "__main__":
    main()
