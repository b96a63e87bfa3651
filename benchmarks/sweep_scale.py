"""Large sweeps through the CLI: run wall time against the search, a no-op rerun, summary,
and how soon a very large sweep starts.

Run: ``python benchmarks/sweep_scale.py [--count 1000000] [--big 10000000] [--tilesweep CMD]``.

1. ``tilesweep sweep --size 3 --count N --algorithm idastar --heuristic manhattan`` in a
   fresh folder on the embedded 2-worker cluster. Reported: the CLI's "wall time" line
   (the run, from connecting to the last part) and the whole command, against the sum of
   the rows' search ``seconds`` divided by the workers (target: run <= 1.25 x that).
2. The same command again: nothing to run (target: under 5 s).
3. ``tilesweep summary`` of that sweep (target: under 5 s and 1 GB).
4. The same command with ``--count BIG``: seconds until the scheduler holds its first task
   (polled from the dashboard's ``/json/counts.json``) and until the first part is written,
   and the client's resident memory then (targets: first task within 5 s, 500 MB); the
   sweep is stopped there and its folder removed.

Peak memory is each process's ``ru_maxrss`` (the client's; the Dask workers are separate
processes). The load average is printed before and after: other work on the machine
slows every figure.
"""

from __future__ import annotations

import argparse
import json
import math
import os
import re
import shutil
import signal
import subprocess
import sys
import tempfile
import time
import urllib.request
from pathlib import Path

import duckdb

sys.path.insert(0, str(Path(__file__).resolve().parent))
from tilesweep.jobs.runrecord import machine_line  # noqa: E402

ROOT = Path(__file__).resolve().parents[1]
WORKERS = 2


def load() -> str:
    return "load average " + " ".join(f"{v:.1f}" for v in os.getloadavg())


def timed(cmd: list[str]) -> tuple[float, float, str]:
    """(wall seconds, peak RSS in MB, stderr) of ``cmd``: the peak of its largest process
    (with workers, that may be a worker)."""
    start = time.perf_counter()
    with tempfile.TemporaryFile("w+") as err:
        proc = subprocess.Popen(cmd, stdout=subprocess.DEVNULL, stderr=err, text=True)
        _, status, usage = os.wait4(proc.pid, 0)
        wall = time.perf_counter() - start
        proc.returncode = os.waitstatus_to_exitcode(status)
        err.seek(0)
        text = err.read()
    if proc.returncode != 0:
        raise RuntimeError(f"{' '.join(cmd)} exited {proc.returncode}: {text[-2000:]}")
    return wall, usage.ru_maxrss / 1024, text


def run_wall(stderr: str) -> float:
    line = next(x for x in stderr.splitlines() if x.startswith("wall time"))
    return float(line.split()[2])


def search_seconds(folder: Path) -> float:
    return duckdb.sql(f"SELECT sum(seconds) FROM read_parquet('{folder}/results/part-*.parquet')").fetchall()[0][0]


def sweep_cmd(tilesweep: list[str], out: Path, count: int) -> list[str]:
    return tilesweep + ["sweep", "--size", "3", "--count", str(count), "--algorithm", "idastar",
                        "--heuristic", "manhattan", "--out", str(out), "--name", f"n{count}",
                        "--workers", str(WORKERS)]


def rss_mb(pid: int) -> float:
    for line in Path(f"/proc/{pid}/status").read_text().splitlines():
        if line.startswith("VmRSS"):
            return int(line.split()[1]) / 1024
    return float("nan")


def tasks_on_scheduler(dashboard: str) -> int:
    """Tasks the scheduler holds, from its HTTP ``/json/counts.json`` (0 if it does not answer)."""
    try:
        with urllib.request.urlopen(f"{dashboard}/json/counts.json", timeout=1) as answer:
            return int(json.load(answer).get("tasks", 0))
    except (OSError, ValueError):
        return 0


def first_part(tilesweep: list[str], out: Path, count: int) -> tuple[float, float, float]:
    """Seconds until the first task of a ``count`` sweep is on the scheduler (its dashboard
    reports one; NaN if it never answered) and until the first part exists, and the
    client's RSS then."""
    results = out / f"n{count}" / "results"
    start = time.perf_counter()
    proc = subprocess.Popen(sweep_cmd(tilesweep, out, count), stdout=subprocess.DEVNULL,
                            stderr=subprocess.PIPE, start_new_session=True)
    os.set_blocking(proc.stderr.fileno(), False)
    said, dashboard, first_task = b"", None, float("nan")
    try:
        while not (results.is_dir() and any(results.glob("part-*.parquet"))):
            if proc.poll() is not None or time.perf_counter() - start > 300:
                raise RuntimeError("the sweep stopped before writing a part")
            said += proc.stderr.read() or b""
            if dashboard is None and (found := re.search(rb"dashboard: (\S+)/status", said)):
                dashboard = found.group(1).decode()
            if dashboard and math.isnan(first_task) and tasks_on_scheduler(dashboard):
                first_task = time.perf_counter() - start
            time.sleep(0.02)
        return first_task, time.perf_counter() - start, rss_mb(proc.pid)
    finally:
        os.killpg(proc.pid, signal.SIGINT)
        try:
            proc.wait(30)
        except subprocess.TimeoutExpired:
            os.killpg(proc.pid, signal.SIGKILL)
            proc.wait()


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--count", type=int, default=1_000_000)
    parser.add_argument("--big", type=int, default=10_000_000, help="0: skip the large sweep")
    parser.add_argument("--tilesweep", default=f"{sys.executable} {ROOT / 'cli.py'}")
    args = parser.parse_args()
    tilesweep = args.tilesweep.split()
    print(machine_line())
    print(load())
    with tempfile.TemporaryDirectory() as tmp:
        out = Path(tmp)
        folder = out / f"n{args.count}"
        wall, peak, stderr = timed(sweep_cmd(tilesweep, out, args.count))
        run = run_wall(stderr)
        print(f"sweep {args.count:,}: run {run:.1f} s, command {wall:.1f} s", flush=True)
        search = search_seconds(folder)
        ideal = search / WORKERS
        print(f"sweep {args.count:,}: run {run:.1f} s (command {wall:.1f} s); "
              f"search {search:.1f} s / {WORKERS} workers = {ideal:.1f} s; run / that = {run / (search / WORKERS):.3f}")
        print(load())
        wall, peak, _ = timed(sweep_cmd(tilesweep, out, args.count))
        print(f"no-op rerun: {wall:.2f} s, peak {peak:.0f} MB")
        wall, peak, _ = timed(tilesweep + ["summary", str(folder)])
        print(f"summary: {wall:.2f} s, peak {peak:.0f} MB")
        shutil.rmtree(folder)
        if args.big:  # --big 0: no large sweep
            task, part, rss = first_part(tilesweep, out, args.big)
            print(f"sweep {args.big:,}: first task on the scheduler after {task:.1f} s, first part after "
                  f"{part:.1f} s, client RSS then {rss:.0f} MB")
    print(load())


if __name__ == "__main__":
    main()
