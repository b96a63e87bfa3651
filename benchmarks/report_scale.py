"""How long ``tilesweep report`` takes, and how much memory, on a sweep of a million rows.

The million rows are synthetic: a real sweep's rows (default: the README's main job,
40,000 rows) repeated as further instances (instance i of copy k becomes
k * count + i) until there are --rows of them, written as Parquet parts with the result
schema (recorded in its manifest), a ``sweep.json`` and a ``summary.parquet``. The report then runs in a
subprocess under ``/usr/bin/time``; ``tilesweep summary`` on the same folder is timed
beside it as a yardstick (the machine is shared and its speed drifts).

    python benchmarks/report_scale.py sweeps/NAME --rows 1000000 --work /tmp/report-scale
"""

from __future__ import annotations

import argparse
import re
import subprocess
import sys
from pathlib import Path

import pyarrow as pa
import pyarrow.compute as pc

ROOT = Path(__file__).resolve().parents[1]
PART_ROWS = 50_000


def synthesise(source: Path, rows: int, folder: Path) -> int:
    """Write ``folder`` (a sweep of ``rows`` rows) from the rows of ``source``; return its count.
    Parts and summary go through the library's writers, so the manifest records them."""
    sys.path.insert(0, str(ROOT.parent))
    from dataclasses import replace

    from tilesweep.jobs.manifest import write_manifest
    from tilesweep.jobs.parts import write_part, write_summary
    from tilesweep.jobs.results import load_table
    from tilesweep.jobs.spec import SweepSpec
    from tilesweep.jobs.summary import summarize
    from tilesweep.jobs.verify import verify_sweep

    base = load_table(source)
    spec = SweepSpec.from_json((source / "sweep.json").read_text())
    copies = -(-rows // base.num_rows)
    spec = replace(spec, name=folder.name, out=str(folder.parent), count=spec.count * copies)
    (folder / "results").mkdir(parents=True, exist_ok=True)
    (folder / "sweep.json").write_text(spec.to_json())
    write_manifest(folder, spec.name, spec.fingerprint())
    tables = []
    for k in range(copies):
        table = base.set_column(base.schema.get_field_index("instance"), "instance",
                                pc.add(base["instance"], k * (spec.count // copies)))
        tables.append(table.set_column(0, "sweep", pa.array([folder.name] * table.num_rows)))
    every = pa.concat_tables(tables).slice(0, rows)
    for i, start in enumerate(range(0, every.num_rows, PART_ROWS)):
        write_part(spec, i, every.slice(start, PART_ROWS))
    summary = pa.Table.from_pandas(summarize(every.to_pandas()), preserve_index=False)
    write_summary(folder, summary, verify_sweep(folder).records, None)
    return every.num_rows


def timed(args: list[str]) -> tuple[float, int, str]:
    """(wall seconds, peak RSS in MiB, stderr) of ``python cli.py ARGS``."""
    proc = subprocess.run(["/usr/bin/time", "-f", "TIME %e %M", sys.executable, str(ROOT / "cli.py"), *args],
                          capture_output=True, text=True, check=True)
    seconds, kib = re.search(r"TIME ([\d.]+) (\d+)", proc.stderr).groups()
    return float(seconds), int(kib) // 1024, proc.stderr


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("source", type=Path, help="a finished sweep folder whose rows are repeated")
    parser.add_argument("--rows", type=int, default=1_000_000)
    parser.add_argument("--work", type=Path, default=Path("/tmp/report-scale"))
    args = parser.parse_args()
    folder = args.work / "million"
    if not (folder / "sweep.json").is_file():
        print(f"synthetic sweep: {synthesise(args.source, args.rows, folder):,} rows in {folder}")
    out = args.work / "million.html"
    summary_s, summary_mib, _ = timed(["summary", str(folder), "--format", "csv"])
    report_s, report_mib, log = timed(["report", str(folder), "--out", str(out)])
    print(log.strip().splitlines()[0])
    print(f"report:  {report_s:.1f} s wall, peak RSS {report_mib:,} MiB, HTML {out.stat().st_size / 2**20:.1f} MiB")
    print(f"summary: {summary_s:.1f} s wall, peak RSS {summary_mib:,} MiB (yardstick, same machine, same moment)")


if __name__ == "__main__":
    main()
