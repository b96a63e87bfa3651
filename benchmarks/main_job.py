"""The README's main job, this checkout against another (e.g. an older commit), alternating.

Run: ``python benchmarks/main_job.py --other DIR [--repeats 3]``, DIR a checkout of
tilesweep with its own venv in ``DIR/.venv``. Each round runs, in turn, this checkout and
the other:

    tilesweep sweep --size 3 --count 10000 --algorithm astar --heuristic manhattan
        --heuristic linear-conflict --heuristic pdb:4-4 --heuristic pdb:5-3

in a fresh ``--out`` (so everything is solved) with one shared ``--store`` (the tables are
built before the clock, in a first warm-up run of each checkout that also fills numba's
cache). Reported per run: the whole command's wall time and the CLI's "wall time" line
(connecting to the last part). The summaries must agree on every count and node figure.
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

sys.path.insert(0, str(Path(__file__).resolve().parent))
from tilesweep.jobs.runrecord import machine_line  # noqa: E402

ROOT = Path(__file__).resolve().parents[1]
JOB = ["sweep", "--size", "3", "--count", "10000", "--algorithm", "astar", "--heuristic", "manhattan",
       "--heuristic", "linear-conflict", "--heuristic", "pdb:4-4", "--heuristic", "pdb:5-3", "--workers", "2"]
EXACT = ["algorithm", "heuristic", "instances", "solved", "nodes_mean", "nodes_median", "nodes_p90", "nodes_max",
         "cost_mean", "paired", "fewer", "equal", "more"]


def run(checkout: Path, out: Path, store: Path) -> tuple[float, float, pd.DataFrame]:
    python = checkout / ".venv" / "bin" / "python"
    start = time.perf_counter()
    done = subprocess.run([str(python), str(checkout / "cli.py"), *JOB, "--out", str(out), "--name", "main",
                           "--store", str(store), "--format", "csv"], capture_output=True, text=True, check=True)
    wall = time.perf_counter() - start
    line = next(x for x in done.stderr.splitlines() if x.startswith("wall time"))
    summary = pd.read_parquet(out / "main" / "summary.parquet")
    return wall, float(line.split()[2]), summary


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--other", required=True, type=Path)
    parser.add_argument("--repeats", type=int, default=3)
    args = parser.parse_args()
    checkouts = {"this": ROOT, "other": args.other.resolve()}
    print(machine_line())
    print("load average", os.getloadavg())
    times = {name: [] for name in checkouts}
    with tempfile.TemporaryDirectory() as tmp:
        tmp = Path(tmp)
        summaries = {name: run(path, tmp / f"warm-{name}", tmp / "store")[2] for name, path in checkouts.items()}
        for r in range(args.repeats):
            for name, path in checkouts.items():
                wall, inner, summaries[name] = run(path, tmp / f"{name}-{r}", tmp / "store")
                times[name].append((wall, inner))
                print(f"round {r + 1} {name:5s}: command {wall:5.1f} s, run {inner:5.1f} s, "
                      f"load {os.getloadavg()[0]:.1f}", flush=True)
    for name, runs in times.items():
        print(f"{name:5s} ({checkouts[name]}): command " + ", ".join(f"{w:.1f}" for w, _ in runs)
              + " s; run " + ", ".join(f"{i:.1f}" for _, i in runs) + " s")
    a, b = (summaries[n][[c for c in EXACT if c in summaries[n]]] for n in checkouts)
    pd.testing.assert_frame_equal(a, b)
    print("summaries agree on", ", ".join(a.columns))
    print("load average", os.getloadavg())


if __name__ == "__main__":
    main()
