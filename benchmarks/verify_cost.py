"""What checking a sweep's parts against its manifest costs, on a finished sweep.

Times :func:`tilesweep.jobs.verify.verify_sweep` (every part's bytes hashed with sha256,
as every reading command does), its names-and-sizes variant (the web UI's sweeps list),
and ``tilesweep summary`` on the same folder as the yardstick of what a reading command
costs in all. The page cache is warm (the folder is read once first): what is measured is
the hashing, not the disk. Several rounds; each figure is reported as its range.

    python benchmarks/verify_cost.py sweeps/NAME --rounds 5
"""

from __future__ import annotations

import argparse
import resource
import subprocess
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]


def timed(call) -> tuple[float, float]:
    """(wall seconds, CPU seconds of this process) of ``call()``: on a shared machine the
    CPU seconds say what the work costs, the wall seconds what the user waits."""
    wall, cpu = time.perf_counter(), time.process_time()
    call()
    return time.perf_counter() - wall, time.process_time() - cpu


def children_cpu() -> float:
    usage = resource.getrusage(resource.RUSAGE_CHILDREN)
    return usage.ru_utime + usage.ru_stime


def span(values: list[float], unit: str = "s", digits: int = 3) -> str:
    return f"{min(values):.{digits}f}-{max(values):.{digits}f} {unit}"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("sweep", type=Path, help="a finished sweep folder (OUT/NAME)")
    parser.add_argument("--rounds", type=int, default=5)
    args = parser.parse_args()
    sys.path.insert(0, str(ROOT.parent))
    from tilesweep.jobs.runrecord import machine_line
    from tilesweep.jobs.verify import verify_sweep

    verified = verify_sweep(args.sweep)  # also warms the page cache
    size = sum(r.bytes for r in verified.records)
    rows = sum(r.rows for r in verified.records)
    command = [sys.executable, str(ROOT / "cli.py"), "summary", str(args.sweep), "--format", "csv"]
    full, cheap, summary = [], [], []
    for _ in range(args.rounds):
        full.append(timed(lambda: verify_sweep(args.sweep)))
        cheap.append(timed(lambda: verify_sweep(args.sweep, hashing=False)))
        before = children_cpu()
        wall, _ = timed(lambda: subprocess.run(command, check=True, capture_output=True))
        summary.append((wall, children_cpu() - before))
    print(machine_line())
    print(f"{args.sweep}: {len(verified.records)} parts, {rows:,} rows, {size / 1e6:.1f} MB")
    for label, runs in (("verify (sha256 of every part)", full), ("verify (names and sizes only)", cheap),
                        ("tilesweep summary (the whole command, verification included)", summary)):
        walls, cpus = [w for w, _ in runs], [c for _, c in runs]
        print(f"{label}: wall {span(walls)}, CPU {span(cpus)}")
    print(f"sha256 rate: {span([size / c / 1e6 for _, c in full], 'MB per CPU second', 0)}")


if __name__ == "__main__":
    main()
