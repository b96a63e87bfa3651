"""The time a checkpointed ``--parallel`` solve loses to each ``scancel`` on the Slurm
cluster in containers (docker-compose.slurm.yml, started by hand as docs/hpc.md shows).

    python benchmarks/checkpoint_resume_slurm.py --container PROJECT_slurmctld_1     # Korf #88, Manhattan
    python benchmarks/checkpoint_resume_slurm.py --container PROJECT_slurmctld_1 --serial --at 0.35 0.35

Submits examples/slurm/checkpointed-solve.sbatch (two nodes, two tasks each: four workers)
or, with ``--serial``, a one-task job running ``tilesweep solve --checkpoint`` without
``--parallel`` (its chunks one after another in the job's process),
for the board once uninterrupted, then in a fresh folder cancels its job (scancel) at each
of ``--at`` (fractions of the uninterrupted job's wall time, counted from each job's own
submission: a serial job restarts in seconds, so ``0.35 0.35`` stops it near 35 % and 70 %
of the search, where the default's second cancel comes after the end) and submits it again each
time until it finishes. Every job's counts must equal the uninterrupted one's. Per
interruption it prints the search redone (the last record's write to the cancel) and the
restart (submission to first record, less the uninterrupted job's); and the interrupted
chain's wall time less the uninterrupted job's. Times are taken on this host, which runs
the containers (one clock).
"""

from __future__ import annotations

import argparse
import json
import os
import shlex
import subprocess
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from tilesweep.jobs.sources import KORF100, read_instance_file  # noqa: E402

COUNTS = ("status", "cost", "moves", "nodes_generated", "nodes_expanded", "iterations")
SCRIPT = ROOT / "examples" / "slurm" / "checkpointed-solve.sbatch"
ALLOCATION = ["--nodes=2", "--ntasks-per-node=2", "--mem-per-cpu=1000", "--time=01:00:00", "--chdir=/shared"]
SERIAL = ["--ntasks=1", "--mem-per-cpu=1000", "--time=01:00:00", "--chdir=/shared"]


class Cluster:
    def __init__(self, container: str):
        self.container = container

    def exec(self, *argv: str) -> str:
        return subprocess.run(["docker", "exec", "-u", "tilesweep", self.container, *argv], check=True,
                              capture_output=True, text=True).stdout

    def running(self, job: str) -> bool:
        return job in self.exec("squeue", "-h", "-o", "%i").split()

    def stood(self, folder: str) -> str:
        """Where the recorded search stands: its iteration, threshold and subtree chunks done."""
        solve = json.loads(self.exec("tilesweep", "status", folder, "--format", "json"))[0]["solves"][0]
        done, chunks = solve["subtrees"]
        return f"iteration {solve['iteration']} (threshold {solve['threshold']}), {done} of {chunks} chunks done"

    def record_time(self, folder: str) -> float | None:
        """When the solve's record was last written (its file's mtime), None before the first."""
        out = self.exec("sh", "-c", f"stat -c %.3Y {folder}/checkpoints/*.json 2>/dev/null || true").strip()
        return float(out) if out else None


class Job:
    """One submission of the solve: its start, first record, end."""

    def __init__(self, cluster: Cluster, tiles: str, folder: str, serial: bool):
        self.cluster, self.folder = cluster, folder
        self.load = os.getloadavg()[0]
        self.before = cluster.record_time(folder)
        self.start = time.time()
        solve = [tiles, "--goal", "blank-first", "--json", "--checkpoint", folder]
        job = ([*SERIAL, "--wrap", shlex.join(["tilesweep", "solve", *solve])] if serial
               else [*ALLOCATION, "/shared/solve.sbatch", *solve])
        self.id = cluster.exec("sbatch", "--parsable", "--output=/shared/bench-%j.log", *job).strip()
        self.first = self.end = None

    def poll(self) -> bool:
        """Note the first record; whether the job still runs."""
        if self.first is None:
            written = self.cluster.record_time(self.folder)
            if written is not None and written != self.before:
                self.first = written
        if self.cluster.running(self.id):
            return True
        self.end = self.end or time.time()
        return False

    def wait(self) -> dict:
        while self.poll():
            time.sleep(0.5)
        log = self.cluster.exec("cat", f"/shared/bench-{self.id}.log")
        return json.loads(next(line for line in log.splitlines() if line.startswith("{")))

    def cancel_at(self, seconds: float) -> tuple[float, str]:
        """scancel at ``seconds`` after the submission; the seconds since the last record then,
        and where the record left the search."""
        while time.time() < self.start + seconds:
            assert self.poll(), "the job ended before it was cancelled"
            time.sleep(0.2)
        last = self.cluster.record_time(self.folder)
        self.cluster.exec("scancel", self.id)
        cancelled = time.time()
        while self.cluster.running(self.id):
            time.sleep(0.2)
        self.end = time.time()
        return cancelled - last, self.cluster.stood(self.folder)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--container", required=True, help="the slurmctld container (docker ps)")
    parser.add_argument("--korf", type=int, default=88)
    parser.add_argument("--at", type=float, nargs="+", default=[0.35, 0.7])
    parser.add_argument("--serial", action="store_true", help="one task, no --parallel")
    args = parser.parse_args()
    cluster = Cluster(args.container)
    tiles = " ".join(map(str, read_instance_file(KORF100, 4)[args.korf - 1]))
    subprocess.run(["docker", "cp", str(SCRIPT), f"{args.container}:/shared/solve.sbatch"], check=True)
    tag = f"k{args.korf}-{'serial' if args.serial else 'parallel'}-{int(time.time())}"
    whole = Job(cluster, tiles, f"/shared/bench/{tag}-whole", args.serial)
    reference = whole.wait()
    span, warm = whole.end - whole.start, whole.first - whole.start
    print(f"uninterrupted: {span:.1f} s, first record {warm:.1f} s after submission, load {whole.load:.1f} -> "
          f"{os.getloadavg()[0]:.1f}; {reference['nodes_generated']:,} nodes")
    folder, total = f"/shared/bench/{tag}-cut", 0.0
    for i, at in enumerate(args.at, 1):
        job = Job(cluster, tiles, folder, args.serial)
        redone, stood = job.cancel_at(at * span)
        restart = (job.first - job.start - warm) if i > 1 else 0.0
        total += job.end - job.start
        print(f"job {i}: cancelled at {job.end - job.start:.1f} s, {redone:.1f} s after its last record"
              + (f", restart {restart:.1f} s" if i > 1 else "") + f", load {job.load:.1f}; record: {stood}")
    last = Job(cluster, tiles, folder, args.serial)
    row = last.wait()
    total += last.end - last.start
    print(f"job {len(args.at) + 1}: finished in {last.end - last.start:.1f} s, restart "
          f"{last.first - last.start - warm:.1f} s, load {last.load:.1f} -> {os.getloadavg()[0]:.1f}")
    same = [row[k] for k in COUNTS] == [reference[k] for k in COUNTS]
    print(f"interrupted chain {total:.1f} s against {span:.1f} s: {(total - span) / len(args.at):.1f} s per "
          f"interruption; counts {'equal' if same else 'DIFFER'}")
    if not same:
        sys.exit(1)


if __name__ == "__main__":
    main()
