"""The store's manifest: one JSON file recording every table and how to check it.

``manifest.json`` holds ``{"format_version": 1, "tables": {file: entry}}``; an entry is
a :class:`TableEntry`. It is rewritten atomically under the store-wide lock
``manifest.lock``, so readers never see a partial file and need no lock.
"""

from __future__ import annotations

import json
from dataclasses import asdict, dataclass
from pathlib import Path

from tilesweep.solver.board import goal_label
from tilesweep.solver.heuristics import BLANK_AWARE, ZERO_AWARE

from .errors import CorruptTableError
from .files import atomic_write, file_lock
from .paths import MANIFEST_LOCK, MANIFEST_NAME

#: Version of the table format and manifest layout; a table of another version is refused.
FORMAT_VERSION = 1
#: Table kinds whose layout has changed since: zero-aware tables put the tile order first
#: from version 2 on (:mod:`solver.zeroaware`); one laid out set by set is refused.
KIND_FORMAT_VERSIONS = {ZERO_AWARE: 2}


def table_format(kind: str) -> int:
    """The format version a table of ``kind`` is written in and read in."""
    return KIND_FORMAT_VERSIONS.get(kind, FORMAT_VERSION)


@dataclass(frozen=True)
class TableEntry:
    """What the manifest records about one table.

    ``file`` is relative to the store; ``goal`` and ``group`` are tile tuples; ``entries``
    is the table length; ``built_at`` an ISO-8601 UTC time; ``max_value`` and
    ``mean_value`` summarise the table (255 marks unreachable placements);
    ``format_version`` is :func:`table_format` of its kind when written. ``kind`` is the
    abstraction it was built in (:data:`solver.heuristics.TABLE_KINDS`); entries written
    before there were two kinds have none and are tilesweep's own.
    """

    file: str
    size: int
    goal: tuple[int, ...]
    group: tuple[int, ...]
    entries: int
    sha256: str
    built_at: str
    build_seconds: float
    max_value: int
    mean_value: float
    format_version: int = FORMAT_VERSION
    dtype: str = "uint8"
    kind: str = BLANK_AWARE

    @property
    def goal_name(self) -> str:
        """``blank-last``, ``blank-first`` or the goal tiles separated by spaces."""
        return goal_label(self.goal)

    def as_dict(self) -> dict:
        """The entry as JSON-ready data (tuples become lists)."""
        data = asdict(self)
        data["goal"], data["group"] = list(self.goal), list(self.group)
        return data

    @classmethod
    def from_dict(cls, data: dict) -> "TableEntry":
        """Read an entry written by :meth:`as_dict`; ``KeyError``/``TypeError`` if malformed."""
        fields = dict(data)
        fields["goal"], fields["group"] = tuple(data["goal"]), tuple(data["group"])
        return cls(**fields)


def _corrupt(path: Path, problem: str) -> CorruptTableError:
    return CorruptTableError(f"manifest {path} {problem}; delete it (the tables it lists "
                             "will then be rebuilt) or run `tilesweep pdb verify` to see which "
                             "tables are affected")


def read_manifest(root: Path) -> dict[str, TableEntry]:
    """Entries of the manifest in ``root``, by file name; empty when there is none.

    Raises
    ------
    CorruptTableError
        When the manifest is not valid JSON of the expected layout, naming it.
    """
    path = root / MANIFEST_NAME
    try:
        text = path.read_text(encoding="utf-8")
    except FileNotFoundError:
        return {}
    try:
        data = json.loads(text)
        tables = data["tables"]
        return {name: TableEntry.from_dict(entry) for name, entry in tables.items()}
    except (json.JSONDecodeError, KeyError, TypeError, AttributeError) as error:
        raise _corrupt(path, f"is not a tilesweep manifest ({error})") from None


def _dump(entries: dict[str, TableEntry]) -> bytes:
    tables = {name: entries[name].as_dict() for name in sorted(entries)}
    return (json.dumps({"format_version": FORMAT_VERSION, "tables": tables}, indent=2)
            + "\n").encode("utf-8")


def record_entry(root: Path, entry: TableEntry) -> None:
    """Add or replace ``entry`` in the manifest, atomically, under the store-wide lock."""
    with file_lock(root / MANIFEST_LOCK):
        entries = read_manifest(root)
        entries[entry.file] = entry
        payload = _dump(entries)
        atomic_write(root / MANIFEST_NAME, lambda handle: handle.write(payload))
