"""Random single-byte changes in a finished sweep's result parts: is every one detected?

The sweep is copied to ``--work`` first (the source is never touched). Each trial changes
one byte of one part (a byte position drawn uniformly over all the parts' bytes, XORed with
a random non-zero value), then:

- checks the copy as every reading command does (:func:`~tilesweep.jobs.verify.verify_sweep`):
  detected when it raises naming that part;
- every ``--cli-every``-th trial, runs ``tilesweep summary`` on the copy: detected when it
  exits 1 with one line naming that part;
- reads the changed part with pyarrow alone, as a reader without the manifest would:
  refused (an error), unchanged values, or silently changed values;

and puts the byte back. Prints the counts and the command line.

    python benchmarks/fault_injection.py sweeps/NAME --flips 1000 --seed 0
"""

from __future__ import annotations

import argparse
import bisect
import shutil
import subprocess
import sys
from collections import Counter
from pathlib import Path

import numpy as np
import pyarrow as pa
import pyarrow.parquet as pq

ROOT = Path(__file__).resolve().parents[1]


def change_byte(path: Path, offset: int, mask: int) -> None:
    with open(path, "r+b") as handle:
        handle.seek(offset)
        value = handle.read(1)[0]
        handle.seek(offset)
        handle.write(bytes([value ^ mask]))


def pyarrow_alone(path: Path, original: pa.Table) -> str:
    """What a reader without the manifest gets from the changed part."""
    try:
        table = pq.read_table(path)
    except (pa.ArrowException, OSError, ValueError):
        return "refused by pyarrow"
    try:
        same = table.equals(original)
    except ValueError:  # a column name that is no longer UTF-8
        return "read, column names damaged"
    return "read, same values" if same else "read, values changed silently"


def by_cli(folder: Path, part: Path) -> bool:
    proc = subprocess.run([sys.executable, str(ROOT / "cli.py"), "summary", str(folder)],
                          capture_output=True, text=True)
    lines = proc.stderr.strip().splitlines()
    return proc.returncode == 1 and len(lines) == 1 and repr(str(part)) in lines[0]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("sweep", type=Path, help="a finished sweep folder (OUT/NAME)")
    parser.add_argument("--flips", type=int, default=1000)
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--cli-every", type=int, default=50, help="run tilesweep summary every this many trials")
    parser.add_argument("--work", type=Path, default=Path("/tmp/fault-injection"))
    args = parser.parse_args()
    sys.path.insert(0, str(ROOT.parent))
    from tilesweep.jobs.manifest import CorruptPartError
    from tilesweep.jobs.verify import verify_sweep

    folder = args.work / args.sweep.name
    shutil.rmtree(args.work, ignore_errors=True)
    shutil.copytree(args.sweep, folder)
    parts = verify_sweep(folder).paths
    sizes = [p.stat().st_size for p in parts]
    starts = np.concatenate([[0], np.cumsum(sizes)])
    originals = {}
    rng = np.random.default_rng(args.seed)
    detected, cli_runs, cli_detected, alone = 0, 0, 0, Counter()
    for trial in range(args.flips):
        at = int(rng.integers(0, starts[-1]))
        index = bisect.bisect_right(starts, at) - 1
        part, offset, mask = parts[index], at - int(starts[index]), int(rng.integers(1, 256))
        original = originals.setdefault(part, pq.read_table(part))
        change_byte(part, offset, mask)
        try:
            try:
                verify_sweep(folder)
            except CorruptPartError as err:
                detected += repr(str(part)) in str(err)
            if trial % args.cli_every == 0:
                cli_runs += 1
                cli_detected += by_cli(folder, part)
            alone[pyarrow_alone(part, original)] += 1
        finally:
            change_byte(part, offset, mask)
    verify_sweep(folder)  # every byte is back
    print(f"python benchmarks/fault_injection.py {args.sweep} --flips {args.flips} --seed {args.seed} "
          f"--cli-every {args.cli_every}")
    print(f"{len(parts)} parts, {starts[-1] / 1e6:.1f} MB; {args.flips} single-byte changes")
    print(f"detected by the check every reading command makes: {detected} of {args.flips}")
    print(f"detected by tilesweep summary (exit 1, one line naming the part): {cli_detected} of {cli_runs}")
    print("read by pyarrow alone (no manifest): " + ", ".join(f"{k} {v}" for k, v in sorted(alone.items())))


if __name__ == "__main__":
    main()
