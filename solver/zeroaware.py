"""The index of zero-aware pattern databases: an entry per placement and blank region.

tilesweep's own tables hold, per placement of the pattern tiles, the least distance over
the blank's regions (the maximal connected sets of cells no pattern tile holds). A
zero-aware table keeps the distance of each region apart, so the search reads the entry
of the region its blank is in (the tables of clausecker/24puzzle).

The regions depend only on the set of occupied cells, not on which tile is where, so an
entry is indexed by (order of the tiles, set of occupied cells, region):

    order rank * R + offsets[set rank] + region ordinal      (R: the regions of all sets)

* the set rank is the colexicographic rank of the k occupied cells (``sum C(c_j, j+1)``
  over the cells in increasing order),
* ``offsets`` holds, per set, the regions of the sets ranked before it,
* the region ordinal counts the set's regions whose lowest cell is below the blank
  region's lowest cell,
* the order rank is the Lehmer code of the tiles over the set's cells: digit i (radix
  ``k - i``) counts the set's cells below tile i's that tiles ``0..i-1`` leave.

So the table holds exactly one byte per (placement, region), and a set with one region
(most on 5x5) needs no flood at look-up time. The order comes first because a move changes
it only when the tile passes another of the group's: a search's next look-ups then mostly
differ in the set alone, whose rank moves little when one of its lower cells does, so they
fall near one another in memory (1.25x the nodes per second of the set-first layout on
Korf & Felner's #32: docs/pdb-speed.md). The build works set by set (:mod:`pdb_store.zeroaware`)
and turns its table into this layout at the end.
"""

from functools import lru_cache

import numpy as np
from numba.cpython.unsafe.numbers import trailing_zeros

from .hstate import HS_LEN, h_of_row, sum_slot, values_slot
from .jit import inline_kernel, kernel
from .ranking import popcount

#: Largest group a zero-aware table is built for (k! orders per region).
MAX_K = 8


@lru_cache(maxsize=None)
def binomials(n_cells: int) -> np.ndarray:
    """``int64[n + 1, MAX_K + 2]``: entry ``[c, j]`` is C(c, j) (read-only)."""
    table = np.zeros((n_cells + 1, MAX_K + 2), dtype=np.int64)
    for c in range(n_cells + 1):
        table[c, 0] = 1
        for j in range(1, MAX_K + 2):
            table[c, j] = 0 if c == 0 else table[c - 1, j - 1] + table[c - 1, j]
    table.flags.writeable = False
    return table


@lru_cache(maxsize=None)
def flood_geometry(size: int) -> np.ndarray:
    """``int64[4]``: board width, the cells not in column 0, those not in the last column,
    and all cells, as bit masks (what :func:`flood` takes)."""
    n = size * size
    not_left = sum(1 << c for c in range(n) if c % size != 0)
    not_right = sum(1 << c for c in range(n) if c % size != size - 1)
    geom = np.array([size, not_left, not_right, (1 << n) - 1], dtype=np.int64)
    geom.flags.writeable = False
    return geom


@inline_kernel
def flood(seed, free, geom):
    """Bit mask of the ``free`` cells connected to the ``seed`` bits through free cells."""
    size, not_left, not_right = geom[0], geom[1], geom[2]
    region = seed & free
    while True:
        grown = (region | ((region & not_right) << 1) | ((region & not_left) >> 1)
                 | (region << size) | (region >> size)) & free
        if grown == region:
            return region
        region = grown


@inline_kernel
def region_ordinal(region, free, geom):
    """The place of ``region`` among the regions of ``free`` ordered by their lowest cell:
    how many regions have a cell below its lowest."""
    rest = free & ~region & ((region & -region) - 1)
    count = 0
    while rest != 0:
        rest &= ~flood(rest & -rest, free, geom)
        count += 1
    return count


@inline_kernel
def set_rank(occupied, binom):
    """Colexicographic rank of the cell set ``occupied`` among the sets of its size."""
    rank = np.int64(0)
    j = 1
    while occupied != 0:
        rank += binom[np.int64(trailing_zeros(occupied)), j]
        occupied &= occupied - 1
        j += 1
    return rank


@kernel
def unrank_set(rank, k, n_cells, binom):
    """The cell set (a bit mask) of colexicographic rank ``rank`` among sets of ``k`` cells."""
    occupied = np.int64(0)
    c = n_cells
    for j in range(k, 0, -1):
        c -= 1
        while binom[c, j] > rank:
            c -= 1
        rank -= binom[c, j]
        occupied |= np.int64(1) << c
    return occupied


@inline_kernel
def order_digit(occupied, taken, cell):
    """Tile digit of the order rank: the cells of ``occupied`` below ``cell`` not ``taken``."""
    return popcount(occupied & ~taken & ((np.int64(1) << cell) - 1))


@kernel
def region_offsets(n_cells, k, geom, binom):
    """``int64[C(n, k) + 1]``: per set rank, the regions of the sets ranked before it (the
    last entry: all sets' regions)."""
    sets = binom[n_cells, k]
    offsets = np.zeros(sets + 1, dtype=np.int64)
    everything = geom[3]
    for s in range(sets):
        rest = everything & ~unrank_set(s, k, n_cells, binom)
        free, count = rest, 0
        while rest != 0:
            rest &= ~flood(rest & -rest, free, geom)
            count += 1
        offsets[s + 1] = offsets[s] + count
    return offsets


#: A set's record (:func:`set_records`): 4 bits per cell, 16 cells a word; the offset above
#: bit OFFSET_SHIFT of the second word (cells 16 to 24 below it).
CELL_BITS, OFFSET_SHIFT = 4, 36


@kernel
def set_records(n_cells, k, geom, binom, offsets):
    """``int64[2 * C(n, k)]``: per set rank two words, the region ordinal of each free cell
    c in 4 bits at bit ``4 * (c % 16)`` of word ``c // 16``, and the set's offset
    (``offsets``) above bit 36 of the second: one cache line gives a look-up both."""
    sets = binom[n_cells, k]
    records = np.zeros(2 * sets, dtype=np.int64)
    for s in range(sets):
        free = geom[3] & ~unrank_set(s, k, n_cells, binom)
        rest, ordinal = free, np.int64(0)
        while rest != 0:
            region = flood(rest & -rest, free, geom)
            rest &= ~region
            while region != 0:
                c = np.int64(trailing_zeros(region))
                records[2 * s + (c >> 4)] |= ordinal << (CELL_BITS * (c & 15))
                region &= region - 1
            ordinal += 1
        records[2 * s + 1] |= offsets[s] << OFFSET_SHIFT
    return records


@lru_cache(maxsize=None)
def records_for(size: int, k: int) -> np.ndarray:
    """:func:`set_records` of ``k`` pattern tiles on a ``size`` board (read-only, cached)."""
    n, offsets = size * size, offsets_for(size, k)
    if np.diff(offsets).max() > 1 << CELL_BITS or offsets[-1] >= 1 << (63 - OFFSET_SHIFT):
        raise ValueError(f"zero-aware records of {k} tiles on a {size}x{size} board do not fit")
    records = set_records(n, k, flood_geometry(size), binomials(n), offsets)
    records.flags.writeable = False
    return records


@lru_cache(maxsize=None)
def offsets_for(size: int, k: int) -> np.ndarray:
    """:func:`region_offsets` of ``k`` pattern tiles on a ``size`` board (read-only, cached)."""
    if not 1 <= k <= MAX_K:
        raise ValueError(f"zero-aware tables hold 1 to {MAX_K} tiles a group, not {k}")
    n = size * size
    offsets = region_offsets(n, k, flood_geometry(size), binomials(n))
    offsets.flags.writeable = False
    return offsets


def orders(k: int) -> int:
    """k!: the orders of k tiles over one set of cells."""
    total = 1
    for i in range(2, k + 1):
        total *= i
    return total


def zero_aware_count(size: int, k: int) -> int:
    """Entries of a zero-aware table of ``k`` tiles on a ``size`` board."""
    return int(offsets_for(size, k)[-1]) * orders(k)


@kernel
def zero_aware_index(cells, blank, offsets, binom, geom):
    """Index of the placement ``cells`` (int[k], the cell of each pattern tile in group
    order) with the blank on ``blank`` (a cell no pattern tile holds)."""
    row, order = zero_aware_parts(cells, blank, offsets, binom, geom)
    return order * offsets[offsets.shape[0] - 1] + row


@kernel
def zero_aware_parts(cells, blank, offsets, binom, geom):
    """The (region row, order rank) of :func:`zero_aware_index`: the row is the set's
    offset plus the blank region's ordinal."""
    k = cells.shape[0]
    occupied = np.int64(0)
    for i in range(k):
        occupied |= np.int64(1) << cells[i]
    order = np.int64(0)
    taken = np.int64(0)
    for i in range(k):
        order = order * (k - i) + order_digit(occupied, taken, cells[i])
        taken |= np.int64(1) << cells[i]
    s = set_rank(occupied, binom)
    free = geom[3] & ~occupied
    ordinal = region_ordinal(flood(np.int64(1) << blank, free, geom), free, geom)
    return offsets[s] + ordinal, order


#: A look-up key (:func:`group_key`): the record's index above bit 21, the tile order above
#: bit 5, the blank's cell below.
KEY_RECORD, KEY_ORDER = 21, 5


@inline_kernel
def group_key(pos, g, blank, group_tiles, group_k, refl_tile, refl_cell, reflected, first, binom):
    """What group ``g``'s zero-aware index of the board (``pos[tile]``, its blank on
    ``blank``; ``reflected``: of its mirror image) needs besides the set's record, packed
    (:data:`KEY_RECORD`): where the record is, the order rank of the tiles and the blank's
    cell. A search reads the record in a second pass (:func:`key_index`), so the records
    of a node's children are fetched together."""
    k = group_k[g]
    # one pass from the last tile: digit i counts the later tiles' cells below tile i's
    # (the cells of the set below it that tiles 0..i-1 leave), its place value (k-1-i)!
    occupied = np.int64(0)
    order = np.int64(0)
    weight = np.int64(1)
    for j in range(k):
        # unsigned indices: numba adds no negative-index wraparound to these reads
        t = np.uint64(group_tiles[g, k - 1 - j])
        c = np.int64(refl_cell[np.uint64(pos[np.uint64(refl_tile[t])])]) if reflected else np.int64(pos[t])
        order += weight * popcount(occupied & ((np.int64(1) << c) - 1))
        weight *= j + 1
        occupied |= np.int64(1) << c
    b = np.int64(refl_cell[np.uint64(blank)]) if reflected else np.int64(blank)
    return (2 * (first[g] + set_rank(occupied, binom)) << KEY_RECORD) | (order << KEY_ORDER) | b


@inline_kernel
def key_index(key, records, regions):
    """The table index of a :func:`group_key` (a group whose sets have ``regions`` regions in
    all): the set's record (:func:`set_records`) gives its offset and the blank's region, no
    flood."""
    at = np.uint64(key >> KEY_RECORD)
    b = key & ((np.int64(1) << KEY_ORDER) - 1)
    order = (key >> KEY_ORDER) & ((np.int64(1) << (KEY_RECORD - KEY_ORDER)) - 1)
    ordinal = (records[at + np.uint64(b >> 4)] >> (CELL_BITS * (b & 15))) & 15
    return order * regions + (records[at + np.uint64(1)] >> OFFSET_SHIFT) + ordinal


@inline_kernel
def group_index(pos, g, blank, group_tiles, group_k, refl_tile, refl_cell, reflected, records, first, regions,
                binom):
    """Index in group ``g``'s zero-aware table of the board (``pos[tile]``) with its blank on
    ``blank`` (``reflected``: of its mirror image); ``records``, ``first``, ``regions``,
    ``binom`` are the ``za_*`` arrays of :class:`solver.heuristics.KernelHeuristic`."""
    return key_index(group_key(pos, g, blank, group_tiles, group_k, refl_tile, refl_cell, reflected, first, binom),
                     records, regions[g])


@inline_kernel
def zero_aware_init(row, pos, H):
    """:func:`solver.hstate.pdb_init` for zero-aware tables: each group's entry
    for the region of the board's blank."""
    for i in range(H.n_lookups):
        first = values_slot(H.lookup_refl[i])
        row[sum_slot(i)] = 0
        for g in range(H.n_groups):
            if _in_lookup(H.lookup_group, i, g):
                r = group_index(pos, g, pos[0], H.group_tiles, H.group_k, H.refl_tile, H.refl_cell, H.lookup_refl[i],
                                H.za_records, H.za_first, H.za_regions, H.za_binom)
                v = np.int64(H.tables[g][r])
                row[first + g] = v
                row[sum_slot(i)] += v


@inline_kernel
def _in_lookup(lookup_group, i, g):
    """Whether group ``g`` belongs to lookup ``i``'s database."""
    for t in range(lookup_group.shape[1]):
        if lookup_group[i, t] == g:
            return True
    return False


@kernel
def zero_aware_h_many(boards, H):
    """:func:`solver.hstate.h_many` for a heuristic of zero-aware tables alone (``H.zero_aware``; the
    searches that read them take nothing else). Its own kernel, so :func:`solver.hstate.h_init`, which
    A* runs per node, tests no table kind."""
    m, n = boards.shape
    out = np.empty(m, dtype=np.int64)
    row = np.zeros(HS_LEN, dtype=np.int64)
    pos = np.empty(n, dtype=np.int64)
    for i in range(m):
        for c in range(n):
            pos[boards[i, c]] = c
        zero_aware_init(row, pos, H)
        out[i] = h_of_row(row, H.scale, H.n_lookups, H.terms, H.n_terms)
    return out
