"""Building one pattern database: validation, the search's setup, and its layer loop.

:func:`build_table` is the public wrapper of the kernels in :mod:`pdb_store.bfs`.
"""

from __future__ import annotations

import mmap
import time
from typing import Callable, NamedTuple

import numpy as np

from tilesweep.solver.errors import InvalidBoardError
from tilesweep.solver.geometry import SIZES
from tilesweep.solver.jit import watch_compiles
from tilesweep.solver.ranking import digit_weights, placement_count, rank_placement

from .bfs import CHUNK, UNREACHED, _compact, _expand_layer, _expand_layer_serial, _flood

MAX_DEPTH = UNREACHED - 1
#: Tables smaller than this are built on one thread: per-layer thread start-up would dominate.
PARALLEL_MIN_ENTRIES = 1 << 22
HUGE_PAGE = 1 << 21  # bytes: smaller arrays are allocated as usual


def check_goal_group(size: int, goal: tuple[int, ...],
                     group: tuple[int, ...]) -> tuple[tuple[int, ...], tuple[int, ...]]:
    """Validate a goal and a pattern group; return both as tuples of ``int``.

    Raises
    ------
    InvalidBoardError
        Quoting the bad size, goal or group and saying what was expected.
    """
    if size not in SIZES:
        raise InvalidBoardError(f"size {size!r} is not supported for pattern databases; "
                                f"expected one of {SIZES}")
    n = size * size
    goal, group = tuple(int(t) for t in goal), tuple(int(t) for t in group)
    if sorted(goal) != list(range(n)):
        raise InvalidBoardError(f"goal {goal!r} is not a permutation of 0..{n - 1} for size {size}")
    if not group or any(not 1 <= t < n for t in group):
        raise InvalidBoardError(f"pattern group {group!r} must hold 1 to {n - 2} tiles of 1..{n - 1} "
                                "(never the blank 0)")
    if list(group) != sorted(set(group)) or len(group) > n - 2:
        raise InvalidBoardError(f"pattern group {group!r} must list distinct tiles in ascending "
                                f"order, at most {n - 2} of them; e.g. {tuple(sorted(set(group)))!r}")
    return goal, group


def _geometry(size: int, k: int) -> np.ndarray:
    """The ``int64[5]`` geometry vector of :func:`pdb_store.bfs._expand_layer`."""
    n = size * size
    not_left = sum(1 << c for c in range(n) if c % size != 0)
    not_right = sum(1 << c for c in range(n) if c % size != size - 1)
    return np.array([k, n, size, not_left, not_right], dtype=np.int64)


def huge_array(count: int, dtype, fill: int = 0) -> np.ndarray:
    """``count`` elements of ``dtype`` set to ``fill``, in private memory the kernel is asked
    to back with 2 MB pages (``MADV_HUGEPAGE``) where it supports them: the search reads and
    writes its tables at random, and over 4 KB pages most of those accesses miss the TLB
    and a first touch faults every 4 KB."""
    nbytes = count * np.dtype(dtype).itemsize
    if nbytes < HUGE_PAGE or not hasattr(mmap, "MADV_HUGEPAGE"):
        return np.full(count, fill, dtype=dtype)
    memory = mmap.mmap(-1, nbytes, flags=mmap.MAP_PRIVATE | mmap.MAP_ANONYMOUS)  # zero-filled
    memory.madvise(mmap.MADV_HUGEPAGE)
    array = np.frombuffer(memory, dtype=dtype)  # keeps the mapping alive
    if fill:
        array.fill(fill)
    return array


def mark_dtype(free_cells: int) -> type:
    """The smallest unsigned integer holding the two label planes of ``free_cells`` bits
    each (:func:`pdb_store.bfs._expand_layer`): uint16 for the 4x4 8-tile table."""
    return next(t for t in (np.uint16, np.uint32, np.uint64) if 2 * free_cells <= 8 * t().itemsize)


def _free_cells(size: int, goal, group) -> int:
    """The cells the group's tiles leave free in the goal, as board-cell bits."""
    return (1 << (size * size)) - 1 - sum(1 << goal.index(t) for t in group)


def goal_region(size: int, goal, group, geometry) -> int:
    """The goal's blank region (the free cells the blank reaches), as board-cell bits."""
    free = np.int64(_free_cells(size, goal, group))
    return int(_flood(np.int64(1 << goal.index(0)), free, np.int64(size), geometry[3], geometry[4]))


def _goal_state(size: int, goal, group, geometry) -> tuple[int, int]:
    """Rank of the goal placement and the blank region of the goal, as free-cell bits."""
    cells = [goal.index(t) for t in group]
    rank = int(rank_placement(np.array(cells, dtype=np.int64), size * size))
    free = np.int64(_free_cells(size, goal, group))
    return rank, int(_compact(np.int64(goal_region(size, goal, group, geometry)), free))


class BuildProgress(NamedTuple):
    """Where a build stands after a BFS layer: ``filled`` of ``entries`` placements have a
    value; ``states`` (placement, blank region) states are reached, ``frontier`` of them by
    this layer, so the next layer expands them."""

    group: tuple[int, ...]
    depth: int
    filled: int
    entries: int
    seconds: float
    states: int = 0
    frontier: int = 0

    def remaining_seconds(self) -> float | None:
        """Time left, from the layers measured so far: a layer's time goes with the states it
        expands, so the states still to expand (the frontier, and those of the placements not
        reached yet at the states per placement reached so far) at the seconds per state
        expanded so far. ``None`` before any state was expanded in measured time."""
        expanded = self.states - self.frontier
        if expanded <= 0 or self.seconds <= 0 or self.filled <= 0:
            return None
        to_expand = self.frontier + (self.entries - self.filled) * self.states / self.filled
        return to_expand * self.seconds / expanded


def build_table(size: int, goal: tuple[int, ...], group: tuple[int, ...],
                parallel: bool | None = None,
                on_layer: Callable[[BuildProgress], None] | None = None) -> np.ndarray:
    """Build the additive pattern database of ``group`` for ``goal``.

    Entry ``rank_placement(cells, size*size)`` (``cells`` = the cell of each group tile,
    in group order) is the fewest moves *of the group's tiles* that bring them to their
    goal cells, minimised over blank positions, where other tiles are indistinguishable
    and the blank crosses free cells at cost 0 (Korf & Felner 2002). The goal state is
    the goal placement with the blank in the goal blank's region. Computed by a
    parallel backward breadth-first search (:func:`pdb_store.bfs._expand_layer`).

    Parameters
    ----------
    size : int
        Board width n (3, 4 or 5).
    goal : tuple of int, length n*n
        Goal tiles, row-major, 0 the blank.
    group : tuple of int
        Pattern tiles, distinct, ascending, without 0.
    parallel : bool, optional
        Use all numba threads (default: for tables of ``PARALLEL_MIN_ENTRIES`` or more).
    on_layer : callable, optional
        Called with a :class:`BuildProgress` after each layer (a few dozen times a build);
        its seconds leave out numba compiling the kernels (a first run's first layer).

    Returns
    -------
    numpy.ndarray
        ``uint8[placement_count(n*n, len(group))]``; placements no blank position
        connects to the goal (only possible with n*n - 2 pattern tiles) hold 255.

    Raises
    ------
    InvalidBoardError
        Bad size, goal or group.
    """
    goal, group = check_goal_group(size, goal, group)
    n, k = size * size, len(group)
    count = placement_count(n, k)
    geometry, weights = _geometry(size, k), digit_weights(n, k)
    table = huge_array(count, np.uint8, UNREACHED)
    marks = huge_array(count, mark_dtype(n - k))
    start, region = _goal_state(size, goal, group, geometry)
    table[start], marks[start] = 0, region  # label of depth 0: the first plane
    chunk_ranks = CHUNK * (n - k + 1)
    active, coming = (np.zeros(-(-count // chunk_ranks), dtype=np.uint8) for _ in range(2))
    active[start // chunk_ranks] = 1
    depth = 0
    if parallel is None:
        parallel = count >= PARALLEL_MIN_ENTRIES
    layer = _expand_layer if parallel else _expand_layer_serial
    started, filled, states = time.perf_counter(), 1, 1
    with watch_compiles() as compiling:  # the first layer compiles the kernels on a first run
        while True:
            found, placements = layer(marks, table, depth, geometry, weights, active, coming)
            if found == 0:
                break
            depth, filled, states = depth + 1, filled + int(placements), states + int(found)
            if on_layer is not None:
                seconds = time.perf_counter() - started - compiling.seconds
                on_layer(BuildProgress(group, depth, filled, count, seconds, states, int(found)))
            if depth > MAX_DEPTH:
                raise OverflowError(f"pattern group {group!r} needs more than {MAX_DEPTH} moves; "
                                    "a uint8 table cannot hold it")
            active, coming = coming, active
            coming[:] = 0
    return table


def fill_by_layers(group: tuple[int, ...], count: int, layer: Callable[[int], int],
                   on_layer: Callable[[BuildProgress], None] | None) -> None:
    """A breadth-first build that scans its table for each depth: ``layer(depth)`` marks the
    states one move beyond those at ``depth`` and returns how many, until a layer finds none.
    ``on_layer`` as :func:`build_table`'s (states and entries are one here)."""
    depth, filled, started = 0, 1, time.perf_counter()
    with watch_compiles() as compiling:  # the first layer compiles the kernel on a first run
        while True:
            found = int(layer(depth))
            if found == 0:
                return
            depth, filled = depth + 1, min(count, filled + found)
            if depth > MAX_DEPTH:
                raise OverflowError(f"pattern group {group!r} needs more than {MAX_DEPTH} moves; "
                                    "a uint8 table cannot hold it")
            if on_layer is not None:
                seconds = time.perf_counter() - started - compiling.seconds
                on_layer(BuildProgress(group, depth, filled, count, seconds, filled, found))


def warm_build(size: int, groups=None) -> None:
    """Compile, or load from numba's cache, the kernels that build the tables of ``groups``
    (default: any) on a ``size`` board: build the table of one tile (``size*size`` entries)
    the way each of them is built, on one thread or on all (:data:`PARALLEL_MIN_ENTRIES`)."""
    goal = tuple(range(1, size * size)) + (0,)
    ways = (False, True) if groups is None else \
        {placement_count(size * size, len(group)) >= PARALLEL_MIN_ENTRIES for group in groups}
    for parallel in sorted(ways):
        build_table(size, goal, (1,), parallel=parallel)
