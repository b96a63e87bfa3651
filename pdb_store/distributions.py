"""A heuristic's distributions (:mod:`solver.hdist`) kept in the store beside the tables they
describe, so a prediction samples a million states once per store, not once per command.

An entry is named by the sha256 of its identity: the heuristic's name, board width, goal,
method (``exact`` or ``sampled``), the number of states and the seed, and for a plugin the
sha256 of its source (a changed plugin is a new entry). Its three arrays are
``hdist_<n>x<n>_<digest>_{cells,step,step2}.npy`` (int64, no pickle), written atomically
under the entry's lock; ``distributions.json`` records each entry's identity, spread, and
each file's sha256, rewritten atomically under the store-wide lock. A file whose checksum
does not match is refused with the way to fix it, never recomputed silently.
"""

from __future__ import annotations

import datetime
import hashlib
import json
import time
from pathlib import Path
from typing import Callable

import numpy as np

from tilesweep.solver.hdist import Distributions

from .errors import CorruptTableError
from .files import atomic_write, file_lock, remove_stale, save_npy, sha256_file
from .manifest import FORMAT_VERSION
from .paths import MANIFEST_LOCK, lock_path, temp_prefix

DISTRIBUTIONS_MANIFEST = "distributions.json"
PARTS = ("cells", "step", "step2")
PREFIX = "hdist_"


def identity_digest(identity: dict) -> str:
    """The first 16 hex digits of the sha256 of ``identity`` as sorted JSON."""
    return hashlib.sha256(json.dumps(identity, sort_keys=True).encode()).hexdigest()[:16]


def part_name(size: int, digest: str, part: str) -> str:
    return f"{PREFIX}{size}x{size}_{digest}_{part}.npy"


def read_entries(root: Path) -> dict[str, dict]:
    """Entries of ``distributions.json`` by digest; empty when there is none."""
    path = root / DISTRIBUTIONS_MANIFEST
    try:
        return dict(json.loads(path.read_text(encoding="utf-8"))["distributions"])
    except FileNotFoundError:
        return {}
    except (json.JSONDecodeError, KeyError, TypeError, ValueError) as error:
        raise CorruptTableError(f"distribution manifest {path} is not a tilesweep manifest ({error}); "
                                f"delete it and the {PREFIX}*.npy files (they are sampled again on next use)") from None


def files(root: Path) -> set[str]:
    """The ``.npy`` files the distribution manifest records."""
    return {name for entry in read_entries(root).values() for name in entry["sha256"]}


def _record(root: Path, digest: str, entry: dict) -> None:
    with file_lock(root / MANIFEST_LOCK):
        entries = read_entries(root)
        entries[digest] = entry
        data = {"format_version": FORMAT_VERSION, "distributions": dict(sorted(entries.items()))}
        payload = (json.dumps(data, indent=2) + "\n").encode("utf-8")
        atomic_write(root / DISTRIBUTIONS_MANIFEST, lambda handle: handle.write(payload))


def _write(root: Path, identity: dict, digest: str, dist: Distributions, seconds: float) -> dict:
    size = dist.size
    sums = {}
    for part in PARTS:
        name = part_name(size, digest, part)
        remove_stale(root, temp_prefix(name))
        array = np.ascontiguousarray(getattr(dist, part), dtype=np.int64)
        atomic_write(root / name, lambda handle, a=array: save_npy(handle, a), prefix=temp_prefix(name), mode=0o444)
        sums[name] = sha256_file(root / name)
    entry = {"identity": identity, "spread": dist.spread, "states": dist.states, "tilted": dist.tilted, "sha256": sums,
             "format_version": FORMAT_VERSION, "build_seconds": round(seconds, 3),
             "built_at": datetime.datetime.now(datetime.timezone.utc).isoformat()}
    _record(root, digest, entry)
    return entry


def _read(root: Path, digest: str, entry: dict) -> Distributions:
    arrays = {}
    for part in PARTS:
        path = root / part_name(entry["identity"]["size"], digest, part)
        if not path.is_file() or sha256_file(path) != entry["sha256"].get(path.name):
            raise CorruptTableError(f"heuristic distribution {path} is missing or does not match its sha256 in "
                                    f"{root / DISTRIBUTIONS_MANIFEST}; delete its entry and files to sample again")
        arrays[part] = np.load(path, allow_pickle=False)
    ident = entry["identity"]
    return Distributions(ident["size"], entry["spread"], arrays["cells"], arrays["step"], arrays["step2"],
                         ident["method"], entry.get("states", ident["states"]), ident.get("seed"),
                         entry.get("tilted", 0))


def load_distributions(root: Path, identity: dict, compute: Callable[[], Distributions]) -> tuple[Distributions, bool]:
    """(the distributions of ``identity``, whether they were read from the store rather
    than computed now): computed by ``compute()`` and written once, under the entry's lock."""
    digest = identity_digest(identity)
    entry = read_entries(root).get(digest)
    if entry is not None:
        return _read(root, digest, entry), True
    root.mkdir(parents=True, exist_ok=True)
    with file_lock(lock_path(root, part_name(identity["size"], digest, "cells"))):
        entry = read_entries(root).get(digest)
        if entry is not None:
            return _read(root, digest, entry), True
        started = time.perf_counter()
        dist = compute()
        _write(root, identity, digest, dist, time.perf_counter() - started)
        return dist, False
