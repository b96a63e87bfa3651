"""The time a checkpointed solve loses to each interruption.

    python benchmarks/checkpoint_resume.py                       # Korf #88, Manhattan, --parallel, 2 workers
    python benchmarks/checkpoint_resume.py --korf 1 --serial     # in one process

Runs ``tilesweep solve BOARD --checkpoint DIR`` (with ``--parallel --workers 2`` unless
``--serial``) once uninterrupted, then again in a fresh folder killed with SIGKILL (the
whole process session, the embedded cluster's workers with it) at each of ``--at``
(fractions of the uninterrupted run's wall time; by default 0.35 and 0.7) and run again
each time until it finishes. Every run's counts must equal the uninterrupted run's. For
each interruption it prints:

- redone: the search done since the last record (from that record's write to the kill),
  which the next run searches again;
- restart: from the next run's start to its first record (process, cluster and kernels,
  frontier expansion), less the same for the uninterrupted run, which pays it once anyway;
- lost: the interrupted sequence's total wall time less the uninterrupted run's, per
  interruption.

with the 1-minute load average before and after each run.
"""

from __future__ import annotations

import argparse
import json
import os
import signal
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from tilesweep.jobs.checkpoints import checkpoint_dir  # noqa: E402
from tilesweep.jobs.runrecord import machine_line  # noqa: E402
from tilesweep.jobs.sources import KORF100, read_instance_file  # noqa: E402

COUNTS = ("status", "cost", "moves", "nodes_generated", "nodes_expanded", "iterations")


def load() -> float:
    return os.getloadavg()[0]


class Run:
    """One solve process in ``folder``: its start, first record and end (monotonic seconds)."""

    def __init__(self, tiles: str, folder: Path, serial: bool):
        args = [sys.executable, "-m", "tilesweep", "solve", tiles, "--goal", "blank-first", "--json",
                "--checkpoint", str(folder)] + ([] if serial else ["--parallel", "--workers", "2"])
        self.folder, self.load = folder, load()
        self.start = time.monotonic()
        self.before = self.mtime()
        self.process = subprocess.Popen(args, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                                        start_new_session=True)
        self.first = None

    def mtime(self) -> float | None:
        files = list(checkpoint_dir(self.folder).glob("*.json"))
        return files[0].stat().st_mtime if files else None

    def watch(self, until: float | None) -> dict | None:
        """Wait for the end (the row), or kill at ``until`` seconds after the start (None)."""
        while self.process.poll() is None:
            now = time.monotonic()
            if self.first is None and self.mtime() not in (None, self.before):
                self.first = now - self.start
            if until is not None and now - self.start >= until:
                last = self.mtime()
                os.killpg(self.process.pid, signal.SIGKILL)
                self.process.wait()
                self.end = time.monotonic()
                self.redone = time.time() - (last or time.time())
                return None
            time.sleep(0.01)
        self.end = time.monotonic()
        out, err = self.process.communicate()
        if self.process.returncode != 0:
            raise SystemExit(err[-2000:])
        return json.loads(out)

    @property
    def wall(self) -> float:
        return self.end - self.start


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--korf", type=int, default=88)
    parser.add_argument("--serial", action="store_true")
    parser.add_argument("--at", type=float, nargs="+", default=[0.35, 0.7])
    args = parser.parse_args()
    tiles = " ".join(map(str, read_instance_file(KORF100)[args.korf - 1]))
    print(machine_line())
    with tempfile.TemporaryDirectory() as tmp:
        whole = Run(tiles, Path(tmp) / "whole", args.serial)
        reference = whole.watch(None)
        print(f"uninterrupted: {whole.wall:.1f} s wall, first record after {whole.first:.1f} s, load "
              f"{whole.load:.1f} -> {load():.1f}, {reference['nodes_generated']:,} nodes")
        folder, total, lost = Path(tmp) / "cut", 0.0, []
        for k, at in enumerate([*args.at, None]):
            run = Run(tiles, folder, args.serial)
            row = run.watch(None if at is None else at * whole.wall - total)
            total += run.wall
            if lost:
                lost[-1]["restart"] = run.first - whole.first
            line = f"run {k + 1}: {run.wall:.1f} s wall, load {run.load:.1f} -> {load():.1f}"
            if row is None:
                lost.append({"redone": run.redone})
                print(f"{line}, killed {run.redone:.2f} s after its last record")
            else:
                assert [row[c] for c in COUNTS] == [reference[c] for c in COUNTS], "counts differ"
                print(f"{line}, finished with the uninterrupted run's counts")
        for k, x in enumerate(lost, 1):
            print(f"interruption {k}: redone {x['redone']:.2f} s, restart {x['restart']:.1f} s more than a "
                  f"first start")
        print(f"in all: {total:.1f} s against {whole.wall:.1f} s uninterrupted, "
              f"{(total - whole.wall) / len(lost):.1f} s lost per interruption")


if __name__ == "__main__":
    main()
