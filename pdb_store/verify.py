"""Checking one table file against its manifest entry before anyone reads it."""

from __future__ import annotations

from pathlib import Path
from typing import NamedTuple

import numpy as np

from tilesweep.solver.heuristics import BLANK_AWARE, ZERO_AWARE, expected_table_size

from .deep import first_bad_entry
from .errors import CorruptTableError, MissingTableError
from .files import read_npy_header, sha256_file
from .manifest import TableEntry, table_format
from .paths import build_hint
from .zeroaware import first_bad_state


class TableCheck(NamedTuple):
    """Outcome of verifying one table: ``ok``, else ``problem`` says what and how to fix."""

    file: str
    ok: bool
    problem: str | None
    entry: TableEntry | None


def corrupt(root: Path, entry: TableEntry, problem: str) -> CorruptTableError:
    """A :class:`CorruptTableError` naming the file, the problem and the fix."""
    path = root / entry.file
    return CorruptTableError(f"pattern database {path} {problem}; delete it and run "
                             f"`{build_hint(root, entry.size, entry.goal, entry.group, entry.kind)}`, "
                             "or run `tilesweep pdb verify` to check the whole store")


def check_entry_matches(root: Path, entry: TableEntry, size: int, goal: tuple[int, ...],
                        group: tuple[int, ...], kind: str = BLANK_AWARE) -> None:
    """Refuse a manifest entry of another format or for another table (of another kind
    included) than requested."""
    if entry.format_version != table_format(entry.kind):
        raise corrupt(root, entry, f"has format version {entry.format_version!r}; this "
                                   f"tilesweep reads {entry.kind} tables of version {table_format(entry.kind)}")
    expected = expected_table_size(size, group, kind)
    recorded = (entry.size, tuple(entry.goal), tuple(entry.group), entry.entries, entry.dtype, entry.kind)
    wanted = (size, tuple(goal), tuple(group), expected, "uint8", kind)
    if recorded != wanted:
        raise corrupt(root, entry, f"has a manifest entry (size, goal, group, entries, dtype, kind) = "
                                   f"{recorded!r} that does not match the expected {wanted!r}")


def check_file(root: Path, entry: TableEntry) -> None:
    """Check the file of ``entry``: present, ``.npy`` header, shape, dtype, length, sha256.

    Raises
    ------
    MissingTableError
        When the file is absent.
    CorruptTableError
        On any mismatch, naming the file and the fix.
    """
    path = root / entry.file
    if not path.is_file():
        raise MissingTableError(f"pattern database {path} is listed in the manifest but missing; "
                                f"run `{build_hint(root, entry.size, entry.goal, entry.group, entry.kind)}`")
    try:
        shape, dtype, _fortran, offset = read_npy_header(path)
    except ValueError as error:
        raise corrupt(root, entry, f"is not a readable .npy file ({error})") from None
    if dtype != np.dtype(np.uint8) or shape != (entry.entries,):
        raise corrupt(root, entry, f"holds {dtype}{list(shape)}; expected uint8[{entry.entries}]")
    actual, expected = path.stat().st_size, offset + entry.entries
    if actual != expected:
        kind = "is truncated" if actual < expected else "has trailing bytes"
        raise corrupt(root, entry, f"{kind}: {actual} bytes where {expected} were written")
    digest = sha256_file(path)
    if digest != entry.sha256:
        raise corrupt(root, entry, f"was altered: its sha256 is {digest}, the manifest "
                                   f"recorded {entry.sha256}")


def check_content(root: Path, entry: TableEntry) -> None:
    """Check the values of a verified file by the rules of :mod:`pdb_store.deep`.

    Raises
    ------
    CorruptTableError
        Naming the first entry that breaks a rule, its placement and the fix.
    """
    table = np.load(root / entry.file, mmap_mode="r", allow_pickle=False)
    if entry.kind == ZERO_AWARE:
        problem = first_bad_state(table, entry.size, tuple(entry.goal), tuple(entry.group))
        if problem is not None:
            raise corrupt(root, entry, f"holds values no zero-aware pattern database can hold, though its "
                                       f"checksum matches the manifest: {problem}")
        return
    bad = first_bad_entry(table, entry.size, tuple(entry.goal), tuple(entry.group))
    if bad is not None:
        raise corrupt(root, entry, "holds values no pattern database can hold, though its "
                                   f"checksum matches the manifest: {bad.describe(entry.group)}")


def check(root: Path, entry: TableEntry, deep: bool = False) -> TableCheck:
    """Verify ``entry`` and its file (and with ``deep`` its values) without raising."""
    try:
        check_entry_matches(root, entry, entry.size, entry.goal, entry.group, entry.kind)
        check_file(root, entry)
        if deep:
            check_content(root, entry)
    except (MissingTableError, CorruptTableError) as error:
        return TableCheck(entry.file, False, str(error), entry)
    return TableCheck(entry.file, True, None, entry)
