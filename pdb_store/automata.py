"""Pruning automata (:mod:`solver.fsm`) kept in the store like the tables.

Building the 4x4 automaton of depth 14 searches move strings for about a CPU second
(several seconds of wall time on a busy machine); reading and checking its 1.2 MB file
takes about a millisecond (measured in docs/heuristics.md), so it is built once per store
and read everywhere else. ``fsm_<n>x<n>_depth<D>.npy`` holds ``int32[2, S * 4]``: the full
and the strict transition tables. ``automata.json`` records each file's width, depth,
string and state counts and sha256, rewritten atomically under the store-wide lock; a
builder holds the file's own lock, so concurrent processes build it once. A file whose
checksum, dtype or shape does not match its entry is refused, never rebuilt silently.
"""

from __future__ import annotations

import datetime
import json
import time
from dataclasses import asdict, dataclass
from pathlib import Path

import numpy as np

from tilesweep.solver.fsm import Automaton, build_automaton, remember

from .errors import CorruptTableError
from .files import atomic_write, file_lock, remove_stale, save_npy, sha256_file
from .manifest import FORMAT_VERSION
from .paths import MANIFEST_LOCK, lock_path, temp_prefix

AUTOMATA_MANIFEST = "automata.json"


@dataclass(frozen=True)
class AutomatonEntry:
    """What ``automata.json`` records about one automaton file."""

    file: str
    size: int
    depth: int
    strings: int
    states: int
    sha256: str
    built_at: str
    build_seconds: float
    format_version: int = FORMAT_VERSION


def automaton_filename(size: int, depth: int) -> str:
    """File name of an automaton, e.g. ``fsm_4x4_depth14.npy``."""
    return f"fsm_{size}x{size}_depth{depth}.npy"


def read_entries(root: Path) -> dict[str, AutomatonEntry]:
    """Entries of ``automata.json`` by file name; empty when there is none."""
    path = root / AUTOMATA_MANIFEST
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
        return {name: AutomatonEntry(**entry) for name, entry in data["automata"].items()}
    except FileNotFoundError:
        return {}
    except (json.JSONDecodeError, KeyError, TypeError, AttributeError) as error:
        raise CorruptTableError(f"automaton manifest {path} is not a tilesweep manifest ({error}); "
                                "delete it and the fsm_*.npy files (they are rebuilt on next use)") from None


def _record(root: Path, entry: AutomatonEntry) -> None:
    """Add ``entry`` to ``automata.json``, atomically, under the store-wide lock."""
    with file_lock(root / MANIFEST_LOCK):
        entries = read_entries(root)
        entries[entry.file] = entry
        data = {"format_version": FORMAT_VERSION,
                "automata": {name: asdict(entries[name]) for name in sorted(entries)}}
        payload = (json.dumps(data, indent=2) + "\n").encode("utf-8")
        atomic_write(root / AUTOMATA_MANIFEST, lambda handle: handle.write(payload))


def _build(root: Path, size: int, depth: int) -> AutomatonEntry:
    """Build, write and record one automaton; the caller holds its lock."""
    name = automaton_filename(size, depth)
    remove_stale(root, temp_prefix(name))
    started = time.perf_counter()
    table = build_automaton(size, depth)
    seconds = time.perf_counter() - started
    array = np.stack([table.full, table.strict])
    atomic_write(root / name, lambda handle: save_npy(handle, array), prefix=temp_prefix(name), mode=0o444)
    entry = AutomatonEntry(name, size, depth, table.strings, table.full.size // 4, sha256_file(root / name),
                           datetime.datetime.now(datetime.timezone.utc).isoformat(), round(seconds, 6))
    _record(root, entry)
    return entry


def read_automaton(root: Path, entry: AutomatonEntry) -> Automaton:
    """The automaton of ``entry``, after checking its file's sha256, dtype and shape."""
    path = root / entry.file
    problem = None
    if entry.format_version != FORMAT_VERSION:
        problem = f"has format version {entry.format_version!r}, not {FORMAT_VERSION}"
    elif sha256_file(path) != entry.sha256:
        problem = f"does not match its sha256 in {root / AUTOMATA_MANIFEST}"
    if problem is None:
        array = np.load(path, allow_pickle=False)
        if array.dtype != np.int32 or array.shape != (2, entry.states * 4):
            problem = f"holds {array.dtype} {array.shape}, not int32 (2, {entry.states * 4})"
    if problem is not None:
        raise CorruptTableError(f"pruning automaton {path} {problem}; delete it (it is rebuilt on next use)")
    full, strict = np.ascontiguousarray(array[0]), np.ascontiguousarray(array[1])
    for table in (full, strict):
        table.flags.writeable = False
    return Automaton(entry.size, entry.depth, full, strict, entry.strings)


def load_automaton(root: Path, size: int, depth: int) -> Automaton:
    """The store's automaton of a width and depth, built once under its lock when missing;
    it is also remembered for this process (:func:`solver.fsm.remember`)."""
    name = automaton_filename(size, depth)
    entry = read_entries(root).get(name)
    if entry is None or not (root / name).is_file():
        with file_lock(lock_path(root, name)):
            entry = read_entries(root).get(name)
            if entry is None or not (root / name).is_file():
                entry = _build(root, size, depth)
    table = read_automaton(root, entry)
    remember(table)
    return table
