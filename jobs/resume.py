"""What a rerun of a sweep keeps: the parts that match the manifest; everything else in
``results/`` is moved aside to ``OUT/NAME/rejected/`` (never deleted) and its chunk runs again.

A sweep written before manifests existed is *adopted*: each part whose footer names this
spec, its own chunk and the expected row count, and which reads in full, is recorded with
its checksum; the others are moved aside. Called with the sweep's lock held, so no other
writer touches the folder meanwhile.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path

import pyarrow as pa
import pyarrow.parquet as pq

from .manifest import CorruptPartError, PartRecord, sha256_bytes, write_manifest
from .parts import UNREADABLE, has_error_rows, part_name, read_footer, results_dir
from .schema import CHUNK_KEY
from .spec import SweepSpec
from .verify import PART_NAME, Problem, check, header_line, snapshot, stored_spec

REJECTED = "rejected"


@dataclass
class Repair:
    """The parts kept (by chunk), the files moved aside (from, to, why), the parts adopted."""

    kept: dict[int, PartRecord] = field(default_factory=dict)
    moved: list[tuple[Path, Path, str]] = field(default_factory=list)
    adopted: int = 0


def expected_rows(spec: SweepSpec, chunk: int) -> int:
    lo = chunk * spec.chunk_size
    return max(0, min(spec.count, lo + spec.chunk_size) - lo) * len(spec.combos)


def move_aside(folder: Path, path: Path) -> Path:
    """Move ``path`` into ``folder/rejected/`` under a name not taken yet; return the new path."""
    target_dir = Path(folder) / REJECTED
    target_dir.mkdir(exist_ok=True)
    target, n = target_dir / path.name, 1
    while target.exists():
        target, n = target_dir / f"{path.name}.{n}", n + 1
    path.rename(target)  # a move within the sweep folder, under its lock: nothing else names the target
    return target


def _adoptable(spec: SweepSpec, path: Path) -> tuple[PartRecord | None, str]:
    """A part of a sweep written before manifests: its record if it belongs here and reads
    in full, else why not."""
    match = PART_NAME.fullmatch(path.name)
    if path.is_dir() or match is None:
        return None, "is not one of the sweep's parts"
    chunk = int(match.group(1))
    try:
        meta = read_footer(path).metadata or {}
        data = path.read_bytes()
        rows = pq.read_table(pa.BufferReader(data)).num_rows  # decodes every page
    except (CorruptPartError, *UNREADABLE) as err:
        return None, f"cannot be read ({str(err).splitlines()[0] if str(err) else type(err).__name__})"
    stored = stored_spec(meta)
    if stored is None or stored.fingerprint() != spec.fingerprint():
        return None, "is a part of another sweep"
    if meta.get(CHUNK_KEY) != str(chunk).encode() or path.name != part_name(chunk):
        return None, f"is a copy of chunk {meta.get(CHUNK_KEY, b'?').decode(errors='replace')}'s part"
    if chunk >= spec.n_chunks or rows != expected_rows(spec, chunk):
        return None, f"holds {rows} rows; chunk {chunk} has {expected_rows(spec, chunk)}"
    return PartRecord(path.name, chunk, rows, len(data), sha256_bytes(data)), ""


def _adopt(spec: SweepSpec, repair: Repair) -> None:
    folder = spec.folder
    for path in sorted(results_dir(folder).iterdir()):
        if path.name.startswith((".", "_")):
            continue
        record, why = _adoptable(spec, path)
        if record is None:
            repair.moved.append((path, move_aside(folder, path), why))
        else:
            repair.kept[record.chunk] = record
            repair.adopted += 1


def repair(spec: SweepSpec) -> Repair:
    """Keep the sound parts of ``spec``'s folder, move the others aside, and leave a
    manifest that records exactly the parts kept."""
    folder, out = spec.folder, Repair()
    manifest, listing = snapshot(folder)
    if manifest is None:
        _adopt(spec, out)
    else:
        if manifest.fingerprint != spec.fingerprint():
            raise CorruptPartError(header_line(folder, manifest))
        good, problems = check(folder, spec, manifest, listing)
        for record in good:
            if record.chunk < spec.n_chunks and record.rows == expected_rows(spec, record.chunk):
                out.kept[record.chunk] = record
            else:
                problems.append(Problem(results_dir(folder) / record.part,
                                        f"holds {record.rows} rows; chunk {record.chunk} has "
                                        f"{expected_rows(spec, record.chunk)}"))
        out.moved = [(p.path, move_aside(folder, p.path), p.what) for p in problems if p.present]
    if manifest is None or out.moved or manifest.superseded or len(out.kept) != len(manifest.parts):
        records = [out.kept[c] for c in sorted(out.kept)]
        write_manifest(folder, spec.name, spec.fingerprint(), records)
    return out


def saved_parts(spec: SweepSpec) -> dict[int, PartRecord]:
    """The chunks whose recorded parts are in place with their recorded size (no hashing:
    for counting what a run has saved so far)."""
    manifest, listing = snapshot(spec.folder)
    if manifest is None:
        return {}
    good, _ = check(spec.folder, spec, manifest, listing, hashing=False)
    return {r.chunk: r for r in good if r.chunk < spec.n_chunks and r.rows == expected_rows(spec, r.chunk)}


def done_chunks(spec: SweepSpec, kept: dict[int, PartRecord], retry_errors: bool) -> set[int]:
    """The chunks kept (with ``retry_errors``: but those whose part holds an ``error`` row)."""
    if not retry_errors:
        return set(kept)
    return {c for c, r in kept.items() if not has_error_rows(results_dir(spec.folder) / r.part)}
