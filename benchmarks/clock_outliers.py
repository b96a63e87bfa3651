"""Wall against CPU seconds on a busy machine: the share of rows far slower than their neighbours.

Run: ``python benchmarks/clock_outliers.py [--busy 2] [--sweep DIR]``. Without ``--sweep``
it runs the README's main job

    tilesweep sweep --size 3 --count 10000 --algorithm astar --heuristic manhattan
        --heuristic linear-conflict --heuristic pdb:4-4 --heuristic pdb:5-3

in a fresh folder (kernels and tables warmed by a first, smaller run), while ``--busy``
processes of its own spin on the CPU (``while 1: pass``, stopped at the end). For each
configuration the solved rows are sorted by instance; a row is an *outlier* on a clock when
its time is more than ``--factor`` (10) times the median of the ``--window`` (21) rows
centred on it. The instances are independent random boards, so a row far above its
neighbours' median is mostly the clock's doing (a pause while the OS ran something else),
not the board's; the share of such rows, per clock, says how much of a scatter is noise.
The same share of nodes generated is printed beside them: the part that is the boards' own.
"""

from __future__ import annotations

import argparse
import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import pandas as pd

from tilesweep.jobs.results import load_results
from tilesweep.jobs.runrecord import machine_line

JOB = ["--size", "3", "--algorithm", "astar", "--heuristic", "manhattan", "--heuristic", "linear-conflict",
       "--heuristic", "pdb:4-4", "--heuristic", "pdb:5-3"]
# nodes generated: the boards' own spread, the share no clock can be blamed for
CLOCKS = {"wall": "seconds", "cpu": "cpu_seconds", "nodes": "nodes_generated"}


def outlier_share(rows: pd.DataFrame, column: str, window: int, factor: float) -> pd.Series:
    """Per configuration, the share of solved rows whose ``column`` exceeds ``factor`` times
    the median of the ``window`` rows (by instance) centred on each."""
    solved = rows[rows["status"] == "solved"].sort_values("instance")

    def share(group: pd.DataFrame) -> float:
        values = group[column]
        median = values.rolling(window, center=True, min_periods=window // 2 + 1).median()
        return float((values > factor * median).mean())

    return solved.groupby(["algorithm", "heuristic"], sort=False)[[column]].apply(share)


def run_job(out: Path, count: int, store: Path) -> float:
    """The main job (``count`` instances) into ``out/main``; its wall time."""
    start = time.perf_counter()
    subprocess.run([sys.executable, "-m", "tilesweep", "sweep", *JOB, "--count", str(count), "--out", str(out),
                    "--name", "main", "--store", str(store)], check=True, capture_output=True)
    return time.perf_counter() - start


def measure(args, tmp: Path) -> Path:
    """Warm up, start the busy processes, run the job; its folder."""
    store = tmp / "store"
    run_job(tmp / "warm", 200, store)  # compiles (or loads) the kernels and builds the tables
    busy = [subprocess.Popen([sys.executable, "-c", "while 1: pass"]) for _ in range(args.busy)]
    try:
        time.sleep(5 if busy else 0)  # let the load average rise a little
        print(f"load average before the run {os.getloadavg()[0]:.1f}, {args.busy} busy processes", flush=True)
        wall = run_job(tmp / "run", args.count, store)
        print(f"main job: {wall:.1f} s wall, load average after {os.getloadavg()[0]:.1f}")
    finally:
        for process in busy:
            process.kill()
            process.wait()
    return tmp / "run" / "main"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--sweep", type=Path, help="a finished sweep to read instead of running the job")
    parser.add_argument("--busy", type=int, default=2, help="CPU-bound processes to run beside the job")
    parser.add_argument("--count", type=int, default=10_000)
    parser.add_argument("--window", type=int, default=21)
    parser.add_argument("--factor", type=float, default=10.0)
    args = parser.parse_args()
    print(machine_line())
    with tempfile.TemporaryDirectory() as tmp:
        folder = args.sweep or measure(args, Path(tmp))
        rows = load_results(folder)
    if rows["cpu_seconds"].isna().all():
        sys.exit(f"{folder}: its rows have no cpu_seconds (written before the column)")
    table = pd.DataFrame({clock: outlier_share(rows, column, args.window, args.factor)
                          for clock, column in CLOCKS.items()})
    solved = rows[rows["status"] == "solved"]
    table["rows"] = solved.groupby(["algorithm", "heuristic"], sort=False).size().astype(int)
    print(f"share of solved rows over {args.factor:g}x the median of their {args.window} neighbours:")
    for (algorithm, heuristic), row in table.iterrows():
        print(f"  {algorithm} {heuristic:16s} wall {row['wall']:7.2%}  cpu {row['cpu']:7.2%}  "
              f"nodes {row['nodes']:7.2%}  ({row['rows']:.0f} rows)")
    overall = {clock: (table[clock] * table["rows"]).sum() / table["rows"].sum() for clock in CLOCKS}
    print(f"  all {table['rows'].sum():.0f} rows          wall {overall['wall']:7.2%}  cpu {overall['cpu']:7.2%}  "
          f"nodes {overall['nodes']:7.2%}")


if __name__ == "__main__":
    main()
