"""Checking a table's content the way its construction guarantees it (``pdb verify --deep``).

A checksum proves a file is the one that was written; these rules prove the numbers in it
are a pattern database. ``v`` is the value of placement ``p``; a *neighbour* of ``p`` is a
placement one move of a pattern tile away: the tile slides onto an adjacent cell no
pattern tile occupies (the blank can be there: it roams its region for free), and the
blank ends on the tile's old cell.

1. The goal placement holds 0.
2. Parity: every value has the parity of the pattern tiles' Manhattan distance, since each
   move changes that distance by one and blank moves cost nothing.
3. Descent: every other placement with a value (not 255) has a neighbour holding less; the
   first move of its shortest path leads there. It need not be exactly ``v - 1``: when the
   move splits the free cells into regions, the neighbour's value may come from another
   region of the blank (most tables of 3x3 groups have such placements).
4. One region: no placement holds more than one above a neighbour whose free cells form one
   region, for the blank there can slide the tile back at cost 1. So no entry is 255 where
   a placement is reachable.

An entry changed by one breaks rule 2 at its own index. The scan runs in parallel over
rank prefixes, like the build (:mod:`pdb_store.bfs`).
"""

from __future__ import annotations

from typing import NamedTuple

import numpy as np
from numba import prange
from numba.cpython.unsafe.numbers import trailing_zeros

from tilesweep.solver.geometry import neighbours
from tilesweep.solver.jit import kernel, parallel_kernel
from tilesweep.solver.ranking import digit_weights, moved_rank, rank_placement, unrank_placement

from .bfs import UNREACHED, _flood, place_prefix
from .build import _geometry

_BLOCK = 1 << 10  # rank prefixes per work item
RULES = {
    1: "the goal placement must hold 0",
    2: "the parity of its tiles' Manhattan distance is {parity}",
    3: "no neighbour placement holds less",
    4: "a neighbour placement whose free cells form one region holds {neighbour_value}, "
       "so this one can be at most one more",
}


@kernel
def _manhattan(tile_at, homes, size):
    """Manhattan distance of the pattern tiles on ``tile_at`` to their ``homes``."""
    total = 0
    for cell in range(tile_at.shape[0]):
        i = tile_at[cell]
        if i >= 0:
            total += abs(cell // size - homes[i] // size) + abs(cell % size - homes[i] % size)
    return total


@kernel
def _violation(rank, value, tile_at, free, table, geometry, weights, moves, homes):
    """The rule (2 to 4; 0 for none) that placement ``rank``, not the goal, breaks, and the
    neighbour concerned.

    ``tile_at`` (int64[N]) gives the pattern tile index on each cell or -1; ``free`` is the
    bit mask of the cells no pattern tile occupies; ``homes`` (int64[k]) the goal cell of
    each pattern tile; ``geometry`` is that of :func:`pdb_store.bfs._expand_layer`.
    """
    size, not_left, not_right = geometry[2], geometry[3], geometry[4]
    everything = (np.int64(1) << geometry[1]) - 1
    if value != UNREACHED and (value + _manhattan(tile_at, homes, size)) % 2 != 0:
        return 2, np.int64(-1)
    movable = (((free & not_right) << 1) | ((free & not_left) >> 1) | (free << size)
               | (free >> size)) & everything & ~free
    lower = value == UNREACHED
    while movable != 0:
        src = np.int64(trailing_zeros(movable))
        movable &= movable - 1
        i = tile_at[src]
        for m in range(4):
            dst = np.int64(moves[src, m])
            if dst < 0 or (free >> dst) & 1 == 0:
                continue
            target = moved_rank(rank, i, src, dst, size, tile_at, weights)
            w = np.int64(table[target])
            if w < value:
                lower = True
            if w != UNREACHED and value > w + 1:
                after = (free & ~(np.int64(1) << dst)) | (np.int64(1) << src)
                if _flood(np.int64(1) << src, after, size, not_left, not_right) == after:
                    return 4, target
    if not lower:
        return 3, np.int64(-1)
    return 0, np.int64(-1)


@kernel
def _check_block(block, table, goal_rank, geometry, weights, moves, homes):
    """First rank breaking a rule among the prefixes of work item ``block`` (-1: none), and their count.

    Ranks ``prefix * R + j`` share the cells of tiles ``0..k-2`` (``R = N - k + 1``), so a
    prefix is unranked once for all of them and the last tile takes the j-th free cell.
    """
    k, n_cells = geometry[0], geometry[1]
    radix = n_cells - k + 1
    everything = (np.int64(1) << n_cells) - 1
    cells = np.empty(k, dtype=np.int64)
    tile_at = np.empty(n_cells, dtype=np.int64)
    free_cells = np.empty(n_cells, dtype=np.int64)
    first, count = np.int64(-1), np.int64(0)
    for prefix in range(block * _BLOCK, min(table.shape[0] // radix, (block + 1) * _BLOCK)):
        occupied = place_prefix(prefix, k, n_cells, cells, tile_at, free_cells)
        for j in range(radix):
            rank = prefix * radix + j
            last = free_cells[j]
            tile_at[last] = k - 1
            free = everything & ~(occupied | (np.int64(1) << last))
            rule = 0
            if rank != goal_rank:  # rule 1 is the caller's
                rule, _ = _violation(rank, np.int64(table[rank]), tile_at, free, table, geometry,
                                     weights, moves, homes)
            tile_at[last] = -1
            if rule != 0:
                count += 1
                if first < 0:
                    first = rank
    return first, count


@parallel_kernel
def _check_table(table, goal_rank, geometry, weights, moves, homes):
    """Scan every entry of ``table`` (uint8[P]) but the goal's in parallel.

    Returns
    -------
    tuple of int64
        The smallest rank that breaks rule 2 or 3 (-1 for none), and how many do.
    """
    prefixes = table.shape[0] // (geometry[1] - geometry[0] + 1)
    blocks = (prefixes + _BLOCK - 1) // _BLOCK
    firsts = np.full(blocks, -1, dtype=np.int64)
    counts = np.zeros(blocks, dtype=np.int64)
    for block in prange(blocks):
        firsts[block], counts[block] = _check_block(block, table, goal_rank, geometry, weights, moves,
                                                          homes)
    first = np.int64(-1)
    for block in range(blocks):
        if firsts[block] >= 0:
            first = firsts[block]
            break
    return first, counts.sum()


class BadEntry(NamedTuple):
    """The first entry of a table that breaks a rule, and how many entries do."""

    rank: int
    cells: tuple[int, ...]
    value: int
    rule: int
    neighbour: int | None
    neighbour_value: int | None
    count: int

    def describe(self, group: tuple[int, ...]) -> str:
        """E.g. ``entry 1234 (tiles 1,2,3 on cells 0,5,7) holds 9: no neighbour ...``."""
        where = (f"tiles {','.join(map(str, group))} on cells {','.join(map(str, self.cells))}")
        parity = "odd" if self.value % 2 == 0 else "even"
        text = (f"entry {self.rank} ({where}) holds {self.value}: "
                + RULES[self.rule].format(neighbour_value=self.neighbour_value, parity=parity))
        if self.neighbour is not None:
            text += f" (entry {self.neighbour})"
        others = self.count - 1
        more = "entry breaks" if others == 1 else "entries break"
        return text + (f"; {others} more {more} the rules" if others else "")


class _Setup(NamedTuple):
    """What the kernels need to know about a table besides its values."""

    n_cells: int
    k: int
    geometry: np.ndarray
    weights: np.ndarray
    moves: np.ndarray
    homes: np.ndarray
    goal_rank: int


def _setup(size: int, goal: tuple[int, ...], group: tuple[int, ...]) -> _Setup:
    n_cells, k = size * size, len(group)
    homes = np.array([goal.index(t) for t in group], dtype=np.int64)
    return _Setup(n_cells, k, _geometry(size, k), digit_weights(n_cells, k), neighbours(size),
                  homes, int(rank_placement(homes, n_cells)))


def _entry_rule(table: np.ndarray, s: _Setup, rank: int) -> tuple[int, int]:
    """The rule entry ``rank`` breaks (0: none) and the neighbour concerned (-1: none)."""
    if rank == s.goal_rank:
        return (0 if table[rank] == 0 else 1), -1
    cells = np.empty(s.k, dtype=np.int64)
    unrank_placement(rank, s.k, s.n_cells, cells)
    tile_at = np.full(s.n_cells, -1, dtype=np.int64)
    tile_at[cells] = np.arange(s.k)
    free = ((1 << s.n_cells) - 1) & ~sum(1 << int(c) for c in cells)
    rule, neighbour = _violation(rank, np.int64(table[rank]), tile_at, np.int64(free), table,
                                 s.geometry, s.weights, s.moves, s.homes)
    return int(rule), int(neighbour)


def check_entry(table: np.ndarray, size: int, goal: tuple[int, ...], group: tuple[int, ...],
                rank: int, count: int = 1) -> BadEntry | None:
    """The rule entry ``rank`` of ``table`` breaks, or ``None`` when it keeps them all."""
    s = _setup(size, goal, group)
    rule, neighbour = _entry_rule(table, s, rank)
    if rule == 0:
        return None
    cells = np.empty(s.k, dtype=np.int64)
    unrank_placement(rank, s.k, s.n_cells, cells)
    return BadEntry(rank, tuple(int(c) for c in cells), int(table[rank]), rule,
                    None if neighbour < 0 else neighbour,
                    None if neighbour < 0 else int(table[neighbour]), count)


def first_bad_entry(table: np.ndarray, size: int, goal: tuple[int, ...],
                    group: tuple[int, ...]) -> BadEntry | None:
    """The first entry of ``table`` that breaks the module's rules, or ``None`` if none does.

    Parameters
    ----------
    table : uint8[placement_count(size*size, len(group))]
        The table of ``group`` for ``goal`` (a read-only memory map is fine).
    size : int
        Board width.
    goal, group : tuple of int
        Goal tiles and pattern tiles, as validated by the store.

    Returns
    -------
    BadEntry or None
        The smallest rank breaking a rule, with how many entries break one.
    """
    s = _setup(size, goal, group)
    first, count = _check_table(table, s.goal_rank, s.geometry, s.weights, s.moves, s.homes)
    goal_bad = table[s.goal_rank] != 0
    if goal_bad:
        first = s.goal_rank if first < 0 else min(int(first), s.goal_rank)
    if first < 0:
        return None
    return check_entry(table, size, goal, group, int(first), int(count) + int(goal_bad))
