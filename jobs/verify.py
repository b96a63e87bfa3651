"""Checking a sweep's files against its manifest before any row is counted.

Every command that reads results (summary, query, sql, report, compare, the web UI's sweep
pages and a resume) goes through :func:`verify_sweep`: the parts in ``results/`` must be
exactly those the manifest records, each with the size and sha256 recorded when it was
written. Each file that is not is a :class:`Problem` (altered, truncated, missing, a copy,
a part of another sweep, a stray file), named in one line with the repair; nothing is
counted then. Hidden files (a writer's temporary ``.part-*.tmp-*``) are not results
(pyarrow skips them too) and are not checked.
"""

from __future__ import annotations

import dataclasses
import re
from dataclasses import dataclass
from pathlib import Path

from tilesweep.pdb_store.files import sha256_file

from .manifest import MANIFEST, CorruptPartError, Manifest, PartRecord, locked, parts_digest, read_manifest
from .parts import SUMMARY_FILE, read_footer, results_dir
from .schema import CHUNK_KEY, SPEC_KEY
from .spec import SweepSpec

PART_NAME = re.compile(r"part-(\d{5,})\.parquet")
SHOWN = 3  # problems a message names one by one


@dataclass(frozen=True)
class Problem:
    """A file of ``results/`` that is not the part the manifest recorded (or a recorded one missing)."""

    path: Path
    what: str  # continues "'PATH' ...", e.g. "is missing"

    @property
    def present(self) -> bool:
        return self.what != "is missing"

    def __str__(self) -> str:
        return f"{str(self.path)!r} {self.what}"


@dataclass(frozen=True)
class Verified:
    """The parts of one sweep that match its manifest, in name order (sweep, then chunk)."""

    folder: Path
    spec: SweepSpec
    records: tuple[PartRecord, ...]
    summary: dict | None  # the manifest's record of summary.parquet

    @property
    def paths(self) -> list[Path]:
        return [results_dir(self.folder) / r.part for r in self.records]

    @property
    def digest(self) -> str:
        return parts_digest(self.records)

    def current_summary(self) -> Path | None:
        """``summary.parquet`` when the manifest says it summarises exactly these parts and
        its bytes are those recorded; None when it is absent, stale or damaged."""
        record, path = self.summary, self.folder / SUMMARY_FILE
        if record is None or record.get("parts") != self.digest or not path.is_file():
            return None
        if path.stat().st_size != record.get("bytes") or sha256_file(path) != record.get("sha256"):
            return None
        return path


def read_spec(folder: Path) -> SweepSpec:
    """The spec in ``folder/sweep.json``, or :class:`CorruptPartError` naming it."""
    path = Path(folder) / "sweep.json"
    try:
        return SweepSpec.from_json(path.read_text())
    except (OSError, ValueError, TypeError, KeyError) as err:
        raise CorruptPartError(f"{str(path)!r} is not a tilesweep spec ({err}); "
                               "move the folder away or choose another --name") from None


def rerun_command(folder: Path, spec: SweepSpec) -> str:
    """The command that resumes the sweep in ``folder`` (wherever the folder is now)."""
    return dataclasses.replace(spec, out=str(Path(folder).parent)).command()


def stored_spec(meta: dict) -> SweepSpec | None:
    """The spec a part's key-value metadata holds, if it holds one that reads."""
    try:
        return SweepSpec.from_json(meta[SPEC_KEY])
    except (KeyError, ValueError, TypeError):
        return None


def _origin(path: Path, fingerprint: str, chunk: int | None) -> str | None:
    """What the footer of a file that is not its recorded part says it is, if it says."""
    try:
        meta = read_footer(path).metadata or {}
    except CorruptPartError:
        return None
    other = stored_spec(meta)
    if other is not None and other.fingerprint() != fingerprint:
        return f"a part of another sweep ({other.name!r})"
    written = meta.get(CHUNK_KEY)
    if written is not None and written.decode(errors="replace") != str(chunk):
        return f"a copy of chunk {written.decode(errors='replace')}'s part"
    return None


def _unrecorded(path: Path, fingerprint: str) -> Problem:
    if path.is_dir():
        return Problem(path, "is a folder inside results/, not one of the sweep's parts")
    origin = _origin(path, fingerprint, None) or "a file that is not one of the sweep's parts"
    return Problem(path, f"is not recorded in {MANIFEST}: {origin}")


def _damaged(path: Path, record: PartRecord, fingerprint: str, size: int) -> Problem:
    origin = _origin(path, fingerprint, record.chunk)
    if origin is not None:
        return Problem(path, f"was replaced by {origin}")
    if size < record.bytes:
        return Problem(path, f"is truncated ({size:,} of the {record.bytes:,} bytes written)")
    if size != record.bytes:
        return Problem(path, f"has changed size ({size:,} bytes; {record.bytes:,} were written)")
    return Problem(path, "is altered (its sha256 differs from the one recorded when it was written)")


def _sha256(path: Path) -> str | None:
    """The file's sha256, or None when it cannot be read."""
    try:
        return sha256_file(path)
    except OSError:
        return None


def check(folder: Path, spec: SweepSpec, manifest: Manifest, listing: dict[str, int | None],
          hashing: bool = True) -> tuple[list[PartRecord], list[Problem]]:
    """The recorded parts that match and the problems, from the manifest and ``listing``
    (name -> size of each non-hidden entry of ``results/``, None for a folder). Without
    ``hashing`` only names and sizes are compared (a cheap check for progress pages)."""
    results, fingerprint = results_dir(folder), spec.fingerprint()
    good, problems = [], []
    for name in sorted(set(listing) | set(manifest.parts)):
        path, record, size = results / name, manifest.parts.get(name), listing.get(name, -1)
        if record is None or size is None:
            problems.append(_unrecorded(path, fingerprint))
        elif size == -1:
            problems.append(Problem(path, "is missing"))
        elif size != record.bytes:
            problems.append(_damaged(path, record, fingerprint, size))
        elif hashing and (digest := _sha256(path)) != record.sha256:
            problems.append(_damaged(path, record, fingerprint, size) if digest else
                            Problem(path, "cannot be read (check its permissions)"))
        else:
            good.append(record)
    return good, problems


def snapshot(folder: Path) -> tuple[Manifest | None, dict[str, int | None]]:
    """The manifest and the listing of ``results/``, read together under the manifest's
    shared lock (a writer appends and renames under the exclusive one)."""
    with locked(folder, exclusive=False):
        manifest = read_manifest(folder)
        listing = {}
        results = results_dir(folder)
        try:
            for entry in (results.iterdir() if results.is_dir() else ()):
                if not entry.name.startswith((".", "_")):  # hidden: temporary files, as pyarrow skips them
                    listing[entry.name] = None if entry.is_dir() else entry.stat().st_size
        except OSError as err:
            raise CorruptPartError(f"{str(results)!r} cannot be listed ({err.strerror or err}); "
                                   "check its permissions") from None
    return manifest, listing


def problem_line(folder: Path, spec: SweepSpec, problems: list[Problem]) -> str:
    """One line naming the problems (the first few) and the repair."""
    named = "; ".join(str(p) for p in problems[:SHOWN])
    more = f"; and {len(problems) - SHOWN} more" if len(problems) > SHOWN else ""
    return (f"sweep {spec.name!r} cannot be counted: {named}{more}. Rerun the sweep, which moves bad files "
            f"aside to {str(Path(folder) / 'rejected')!r} and recomputes what is missing or damaged: "
            f"{rerun_command(folder, spec)}")


def unadopted_line(folder: Path, spec: SweepSpec) -> str:
    return (f"sweep {spec.name!r} in {str(Path(folder).parent)!r} has no {MANIFEST}: it was written before "
            "tilesweep recorded the checksums of its parts, which therefore cannot be verified; rerun the "
            "sweep, which reads every part in full, records the sound ones and moves the others aside: "
            f"{rerun_command(folder, spec)}")


def header_line(folder: Path, manifest: Manifest) -> str:
    return (f"{str(Path(folder) / MANIFEST)!r} was written for another spec (sweep {manifest.sweep!r}); "
            "move it aside and rerun the sweep, which reads every part in full and records it again")


def verify_sweep(folder: Path, hashing: bool = True, names: set[str] | None = None) -> Verified:
    """The sweep in ``folder`` with every part checked against its manifest (only the parts
    ``names``, when given); :class:`CorruptPartError` with one line otherwise."""
    folder = Path(folder)
    spec = read_spec(folder)
    manifest, listing = snapshot(folder)
    if manifest is None:
        raise CorruptPartError(unadopted_line(folder, spec))
    if manifest.fingerprint != spec.fingerprint():
        raise CorruptPartError(header_line(folder, manifest))
    if names is not None:
        manifest = dataclasses.replace(manifest, parts={n: r for n, r in manifest.parts.items() if n in names})
        listing = {n: s for n, s in listing.items() if n in names}
    good, problems = check(folder, spec, manifest, listing, hashing)
    if problems:
        raise CorruptPartError(problem_line(folder, spec, problems))
    return Verified(folder, spec, tuple(good), manifest.summary)
