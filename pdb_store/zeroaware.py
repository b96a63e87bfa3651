"""Building a zero-aware pattern database: a breadth-first search over (placement, region).

The abstraction is tilesweep's own (:mod:`pdb_store.bfs`): the blank crosses the cells no
pattern tile holds at no cost, and a pattern tile's move into the blank's region costs 1.
Here every (placement, blank region) state keeps its own distance, indexed as
:mod:`solver.zeroaware` says, instead of the least over the placement's regions. Moves are
reversible, so the search from the goal state gives every state's distance to it. As in
:mod:`pdb_store.ignoring`, a layer scans the table for the states at the current depth:
no frontier beside the table, one byte per state in all. The work is cut by set of
occupied cells, whose regions are flooded once for all their states, so the build keeps a
set's states together (region row by region row, each row its k! orders) and turns the
table into the search's layout, order rank first (:mod:`solver.zeroaware`), at the end.
"""

from __future__ import annotations

from typing import Callable

import numpy as np
from numba import prange
from numba.cpython.unsafe.numbers import trailing_zeros

from tilesweep.solver.geometry import neighbours64
from tilesweep.solver.jit import inline_kernel, parallel_kernel
from tilesweep.solver.zeroaware import (
    binomials,
    flood,
    flood_geometry,
    offsets_for,
    order_digit,
    orders,
    region_ordinal,
    set_rank,
    unrank_set,
    zero_aware_parts,
)

from .bfs import UNREACHED
from .build import BuildProgress, check_goal_group, fill_by_layers, huge_array


@inline_kernel
def _unrank_order(order, occupied, k, cells):
    """Write into ``cells[:k]`` the cells of the tiles of order rank ``order`` over the set
    ``occupied`` (the inverse of the order digits of :func:`solver.zeroaware.zero_aware_parts`)."""
    radix = np.int64(1)
    for i in range(k - 1, -1, -1):
        cells[i] = order // radix % (k - i)  # the digit, turned into a cell below
        radix *= k - i
    taken = np.int64(0)
    for i in range(k):
        rest = occupied & ~taken
        for _ in range(cells[i]):
            rest &= rest - 1
        cells[i] = trailing_zeros(rest)
        taken |= np.int64(1) << cells[i]


@inline_kernel
def _target(cells, i, dst, occupied, src, offsets, binom, geom, fact):
    """Index of the state after tile ``i`` moves from ``src`` to ``dst``: the blank is then
    in the region of ``src``."""
    after = (occupied & ~(np.int64(1) << src)) | (np.int64(1) << dst)
    order = np.int64(0)
    taken = np.int64(0)
    for j in range(cells.shape[0]):
        c = dst if j == i else cells[j]
        order = order * (cells.shape[0] - j) + order_digit(after, taken, c)
        taken |= np.int64(1) << c
    s = set_rank(after, binom)
    base = offsets[s]
    ordinal = 0
    if offsets[s + 1] - base > 1:
        free = geom[3] & ~after
        ordinal = region_ordinal(flood(np.int64(1) << src, free, geom), free, geom)
    return (base + ordinal) * fact + order


@inline_kernel
def _holds(table, start, end, depth):
    """Whether any of ``table[start:end]`` is ``depth`` (no array allocated)."""
    for i in range(start, end):
        if table[i] == depth:
            return True
    return False


@parallel_kernel
def _zero_aware_layer(table, depth, k, n_cells, offsets, binom, geom, moves, fact):
    """Label with ``depth + 1`` every unreached state one tile move away from a state
    holding ``depth``; return how many were labelled (two threads may both label one
    state, so a count can run over: only whether it is 0 is exact).

    ``moves`` (int64[N, 4]) is :func:`solver.geometry.neighbours64`."""
    sets = offsets.shape[0] - 1
    found = 0
    for s in prange(sets):
        lo, hi = offsets[s], offsets[s + 1]
        labelled = 0
        if _holds(table, lo * fact, hi * fact, depth):
            cells = np.empty(k, dtype=np.int64)
            occupied = unrank_set(s, k, n_cells, binom)
            free = geom[3] & ~occupied
            rest = free
            for r in range(hi - lo):
                region = flood(rest & -rest, free, geom)  # the r-th region by lowest cell
                rest &= ~region
                for order in range(fact):
                    if table[(lo + r) * fact + order] != depth:
                        continue
                    _unrank_order(order, occupied, k, cells)
                    for i in range(k):
                        src = cells[i]
                        for m in range(4):
                            dst = moves[src, m]
                            if dst < 0 or (region >> dst) & 1 == 0:
                                continue  # off the board, or not where the blank can be
                            target = _target(cells, i, dst, occupied, src, offsets, binom, geom, fact)
                            if table[target] == UNREACHED:
                                table[target] = depth + 1
                                labelled += 1
        found += labelled
    return found


def build_zero_aware_table(size: int, goal: tuple[int, ...], group: tuple[int, ...],
                           on_layer: Callable[[BuildProgress], None] | None = None) -> np.ndarray:
    """Build the zero-aware pattern database of ``group`` for ``goal``.

    Entry :func:`solver.zeroaware.zero_aware_index` of (the group tiles' cells, a blank
    cell) is the fewest moves of the group's tiles that bring them to their goal cells
    with the blank in the goal blank's region, from that placement with the blank in that
    cell's region; the blank crosses free cells at no cost (Korf & Felner 2002). The least
    over a placement's regions is the entry of :func:`pdb_store.build.build_table`.
    States the goal does not reach hold 255; ``on_layer`` receives a
    :class:`BuildProgress` after each layer (``entries`` and ``states`` count states).

    Raises
    ------
    InvalidBoardError
        Bad size, goal or group.
    """
    goal, group = check_goal_group(size, goal, group)
    n, k = size * size, len(group)
    offsets, binom, geom = offsets_for(size, k), binomials(n), flood_geometry(size)
    fact = orders(k)
    count = int(offsets[-1]) * fact
    table = huge_array(count, np.uint8, UNREACHED)
    cells = np.array([goal.index(t) for t in group], dtype=np.int64)
    row, order = zero_aware_parts(cells, goal.index(0), offsets, binom, geom)
    table[row * fact + order] = 0
    moves = neighbours64(size)
    fill_by_layers(group, count, lambda depth: _zero_aware_layer(table, np.uint8(depth), k, n, offsets, binom, geom,
                                                                 moves, fact), on_layer)
    return order_first(table, fact)


def order_first(table: np.ndarray, fact: int) -> np.ndarray:
    """The search's layout of a table built set by set: entry ``row * fact + order`` moved
    to ``order * rows + row``."""
    return np.ascontiguousarray(table.reshape(-1, fact).T).reshape(-1)


def sets_first(table: np.ndarray, fact: int) -> np.ndarray:
    """The inverse of :func:`order_first`: the build's layout, which the checks read."""
    return np.ascontiguousarray(table.reshape(fact, -1).T).reshape(-1)


@parallel_kernel
def _bad_states(table, k, n_cells, offsets, binom, geom, moves, fact, bad):
    """Mark in ``bad`` (uint8, one per set) the sets with a state whose value is not its
    breadth-first distance: a reached state other than the goal's (value 0 there) must
    have a neighbour holding one less and none holding less than that (an unreached one
    included: moves are reversible)."""
    for s in prange(offsets.shape[0] - 1):
        lo, hi = offsets[s], offsets[s + 1]
        cells = np.empty(k, dtype=np.int64)
        occupied = unrank_set(s, k, n_cells, binom)
        free = geom[3] & ~occupied
        rest = free
        for r in range(hi - lo):
            region = flood(rest & -rest, free, geom)
            rest &= ~region
            for order in range(fact):
                value = np.int64(table[(lo + r) * fact + order])
                if value == UNREACHED:
                    continue
                _unrank_order(order, occupied, k, cells)
                below = value == 0
                for i in range(k):
                    src = cells[i]
                    for m in range(4):
                        dst = moves[src, m]
                        if dst < 0 or (region >> dst) & 1 == 0:
                            continue
                        other = np.int64(table[_target(cells, i, dst, occupied, src, offsets, binom, geom, fact)])
                        if other < value - 1 or other == UNREACHED:
                            bad[s] = 1
                        below |= other == value - 1
                if not below:
                    bad[s] = 1


def first_bad_state(table: np.ndarray, size: int, goal: tuple[int, ...], group: tuple[int, ...]) -> str | None:
    """Where the zero-aware ``table`` of ``group`` (in the search's layout) breaks the rules
    of a breadth-first search from the goal (:func:`_bad_states`, and the goal state holding
    0), or ``None``."""
    n, k = size * size, len(group)
    offsets, binom, geom = offsets_for(size, k), binomials(n), flood_geometry(size)
    cells = np.array([goal.index(t) for t in group], dtype=np.int64)
    row, order = zero_aware_parts(cells, goal.index(0), offsets, binom, geom)
    start = order * offsets[-1] + row
    if table[start] != 0:
        return f"the goal state (entry {start}) holds {table[start]}, not 0"
    bad = np.zeros(offsets.size - 1, dtype=np.uint8)
    _bad_states(sets_first(table, orders(k)), k, n, offsets, binom, geom, neighbours64(size), orders(k), bad)
    if bad.any():
        s = int(np.flatnonzero(bad)[0])
        return (f"a state of cell set {s} (region rows {int(offsets[s])} to {int(offsets[s + 1]) - 1} of each "
                "tile order) is not one more than its least neighbour")
    return None
