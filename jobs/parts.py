"""A sweep folder on disk: ``sweep.json``, ``manifest.jsonl``, ``results/part-XXXXX.parquet``,
``summary.parquet``.

Each part is one chunk, written to a hidden temporary name and renamed into place, so a
reader never sees half a part (pyarrow skips names starting with ``.``); its size and
sha256 are recorded in the manifest (:mod:`.manifest`) as it is renamed. A part carries
the spec (JSON) and its chunk number in its key-value metadata. What a reader or a resume
does with the files is :mod:`.verify`'s and :mod:`.resume`'s.
"""

from __future__ import annotations

import json
import tempfile
from dataclasses import asdict, replace
from pathlib import Path

import pyarrow as pa
import pyarrow.parquet as pq

from tilesweep.pdb_store.files import OutputTargetError, atomic_write, remove_stale
from tilesweep.solver.errors import InvalidOptionError, TilesweepError

from .manifest import CorruptPartError, PartRecord, parts_digest, read_manifest, recording, sha256_bytes, write_manifest
from .schema import CHUNK_KEY, COLUMNS, RESULT_SCHEMA, SPEC_KEY, upgrade_table
from .spec import SweepSpec

# What reading a damaged Parquet file raises: Arrow's errors, the system's, and a
# UnicodeDecodeError (a ValueError) from a changed byte in a column name of the footer
UNREADABLE = (pa.ArrowException, OSError, ValueError)


class SpecMismatchError(InvalidOptionError):
    """A sweep folder that already holds a different spec."""


class ResultsWriteError(TilesweepError):
    """Writing a sweep's files failed on this machine (a full disk, a lost mount, ...)."""


def _write_atomically(path: Path, write, guard=None) -> None:
    """:func:`~tilesweep.pdb_store.files.atomic_write` (``write(handle)``); a failure raises
    :class:`ResultsWriteError` naming the file and the system's reason."""
    try:
        atomic_write(path, write, guard=guard)
    except (OSError, pa.ArrowException, OutputTargetError) as err:
        reason = err.strerror if isinstance(err, OSError) and err.strerror else str(err)
        raise ResultsWriteError(f"writing the results failed: {str(path)!r} ({reason}); parts "
                                "written before are kept, and rerunning the sweep resumes") from None


def part_name(chunk: int) -> str:
    return f"part-{chunk:05d}.parquet"


def results_dir(folder: Path) -> Path:
    return Path(folder) / "results"


def _atomic_write_bytes(path: Path, data: bytes) -> None:
    _write_atomically(path, lambda handle: handle.write(data))


def check_folder(path: str | Path, option: str, write: bool = True) -> Path:
    """Create the folder ``path`` if needed and, with ``write``, check that a file can be
    created in it; else :class:`InvalidOptionError` naming the folder and the reason."""
    path = Path(path)
    try:
        path.mkdir(parents=True, exist_ok=True)
        if write:
            with tempfile.TemporaryFile(dir=path):
                pass
    except OSError as err:
        raise InvalidOptionError(f"{option} {str(path)!r} cannot be {'written' if write else 'created'} "
                                 f"({err.strerror or err}); choose another {option}") from None
    return path


def _refuse_changed_plugins(old: SweepSpec, spec: SweepSpec) -> None:
    """Refuse, naming it, a plugin heuristic whose source changed since the sweep ran:
    resuming would mix rows of two versions of it."""
    before = {name: sha for name, sha, *_ in old.plugins}
    for name, sha, *_ in spec.plugins:
        if name in before and before[name] != sha:
            raise SpecMismatchError(f"heuristic 'plugin:{name}' changed since sweep {spec.name!r} ran (source "
                                    f"sha256 {before[name][:12]}, now {sha[:12]}); its rows would mix two "
                                    "versions: rerun under a new --name to start anew")


def open_sweep_folder(spec: SweepSpec) -> str | None:
    """Create ``OUT/NAME`` with ``sweep.json`` and its manifest, or check that the existing
    one is this spec (call with the sweep's :class:`~.lock.SweepLock` held). An unreadable
    ``sweep.json`` is rebuilt from the spec its parts record when they all agree; the line
    saying so is returned."""
    folder = spec.folder
    stored = folder / "sweep.json"
    rebuilt = None
    if stored.is_file():
        try:
            old = SweepSpec.from_json(stored.read_text())
        except (ValueError, TypeError, KeyError) as err:  # InvalidOptionError is a ValueError
            old = _spec_from_parts(spec, f"{str(stored)!r} is not a tilesweep spec ({err})")
            _atomic_write_bytes(stored, old.to_json().encode())
            rebuilt = f"rebuilt {str(stored)!r} from the spec its parts record (it could not be read: {err})"
        if old.fingerprint() != spec.fingerprint():
            _refuse_changed_plugins(old, spec)
            diff = [k for k, v in spec.identity().items() if old.identity().get(k) != v]
            raise SpecMismatchError(f"sweep {spec.name!r} in {str(spec.out)!r} was run with another spec "
                                    f"(differs in: {', '.join(diff)}); use another --name or --out")
    else:
        results_dir(folder).mkdir(parents=True, exist_ok=True)
        _atomic_write_bytes(stored, spec.to_json().encode())
        if read_manifest(folder) is None and not any(results_dir(folder).iterdir()):
            write_manifest(folder, spec.name, spec.fingerprint())
    results_dir(folder).mkdir(parents=True, exist_ok=True)
    return rebuilt


def _spec_from_parts(spec: SweepSpec, problem: str) -> SweepSpec:
    """The one spec every readable part of ``spec.folder`` records (moved to where the folder
    is now), or :class:`CorruptPartError` with ``problem`` when there is none or they disagree."""
    found = {}
    for path in sorted(results_dir(spec.folder).glob("part-*.parquet")):
        try:
            text = (read_footer(path).metadata or {}).get(SPEC_KEY)
            recorded = SweepSpec.from_json(text.decode()) if text else None
        except (CorruptPartError, ValueError, TypeError, KeyError):
            recorded = None  # a damaged part: the resume moves it aside
        if recorded is not None:
            found[recorded.fingerprint()] = recorded
    if len(found) != 1:
        why = "no part records a spec" if not found else f"its parts record {len(found)} different specs"
        raise CorruptPartError(f"{problem}; {why}, so it cannot be rebuilt: move the folder away "
                               "or choose another --name")
    return replace(next(iter(found.values())), out=spec.out)


def remove_leftovers(folder: Path) -> None:
    """Delete the temporary files of killed writers of this sweep's parts, spec, run record
    and manifest (call with the sweep's lock held: no other writer of these is alive)."""
    remove_stale(results_dir(folder), ".part-")
    for name in ("sweep.json", "run.json", "manifest.jsonl"):
        remove_stale(Path(folder), f".{name}.tmp-")


def part_metadata(spec: SweepSpec, chunk: int) -> dict[bytes, bytes]:
    return {SPEC_KEY: spec.to_json().encode(), CHUNK_KEY: str(chunk).encode()}


def parquet_bytes(table: pa.Table) -> pa.Buffer:
    sink = pa.BufferOutputStream()
    pq.write_table(table, sink)
    return sink.getvalue()


def _write_recorded(folder: Path, path: Path, data: pa.Buffer, entry: dict) -> None:
    """Write ``data`` to ``path`` atomically, ``entry`` (with the bytes' size and sha256)
    appended to the sweep's manifest just before the rename, under its lock."""
    entry = {**entry, "bytes": data.size, "sha256": sha256_bytes(data)}
    _write_atomically(path, lambda handle: handle.write(data), guard=lambda: recording(folder, entry))


def write_part(spec: SweepSpec, chunk: int, table: pa.Table) -> Path:
    """Write one chunk's rows (a table in the result schema) to ``results/part-XXXXX.parquet``
    atomically, recording its checksum in the manifest."""
    path = results_dir(spec.folder) / part_name(chunk)
    data = parquet_bytes(table.replace_schema_metadata(part_metadata(spec, chunk)))
    record = PartRecord(path.name, chunk, table.num_rows, data.size, sha256_bytes(data))
    _write_recorded(spec.folder, path, data, asdict(record))
    return path


SUMMARY_FILE = "summary.parquet"


def write_summary(folder: Path, table: pa.Table, records, baseline: str | None) -> None:
    """Write ``folder/summary.parquet``, the summary of the parts ``records``, and record
    which parts it read (:func:`~.manifest.parts_digest`) and its baseline in the manifest."""
    entry = {"summary": SUMMARY_FILE, "parts": parts_digest(records), "baseline": baseline}
    _write_recorded(Path(folder), Path(folder) / SUMMARY_FILE, parquet_bytes(table), entry)


def write_table(path: Path, table: pa.Table) -> None:
    """Write a Parquet file (e.g. a query's output) atomically."""
    _write_atomically(Path(path), lambda handle: pq.write_table(table, handle))


def read_part(path: Path, columns: list[str] | None = None) -> pa.Table:
    """Read one part (only ``columns`` of the result schema, when given), or raise
    :class:`CorruptPartError` naming it."""
    if columns is not None:
        footer = read_footer(path)
        present = [c for c in COLUMNS if c in columns and c in footer.schema.names]
    try:
        table = pq.read_table(path, columns=None if columns is None else present)
    except UNREADABLE as err:
        raise CorruptPartError(f"results part {str(path)!r} cannot be read ({err}); "
                               "rerun the sweep, which moves it aside and recomputes its chunk") from None
    if columns is not None:  # columns added after the part was written read as nulls
        wanted = [f for f in RESULT_SCHEMA if f.name in columns]
        return pa.table([table.column(f.name) if f.name in present else pa.nulls(table.num_rows, f.type)
                         for f in wanted], schema=pa.schema(wanted, metadata=table.schema.metadata))
    upgraded = upgrade_table(table)
    if upgraded is None:
        raise CorruptPartError(f"results part {str(path)!r} does not have the tilesweep result "
                               "schema; rerun the sweep, which moves it aside and recomputes its chunk")
    return upgraded


def read_footer(path: Path) -> pq.FileMetaData:
    """One part's Parquet footer (schema, row count, key-value metadata), without its rows;
    :class:`CorruptPartError` naming it when the footer cannot be read or the columns are
    not a tilesweep result schema."""
    try:
        footer = pq.read_metadata(path)
        schema = footer.schema.to_arrow_schema()
    except UNREADABLE as err:
        raise CorruptPartError(f"results part {str(path)!r} cannot be read ({err}); "
                               "rerun the sweep, which moves it aside and recomputes its chunk") from None
    if upgrade_table(schema.empty_table()) is None:
        raise CorruptPartError(f"results part {str(path)!r} does not have the tilesweep result "
                               "schema; rerun the sweep, which moves it aside and recomputes its chunk")
    return footer


def has_error_rows(path: Path) -> bool:
    """Whether a part holds a row with status ``error`` (reads that one column)."""
    try:
        return "error" in pq.read_table(path, columns=["status"]).column("status").to_pylist()
    except UNREADABLE as err:
        raise CorruptPartError(f"results part {str(path)!r} cannot be read ({err}); "
                               "rerun the sweep, which moves it aside and recomputes its chunk") from None


def write_json(path: Path, data) -> None:
    _atomic_write_bytes(Path(path), json.dumps(data, indent=2).encode())
