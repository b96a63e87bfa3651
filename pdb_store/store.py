"""The pattern-database store: a directory of verified, memory-mapped ``.npy`` tables.

Like a chess tablebase (python-chess ``syzygy``), a store is opened as a context
manager, checks every file against its manifest entry (shape, dtype, length, sha256)
before handing out a read-only ``mmap_mode="r"`` array, and raises an error that names
the file and the fix instead of ever falling back to 0. All processes of a host that map
the same file share one copy of it in the page cache.

>>> with open_store(None) as store:                                  # doctest: +SKIP
...     tables = store.ensure(4, "blank-first", [(1, 2, 3, 6, 7)])
"""

from __future__ import annotations

import datetime
import os
import threading
import time
from pathlib import Path
from typing import Callable, Iterable, Iterator

import numpy as np

from tilesweep.solver.board import goal_tiles
from tilesweep.solver.fsm import Automaton
from tilesweep.solver.heuristics import BLANK_AWARE, BLANK_IGNORING, TABLE_KINDS, ZERO_AWARE, HeuristicSpec
from tilesweep.solver.jit import watch_compiles

from .automata import load_automaton, read_automaton, read_entries
from .build import BuildProgress, build_table, check_goal_group
from .distributions import files as distribution_files, load_distributions
from .errors import CorruptTableError, MissingTableError, StoreError
from .files import atomic_write, file_lock, remove_stale, save_npy, sha256_file
from .ignoring import build_ignoring_table
from .manifest import TableEntry, read_manifest, record_entry, table_format
from .paths import build_hint, lock_path, resolve_store, table_filename, temp_prefix
from .symmetry import find_image, image_table
from .verify import TableCheck, check, check_entry_matches, check_file
from .zeroaware import build_zero_aware_table

Goal = tuple[int, ...] | str
_VERIFIED: dict[tuple, np.ndarray] = {}   # per process: file identity -> verified mapping
_VERIFIED_LOCK = threading.Lock()


def _normalise(size: int, goal: Goal, group: Iterable[int]) -> tuple[tuple[int, ...], tuple[int, ...]]:
    """Goal tiles (resolving ``blank-last``/``blank-first``) and group, validated."""
    tiles = goal_tiles(goal, size) if isinstance(goal, str) else tuple(goal)
    return check_goal_group(size, tiles, tuple(group))


def _check_kind(kind: str) -> str:
    if kind not in TABLE_KINDS:
        raise ValueError(f"table kind {kind!r} is not known; expected one of {TABLE_KINDS}")
    return kind


def _search(size, goal, group, kind, on_layer) -> np.ndarray:
    """Compute the table of ``group`` in the abstraction ``kind``."""
    if kind == BLANK_IGNORING:
        return build_ignoring_table(size, goal, group, on_layer=on_layer)
    if kind == ZERO_AWARE:
        return build_zero_aware_table(size, goal, group, on_layer=on_layer)
    return build_table(size, goal, group, on_layer=on_layer)


def _identity(path: Path, entry: TableEntry) -> tuple:
    """Key of one verified file version: path, inode, size, mtime and recorded hash."""
    stat = path.stat()
    return (str(path), stat.st_dev, stat.st_ino, stat.st_size, stat.st_mtime_ns, entry.sha256)


class PDBStore:
    """A pattern-database store rooted at ``root``; use :func:`open_store` to get one."""

    def __init__(self, root: Path):
        self.root = Path(root)
        self.closed = False

    def __enter__(self) -> "PDBStore":
        return self

    def __exit__(self, *exc_info) -> None:
        self.close()

    def __repr__(self) -> str:
        return f"open_store({str(self.root)!r})"

    def __reduce__(self):
        return open_store, (str(self.root),)

    def close(self) -> None:
        """Refuse further use; arrays already handed out stay valid."""
        self.closed = True

    def _check_open(self) -> None:
        if self.closed:
            raise StoreError(f"pattern database store {self.root} is closed; open it again "
                             "with open_store()")

    def path_of(self, size: int, goal: Goal, group: Iterable[int], kind: str = BLANK_AWARE) -> Path:
        """Where the table of ``group`` for ``goal`` on a ``size`` board is (or would be) kept."""
        goal, group = _normalise(size, goal, group)
        return self.root / table_filename(size, goal, group, _check_kind(kind))

    def entries(self) -> list[TableEntry]:
        """Manifest entries of every table, sorted by file name."""
        self._check_open()
        manifest = read_manifest(self.root)
        return [manifest[name] for name in sorted(manifest)]

    def file_bytes(self, entry: TableEntry) -> int | None:
        """Size on disk of the file of ``entry`` (``.npy`` header included); ``None`` if absent."""
        try:
            return (self.root / entry.file).stat().st_size
        except FileNotFoundError:
            return None

    def _entry(self, size: int, goal: tuple[int, ...], group: tuple[int, ...], kind: str) -> TableEntry:
        """The manifest entry of a table, checked against the request."""
        name = table_filename(size, goal, group, kind)
        entry = read_manifest(self.root).get(name)
        if entry is None:
            path = self.root / name
            why = ("is not recorded in the manifest (an interrupted build?)" if path.exists()
                   else "has not been built")
            raise MissingTableError(f"pattern database {path} {why}; run "
                                    f"`{build_hint(self.root, size, goal, group, kind)}`")
        check_entry_matches(self.root, entry, size, goal, group, kind)
        return entry

    def table(self, size: int, goal: Goal, group: Iterable[int], kind: str = BLANK_AWARE) -> np.ndarray:
        """The verified, read-only, memory-mapped table of ``group``.

        Each file version is hashed once per process; later calls return the same mapping.

        Parameters
        ----------
        size : int
            Board width.
        goal : tuple of int or str
            Goal tiles, or ``"blank-last"`` / ``"blank-first"``.
        group : iterable of int
            Pattern tiles in ascending order.
        kind : str
            The abstraction the table is built in: ``blank-aware`` (tilesweep's own) or
            ``blank-ignoring``; tables of the two kinds are kept apart.

        Returns
        -------
        numpy.memmap
            ``uint8[placement_count(size*size, len(group))]``, read-only, indexed by
            :func:`solver.ranking.rank_placement` of the group tiles' cells.

        Raises
        ------
        MissingTableError
            Never built, or its file is gone.
        CorruptTableError
            Truncated, altered, wrong shape or dtype, or not matching the manifest.
        """
        self._check_open()
        goal, group = _normalise(size, goal, group)
        entry = self._entry(size, goal, group, _check_kind(kind))
        path = self.root / entry.file
        if not path.is_file():
            check_file(self.root, entry)  # raises MissingTableError naming the file
        key = _identity(path, entry)
        with _VERIFIED_LOCK:
            if key in _VERIFIED:
                return _VERIFIED[key]
            check_file(self.root, entry)
            array = np.load(path, mmap_mode="r", allow_pickle=False)
            _VERIFIED[key] = array
            return array

    def build(self, size: int, goal: Goal, group: Iterable[int], force: bool = False,
              on_layer: Callable[[BuildProgress], None] | None = None,
              kind: str = BLANK_AWARE) -> TableEntry:
        """Build one table unless a valid one exists; return its manifest entry.

        Builders of the same table are serialised by an ``flock`` on ``<file>.lock``: the
        second waits, then finds the table built. The file is written under a temporary
        name, fsynced and renamed into place, then recorded in the manifest, so an
        interrupted build leaves nothing under the final name. ``force`` rebuilds anyway;
        ``on_layer`` receives the search's progress (see :func:`build_table`). A table that
        is the image of a stored one under a rotation or reflection of the board is read
        from it instead of searched for (:mod:`pdb_store.symmetry`). ``kind`` is the
        abstraction (see :meth:`table`).
        """
        self._check_open()
        goal, group = _normalise(size, goal, group)
        name = table_filename(size, goal, group, _check_kind(kind))
        _make_root(self.root)
        with file_lock(lock_path(self.root, name)):
            if not force:
                existing = self._valid_entry(size, goal, group, kind)
                if existing is not None:
                    return existing
            remove_stale(self.root, temp_prefix(name))
            return self._build_locked(size, goal, group, name, on_layer, kind)

    def valid_entry(self, size: int, goal: Goal, group: Iterable[int],
                    kind: str = BLANK_AWARE) -> TableEntry | None:
        """The manifest entry of the stored table of ``group`` if it is there and verified
        (:meth:`build` reuses it), else ``None``."""
        self._check_open()
        return self._valid_entry(size, *_normalise(size, goal, group), _check_kind(kind))

    def _valid_entry(self, size, goal, group, kind) -> TableEntry | None:
        """The entry of an existing, verified table, or ``None`` when it must be (re)built."""
        try:
            entry = self._entry(size, goal, group, kind)
            check_file(self.root, entry)
        except (MissingTableError, CorruptTableError):
            return None
        return entry

    def _build_locked(self, size, goal, group, name, on_layer, kind) -> TableEntry:
        """Compute, write and record a table; the caller holds its lock."""
        with watch_compiles() as compiling:  # a build's time leaves out compiling its kernels
            started = time.perf_counter()
            table = self._image_of(size, goal, group, kind)
            if table is None:
                table = _search(size, goal, group, kind, on_layer)
            seconds = time.perf_counter() - started - compiling.seconds
        path = self.root / name
        atomic_write(path, lambda handle: save_npy(handle, table), prefix=temp_prefix(name), mode=0o444)
        entry = TableEntry(
            file=name, size=size, goal=goal, group=group, entries=int(table.size),
            sha256=sha256_file(path),
            built_at=datetime.datetime.now(datetime.timezone.utc).isoformat(),
            build_seconds=round(seconds, 6), max_value=int(table.max()),
            mean_value=float(table.mean(dtype=np.float64)), format_version=table_format(kind), kind=kind)
        record_entry(self.root, entry)
        return entry

    def _image_of(self, size, goal, group, kind) -> np.ndarray | None:
        """``group``'s table read from a stored table of the same kind it is the image of
        under a symmetry of the board (:mod:`pdb_store.symmetry`), or ``None`` when none is
        stored (or the kind is zero-aware: the images map placement ranks only)."""
        if kind == ZERO_AWARE:
            return None
        stored = [e.group for e in read_manifest(self.root).values()
                  if e.size == size and e.goal == goal and e.kind == kind]
        image = find_image(size, goal, group, stored)
        if image is None:
            return None
        try:
            source = self.table(size, goal, image.source, kind)
        except (MissingTableError, CorruptTableError):
            return None
        return image_table(size, image, source)

    def ensure(self, size: int, goal: Goal, groups: Iterable[Iterable[int]],
               on_build: Callable[[tuple[int, ...]], None] | None = None,
               on_layer: Callable[[BuildProgress], None] | None = None,
               kinds: Iterable[str] | None = None) -> tuple[np.ndarray, ...]:
        """Build the missing tables of ``groups`` and return all of them, in order.

        ``kinds`` gives each group's table kind (default: all ``blank-aware``).
        ``on_build(group)`` is called before each build (e.g. for the CLI to say so). A
        corrupt table is not silently rebuilt: its :class:`CorruptTableError` propagates.
        """
        groups = list(groups)
        tables = []
        for group, kind in zip(groups, kinds or [BLANK_AWARE] * len(groups), strict=True):
            try:
                tables.append(self.table(size, goal, group, kind))
            except MissingTableError:
                if on_build is not None:
                    on_build(tuple(group))
                self.build(size, goal, group, on_layer=on_layer, kind=kind)
                tables.append(self.table(size, goal, group, kind))
        return tuple(tables)

    def automaton(self, size: int, depth: int) -> Automaton:
        """The pruning automaton of a board width and depth (:mod:`solver.fsm`), read and
        checked from the store, built into it first when missing; see :mod:`pdb_store.automata`."""
        self._check_open()
        _make_root(self.root)
        return load_automaton(self.root, size, depth)

    def distributions(self, identity: dict, compute):
        """(a heuristic's distributions, whether read from the store): those of ``identity``,
        computed by ``compute()`` and kept first when missing; see :mod:`pdb_store.distributions`."""
        self._check_open()
        _make_root(self.root)
        return load_distributions(self.root, identity, compute)

    def verify(self, deep: bool = False) -> list[TableCheck]:
        """Re-hash every table of the manifest; also report ``.npy`` files it does not list.

        With ``deep`` also check each table's values (:mod:`pdb_store.deep`); see
        :meth:`checks` to get the results one table at a time.
        """
        return list(self.checks(deep))

    def checks(self, deep: bool = False) -> Iterator[TableCheck]:
        """:meth:`verify`, yielding each table's result as soon as it is known."""
        self._check_open()
        manifest = read_manifest(self.root)
        for name in sorted(manifest):
            yield check(self.root, manifest[name], deep)
        for name, entry in sorted(read_entries(self.root).items()):
            try:
                read_automaton(self.root, entry)
                yield TableCheck(name, True, None, None)
            except (CorruptTableError, FileNotFoundError) as error:
                yield TableCheck(name, False, str(error), None)
        known = set(manifest) | set(read_entries(self.root)) | distribution_files(self.root)
        for orphan in sorted(p.name for p in self.root.glob("*.npy") if p.name not in known):
            yield TableCheck(orphan, False, f"pattern database {self.root / orphan} is "
                             "not recorded in the manifest; delete it or rebuild it "
                             "with `tilesweep pdb build`", None)


def _make_root(root: Path) -> None:
    """Create the store directory, refusing a path that is not a directory."""
    if root.exists() and not root.is_dir():
        raise StoreError(f"pattern database store {root} is not a directory; give another "
                         "--store DIR or set TILESWEEP_STORE")
    root.mkdir(parents=True, exist_ok=True)


def open_store(path: str | os.PathLike | None = None) -> PDBStore:
    """Open the store at ``path`` (see :func:`resolve_store` for the default); a context manager.

    Raises
    ------
    StoreError
        When the path exists and is not a directory.
    """
    root = resolve_store(path)
    if root.exists() and not root.is_dir():
        raise StoreError(f"pattern database store {root} is not a directory; give another "
                         "--store DIR or set TILESWEEP_STORE")
    return PDBStore(root)


def tables_for(spec: HeuristicSpec, size: int, goal: Goal, store: PDBStore, build: bool = True,
               on_build: Callable[[tuple[int, ...]], None] | None = None,
               on_layer: Callable[[BuildProgress], None] | None = None) -> tuple[np.ndarray, ...]:
    """The tables of ``spec.groups`` in order (``()`` for a non-PDB heuristic).

    With ``build`` missing tables are built first (``on_build(group)`` announces each,
    ``on_layer`` receives each build's progress);
    without it a missing table raises :class:`MissingTableError`.
    """
    if not spec.is_pdb:
        return ()
    kinds = [kind for _, kind in spec.tables]
    if build:
        return store.ensure(size, goal, spec.groups, on_build, on_layer, kinds)
    return tuple(store.table(size, goal, group, kind) for group, kind in spec.tables)
