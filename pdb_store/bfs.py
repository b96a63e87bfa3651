"""Numba kernels of the backward breadth-first search that fills a pattern database.

The abstract state is a placement of the k pattern tiles plus the region of free cells
the blank can occupy; other tiles are indistinguishable, so the blank moves through
free cells at cost 0 and only a pattern tile's move costs 1 (Korf & Felner 2002,
"Disjoint pattern database heuristics"). Per placement rank (see
:mod:`solver.ranking`) the search keeps three bit masks over the cells of the board:

* ``seen``  blank cells of this placement reached at any depth so far,
* ``cur``   blank cells first reached at the current depth (the frontier),
* ``nxt``   blank cells first reached at the next depth.

Each mask is a union of whole blank regions (maximal connected sets of free cells),
because every discovery floods its region at cost 0. A layer expands every frontier
placement in parallel; :func:`pdb_store.atomics.atomic_or` makes concurrent
discoveries of one placement safe. A placement's table value is the depth at which its
first blank region is discovered. Work is organised by rank prefix (tiles ``0..k-2``),
unranked once for the ``N - k + 1`` placements that differ only in the last tile, and a
move's new rank is updated incrementally (:func:`solver.ranking.moved_rank`).

Measured on the 4x4 7-8 split: 140 million (placement, region) states for the 7-tile
table, peak memory 7 bytes per placement (three ``uint16`` masks and the table).
"""

import numpy as np
from numba import prange
from numba.cpython.unsafe.numbers import trailing_zeros

from tilesweep.solver.jit import kernel, parallel_kernel
from tilesweep.solver.ranking import moved_rank, unrank_placement

from .atomics import atomic_or

#: Table value of a placement the search never reached (no blank position leads to the goal).
UNREACHED = 255
_BLOCK = 1 << 12          # rank prefixes per work item of a layer
_SCATTER = 1_000_003      # prime multiplier spreading work items over the rank range


@kernel
def _flood(seed, free, size, not_left, not_right):
    """Bit mask of the free cells connected to the ``seed`` bits through ``free`` cells."""
    region = seed & free
    while True:
        grown = (region | ((region & not_right) << 1) | ((region & not_left) >> 1)
                 | (region << size) | (region >> size)) & free
        if grown == region:
            return region
        region = grown


@kernel
def _expand(rank, region, tile_at, free, nxt, seen, table, depth, geometry, weights,
            neighbours):
    """Expand placement ``rank`` with the blank in ``region``.

    Returns the states discovered and, among them, the placements reached for the first time.

    ``tile_at`` (int64[N]) gives the pattern tile index on each cell or -1; ``free`` is
    the bit mask of the cells no pattern tile occupies.

    ``geometry`` is int64[5]: k, n_cells, size, not_left mask, not_right mask.
    """
    size, not_left, not_right = geometry[2], geometry[3], geometry[4]
    everything = (np.int64(1) << geometry[1]) - 1
    # pattern tiles next to the blank region: only they can move
    movable = (((region & not_right) << 1) | ((region & not_left) >> 1) | (region << size)
               | (region >> size)) & everything & ~free
    found, filled = 0, 0
    while movable != 0:
        src = np.int64(trailing_zeros(movable))
        movable &= movable - 1
        i = tile_at[src]
        for m in range(4):
            dst = np.int64(neighbours[src, m])
            if dst < 0 or (region >> dst) & 1 == 0:
                continue
            target = moved_rank(rank, i, src, dst, size, tile_at, weights)
            if (np.int64(seen[target]) >> src) & 1:
                continue  # plain read first: most successors are old, skip the atomic
            after = (free & ~(np.int64(1) << dst)) | (np.int64(1) << src)
            reached = _flood(np.int64(1) << src, after, size, not_left, not_right)
            before = np.int64(atomic_or(seen, target, reached))
            if (before >> src) & 1 == 0:
                atomic_or(nxt, target, reached)
                if before == 0:  # the placement's first blank region: its PDB value
                    table[target] = depth + 1
                    filled += 1
                found += 1
    return found, filled


@kernel
def place_prefix(prefix, k, n_cells, cells, tile_at, free_cells):
    """Set out the tiles ``0..k-2`` of rank prefix ``prefix``; return their cells' bit mask.

    The placements ``prefix * R + j`` (``R = N - k + 1``) share these tiles and put the last
    one on ``free_cells[j]``, the j-th cell they leave free. Fills ``cells[:k-1]`` and
    ``tile_at`` (the tile index on each cell, -1 for none), without allocating.
    """
    unrank_placement(prefix, k - 1, n_cells, cells)
    tile_at[:] = -1
    occupied = np.int64(0)
    for i in range(k - 1):
        tile_at[cells[i]] = i
        occupied |= np.int64(1) << cells[i]
    j = 0
    for cell in range(n_cells):
        if (occupied >> cell) & 1 == 0:
            free_cells[j] = cell
            j += 1
    return occupied


@kernel
def _expand_prefix(prefix, cur, nxt, seen, table, depth, geometry, weights, neighbours,
                   cells, tile_at, free_cells):
    """Expand the frontier states whose tiles ``0..k-2`` form placement ``prefix``.

    Their ranks are ``prefix * R + j`` for the last tile's digit ``j < R = N - k + 1``,
    so the prefix is unranked once for all of them.
    """
    k, n_cells = geometry[0], geometry[1]
    radix = n_cells - k + 1
    base = prefix * radix
    for j in range(radix):
        if cur[base + j] != 0:
            break
    else:
        return 0, 0
    occupied = place_prefix(prefix, k, n_cells, cells, tile_at, free_cells)
    everything = (np.int64(1) << n_cells) - 1
    found, filled = 0, 0
    for j in range(radix):
        region = np.int64(cur[base + j])
        if region == 0:
            continue
        cur[base + j] = 0  # only this thread reads or writes cur[rank] in a layer
        last = free_cells[j]
        tile_at[last] = k - 1
        free = everything & ~(occupied | (np.int64(1) << last))
        states, placements = _expand(base + j, region, tile_at, free, nxt, seen, table, depth,
                                     geometry, weights, neighbours)
        found += states
        filled += placements
        tile_at[last] = -1
    return found, filled


@kernel
def _expand_block(block, cur, nxt, seen, table, depth, geometry, weights, neighbours):
    """Expand the frontier states of rank prefixes ``block * _BLOCK`` up to the next block."""
    k, n_cells = geometry[0], geometry[1]
    prefixes = cur.shape[0] // (n_cells - k + 1)
    cells = np.empty(k, dtype=np.int64)
    tile_at = np.empty(n_cells, dtype=np.int64)
    free_cells = np.empty(n_cells, dtype=np.int64)
    found, filled = 0, 0
    for prefix in range(block * _BLOCK, min(prefixes, (block + 1) * _BLOCK)):
        states, placements = _expand_prefix(prefix, cur, nxt, seen, table, depth, geometry,
                                            weights, neighbours, cells, tile_at, free_cells)
        found += states
        filled += placements
    return found, filled


@kernel
def layer_blocks(cur, geometry):
    """Number of work items of a layer over ``cur``."""
    prefixes = cur.shape[0] // (geometry[1] - geometry[0] + 1)
    return (prefixes + _BLOCK - 1) // _BLOCK


@parallel_kernel
def _expand_layer(cur, nxt, seen, table, depth, geometry, weights, neighbours):
    """Expand every frontier state of one BFS layer, in parallel.

    Parameters
    ----------
    cur : uint16[P] or uint32[P]
        Frontier blank masks per placement rank; left all zero.
    nxt : same dtype and shape as ``cur``
        Receives the masks of states first reached at ``depth + 1``; zero on entry.
    seen : same dtype and shape as ``cur``
        Masks of states reached so far; updated.
    table : uint8[P]
        PDB under construction; unreached placements hold ``UNREACHED`` and get ``depth + 1``.
    depth : int
        Depth of the frontier.
    geometry : int64[5]
        k, number of cells, board width, mask of cells not in column 0, mask of cells
        not in the last column.
    weights : int64[k]
        Place value of each tile's digit in the rank.
    neighbours : int8[N, 4]
        :func:`solver.geometry.neighbours` of the board.

    Returns
    -------
    tuple of int64
        Number of (placement, blank region) states discovered at ``depth + 1``, and of
        placements among them reached for the first time (table entries filled).
    """
    blocks = layer_blocks(cur, geometry)
    counts = np.zeros((blocks, 2), dtype=np.int64)
    for item in prange(blocks):
        block = (item * _SCATTER) % blocks  # spread the threads over the rank range
        counts[block, 0], counts[block, 1] = _expand_block(block, cur, nxt, seen, table, depth,
                                                           geometry, weights, neighbours)
    return counts[:, 0].sum(), counts[:, 1].sum()


@kernel
def _expand_layer_serial(cur, nxt, seen, table, depth, geometry, weights, neighbours):
    """:func:`_expand_layer` on one thread, for small tables (no thread start-up per layer)."""
    found, filled = 0, 0
    for block in range(layer_blocks(cur, geometry)):
        states, placements = _expand_block(block, cur, nxt, seen, table, depth, geometry,
                                           weights, neighbours)
        found += states
        filled += placements
    return found, filled
