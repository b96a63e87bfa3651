"""``OUT/NAME/manifest.jsonl``: the record of the files a sweep owns and their checksums.

A journal of JSON lines, appended to as parts are written (appending stays O(1) per part,
where rewriting one JSON document would cost O(parts) per part):

- the first line is the header, ``{"manifest": 1, "sweep": NAME, "fingerprint": FP}``
  (the spec's fingerprint, as in ``sweep.json``);
- ``{"part": "part-00007.parquet", "chunk": 7, "rows": 200, "bytes": N, "sha256": H}``
  records one part; a later line for the same name replaces an earlier one;
- ``{"summary": "summary.parquet", "bytes": N, "sha256": H, "parts": D, "baseline": B}``
  records the last ``summary.parquet`` written and :func:`parts_digest` of the parts it
  summarised, so a reader knows whether it still describes them.

A record is appended (and fsynced) before its file is renamed into place, both under an
exclusive ``flock`` of the manifest; readers take a shared one while they read it and list
the folder. So a reader never sees a renamed part without its record, and a writer killed
between the two leaves a record whose file is missing, which the resume recomputes. A last
line without its newline (a writer killed while appending) is ignored: its file was never
renamed into place.
"""

from __future__ import annotations

import contextlib
import fcntl
import hashlib
import json
import os
from dataclasses import asdict, dataclass, field
from pathlib import Path

from tilesweep.pdb_store.files import atomic_write
from tilesweep.solver.errors import TilesweepError

MANIFEST = "manifest.jsonl"
FORMAT = 1


class CorruptPartError(TilesweepError):
    """A results part (or the manifest) that cannot be read or does not belong to its sweep."""


@dataclass(frozen=True)
class PartRecord:
    """One part as it was written."""

    part: str
    chunk: int
    rows: int
    bytes: int
    sha256: str


@dataclass
class Manifest:
    """The latest record of every part and of the summary, as the journal holds them."""

    sweep: str
    fingerprint: str
    parts: dict[str, PartRecord] = field(default_factory=dict)
    summary: dict | None = None
    lines: int = 1

    @property
    def superseded(self) -> bool:
        """Whether the journal holds lines a compacted one would not."""
        return self.lines > 1 + len(self.parts) + (self.summary is not None)


def manifest_path(folder: Path) -> Path:
    return Path(folder) / MANIFEST


def sha256_bytes(data) -> str:
    return hashlib.sha256(data).hexdigest()


def parts_digest(records) -> str:
    """sha256 over the names and checksums of ``records``: which part versions a summary read."""
    text = "\n".join(f"{r.part} {r.sha256}" for r in sorted(records, key=lambda r: r.part))
    return sha256_bytes(text.encode())


def _header(sweep: str, fingerprint: str) -> dict:
    return {"manifest": FORMAT, "sweep": sweep, "fingerprint": fingerprint}


def _line(entry: dict) -> bytes:
    return (json.dumps(entry, separators=(",", ":")) + "\n").encode()


def write_manifest(folder: Path, sweep: str, fingerprint: str, records=(), summary: dict | None = None) -> None:
    """(Re)write the whole manifest atomically: the header, ``records``, ``summary``."""
    lines = [_header(sweep, fingerprint), *(asdict(r) for r in records), *([summary] if summary else [])]
    data = b"".join(_line(e) for e in lines)
    atomic_write(manifest_path(folder), lambda handle: handle.write(data))


@contextlib.contextmanager
def locked(folder: Path, exclusive: bool):
    """Hold a ``flock`` of the manifest (exclusive to append and rename, shared to read and
    list the folder); yields the open manifest, or None when there is none."""
    try:
        fd = os.open(manifest_path(folder), os.O_RDWR | os.O_APPEND if exclusive else os.O_RDONLY)
    except FileNotFoundError:
        yield None
        return
    except OSError as err:
        raise CorruptPartError(f"{str(manifest_path(folder))!r} cannot be opened ({err.strerror or err}); "
                               "check its permissions") from None
    try:
        fcntl.flock(fd, fcntl.LOCK_EX if exclusive else fcntl.LOCK_SH)
        yield fd
    finally:
        os.close(fd)


@contextlib.contextmanager
def recording(folder: Path, entry: dict):
    """Append ``entry`` to the manifest and hold its exclusive lock for the block (which
    renames the entry's file into place): :func:`~tilesweep.pdb_store.files.atomic_write`'s guard."""
    with locked(folder, exclusive=True) as fd:
        if fd is None:
            raise CorruptPartError(f"{str(manifest_path(folder))!r} is missing; rerun the sweep to record its parts "
                                   "again")
        _drop_torn_tail(fd)
        os.write(fd, _line(entry))
        os.fsync(fd)
        yield


def _drop_torn_tail(fd: int) -> None:
    """Cut a last line left without its newline by a killed writer, so the next line starts clean."""
    size = os.fstat(fd).st_size
    if size == 0 or os.pread(fd, 1, size - 1) == b"\n":
        return
    data = os.pread(fd, size, 0)
    os.ftruncate(fd, data.rfind(b"\n") + 1)


def _problem(path: Path, number: int, reason: str) -> CorruptPartError:
    return CorruptPartError(f"{str(path)!r} line {number} {reason}; move it aside and rerun the sweep, "
                            "which reads every part in full and records it again")


def parse_manifest(path: Path, text: str) -> Manifest:
    """The manifest held by ``text`` (the journal at ``path``)."""
    *lines, _torn = text.split("\n")  # a last line without its newline: see the module doc
    entries = []
    for number, line in enumerate(lines, start=1):
        try:
            entries.append(json.loads(line))
        except ValueError:
            raise _problem(path, number, "is not JSON") from None
    if not entries or not isinstance(entries[0], dict) or entries[0].get("manifest") != FORMAT:
        raise _problem(path, 1, f"is not a tilesweep manifest header (format {FORMAT})")
    manifest = Manifest(str(entries[0].get("sweep")), str(entries[0].get("fingerprint")), lines=len(entries))
    for number, entry in enumerate(entries[1:], start=2):
        try:
            if "part" in entry:
                record = PartRecord(**entry)
                manifest.parts[record.part] = record
            elif "summary" in entry:
                manifest.summary = entry
            else:
                raise TypeError("no part or summary")
        except TypeError as err:
            raise _problem(path, number, f"is not a part or summary record ({err})") from None
    return manifest


def read_manifest(folder: Path) -> Manifest | None:
    """The sweep's manifest, or None when it has none (a sweep written before manifests)."""
    path = manifest_path(folder)
    try:
        text = path.read_text()
    except FileNotFoundError:
        return None
    except (OSError, UnicodeDecodeError) as err:
        raise CorruptPartError(f"{str(path)!r} cannot be read ({err}); move it aside and rerun the sweep") from None
    return parse_manifest(path, text)
