"""A sweep folder on disk: ``sweep.json``, ``results/part-XXXXX.parquet``, ``summary.parquet``.

Each part is one chunk, written to a hidden temporary name and renamed into place, so a
reader never sees half a part (pyarrow skips names starting with ``.``). A part carries
the spec (JSON) and its chunk number in its key-value metadata. Resuming keeps every
finished part and runs only the missing chunks; a part that cannot be read, or that
belongs to another spec, is refused with a message naming it.
"""

from __future__ import annotations

import json
import tempfile
from pathlib import Path

import pyarrow as pa
import pyarrow.parquet as pq

from tilesweep.pdb_store.files import atomic_write
from tilesweep.solver.errors import InvalidOptionError, TilesweepError

from .schema import CHUNK_KEY, COLUMNS, RESULT_SCHEMA, SPEC_KEY, upgrade_table
from .spec import SweepSpec


class CorruptPartError(TilesweepError):
    """A results part that cannot be read or does not belong to its sweep."""


class SpecMismatchError(InvalidOptionError):
    """A sweep folder that already holds a different spec."""


class ResultsWriteError(TilesweepError):
    """Writing a sweep's files failed on this machine (a full disk, a lost mount, ...)."""


def _write_atomically(path: Path, write) -> None:
    """:func:`~tilesweep.pdb_store.files.atomic_write` (``write(handle)``); a failure raises
    :class:`ResultsWriteError` naming the file and the system's reason."""
    try:
        atomic_write(path, write)
    except (OSError, pa.ArrowException) as err:
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


def open_sweep_folder(spec: SweepSpec) -> Path:
    """Create ``OUT/NAME`` with ``sweep.json``, or check that the existing one is this spec."""
    folder = spec.folder
    check_folder(folder, "--out")
    stored = folder / "sweep.json"
    if stored.is_file():
        try:
            old = SweepSpec.from_json(stored.read_text())
        except (ValueError, TypeError, KeyError) as err:
            raise CorruptPartError(f"{str(stored)!r} is not a tilesweep spec ({err}); "
                                   "move the folder away or choose another --name") from None
        if old.fingerprint() != spec.fingerprint():
            diff = [k for k, v in spec.identity().items() if old.identity().get(k) != v]
            raise SpecMismatchError(f"sweep {spec.name!r} in {str(spec.out)!r} was run with another spec "
                                    f"(differs in: {', '.join(diff)}); use another --name or --out")
    else:
        results_dir(folder).mkdir(parents=True, exist_ok=True)
        _atomic_write_bytes(stored, spec.to_json().encode())
    results_dir(folder).mkdir(parents=True, exist_ok=True)
    return folder


def part_metadata(spec: SweepSpec, chunk: int) -> dict[bytes, bytes]:
    return {SPEC_KEY: spec.to_json().encode(), CHUNK_KEY: str(chunk).encode()}


def write_part(spec: SweepSpec, chunk: int, table: pa.Table) -> Path:
    """Write one chunk's rows (a table in the result schema) to ``results/part-XXXXX.parquet``
    atomically."""
    path = results_dir(spec.folder) / part_name(chunk)
    table = table.replace_schema_metadata(part_metadata(spec, chunk))
    _write_atomically(path, lambda handle: pq.write_table(table, handle))
    return path


def write_table(path: Path, table: pa.Table) -> None:
    """Write a Parquet file (e.g. ``summary.parquet``) atomically."""
    _write_atomically(Path(path), lambda handle: pq.write_table(table, handle))


def read_part(path: Path, columns: list[str] | None = None) -> pa.Table:
    """Read one part (only ``columns`` of the result schema, when given), or raise
    :class:`CorruptPartError` naming it."""
    if columns is not None:
        footer = read_footer(path)
        present = [c for c in COLUMNS if c in columns and c in footer.schema.names]
    try:
        table = pq.read_table(path, columns=None if columns is None else present)
    except (pa.ArrowException, OSError) as err:
        raise CorruptPartError(f"results part {str(path)!r} cannot be read ({err}); "
                               "delete it and rerun the sweep to recompute its chunk") from None
    if columns is not None:  # columns added after the part was written read as nulls
        wanted = [f for f in RESULT_SCHEMA if f.name in columns]
        return pa.table([table.column(f.name) if f.name in present else pa.nulls(table.num_rows, f.type)
                         for f in wanted], schema=pa.schema(wanted, metadata=table.schema.metadata))
    upgraded = upgrade_table(table)
    if upgraded is None:
        raise CorruptPartError(f"results part {str(path)!r} does not have the tilesweep result "
                               "schema; delete it and rerun the sweep")
    return upgraded


def read_footer(path: Path) -> pq.FileMetaData:
    """One part's Parquet footer (schema, row count, key-value metadata), without its rows;
    :class:`CorruptPartError` naming it when the footer cannot be read or the columns are
    not a tilesweep result schema."""
    try:
        footer = pq.read_metadata(path)
        schema = footer.schema.to_arrow_schema()
    except (pa.ArrowException, OSError) as err:
        raise CorruptPartError(f"results part {str(path)!r} cannot be read ({err}); "
                               "delete it and rerun the sweep to recompute its chunk") from None
    if upgrade_table(schema.empty_table()) is None:
        raise CorruptPartError(f"results part {str(path)!r} does not have the tilesweep result "
                               "schema; delete it and rerun the sweep")
    return footer


def has_error_rows(path: Path) -> bool:
    """Whether a part holds a row with status ``error`` (reads that one column)."""
    try:
        return "error" in pq.read_table(path, columns=["status"]).column("status").to_pylist()
    except (pa.ArrowException, OSError) as err:
        raise CorruptPartError(f"results part {str(path)!r} cannot be read ({err}); "
                               "delete it and rerun the sweep to recompute its chunk") from None


def finished_chunks(spec: SweepSpec, retry_errors: bool = False) -> set[int]:
    """Chunks whose parts exist and whose footers name this spec, their chunk and the expected
    number of rows (with ``retry_errors``: and hold no row with status ``error``, so those
    chunks run again). Only footers are read (a rerun of a finished million-instance sweep
    reads no rows); a part whose rows are damaged behind a sound footer is named when the
    rows are read (summary, query)."""
    done, fingerprints = set(), {}
    for path in sorted(results_dir(spec.folder).glob("part-*.parquet")):
        footer = read_footer(path)
        meta = footer.metadata or {}
        chunk = int(meta.get(CHUNK_KEY, b"-1"))
        stored = meta.get(SPEC_KEY)
        if stored is not None and stored not in fingerprints:
            fingerprints[stored] = SweepSpec.from_json(stored).fingerprint()
        if stored is None or fingerprints[stored] != spec.fingerprint():
            raise CorruptPartError(f"results part {str(path)!r} belongs to another spec; delete it and rerun")
        lo = chunk * spec.chunk_size
        expected = (min(spec.count, lo + spec.chunk_size) - lo) * len(spec.combos)
        if path.name != part_name(chunk) or footer.num_rows != expected:
            raise CorruptPartError(f"results part {str(path)!r} holds {footer.num_rows} rows of chunk "
                                   f"{chunk}; expected {expected}; delete it and rerun")
        if retry_errors and has_error_rows(path):
            continue
        done.add(chunk)
    return done


def write_json(path: Path, data) -> None:
    _atomic_write_bytes(Path(path), json.dumps(data, indent=2).encode())
