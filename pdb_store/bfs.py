"""Numba kernels of the backward breadth-first search that fills a pattern database.

The abstract state is a placement of the k pattern tiles plus the region of free cells
the blank can occupy; other tiles are indistinguishable, so the blank moves through
free cells at cost 0 and only a pattern tile's move costs 1 (Korf & Felner 2002,
"Disjoint pattern database heuristics"). Per placement rank (see
:mod:`solver.ranking`) the search keeps one *mark*: two planes of ``w = N - k`` bits,
bit i of a plane standing for the placement's i-th free cell in cell order. A cell's
two bits are its label:

* ``00`` not reached,
* ``10`` or ``01`` first reached at an even or an odd depth, not expanded yet,
* ``11`` expanded.

The frontier of layer d is the cells labelled with d's parity; expanding them labels
the cells they reach first with d + 1's parity and then sets their other bit, so a
layer never copies or clears a mask array, and every change is an OR
(:func:`pdb_store.atomics.atomic_or` makes concurrent discoveries of one placement
safe). Each label covers whole blank regions (maximal connected sets of free cells),
because every discovery floods its region at cost 0. A placement's table value is the
depth at which its first blank region is discovered. Work is organised by rank prefix
(tiles ``0..k-2``), set out once for the ``N - k + 1`` placements that differ only in
the last tile; a work item counts its prefixes up digit by digit, so the next prefix
moves only the tiles whose digits changed (mostly the last one) instead of unranking
again. A prefix's moves are listed and their targets prefetched before any target
is read; the tiles that can move one way are the blank region shifted, and a move's new
rank is updated incrementally (one digit for a horizontal move, bit counts for a vertical
one: :func:`_vertical_shift`). The moves whose targets are already reached are sorted
out without a branch before the rest are flooded and labelled. A flag per :data:`CHUNK`
prefixes says where the last layer discovered states, so a layer skips the rest of the
table.

The 4x4 8-tile table (518,918,400 placements, 8 free cells) takes a 16-bit mark and the
table byte per placement: 1.56 GB, where three 16-bit masks (seen, frontier, next) took
3.63 GB.
"""

import numpy as np
from numba import prange
from numba.cpython.unsafe.numbers import trailing_zeros

from tilesweep.solver.jit import inline_kernel, kernel, parallel_kernel
from tilesweep.solver.ranking import popcount, unrank_placement

from .atomics import atomic_or, prefetch
from .bits import deposit_bits, extract_bits

#: Table value of a placement the search never reached (no blank position leads to the goal).
UNREACHED = 255
_BLOCK = 1 << 12          # rank prefixes per work item of a layer
CHUNK = 1 << 6            # rank prefixes per flag saying a layer has work there
_SCATTER = 1_000_003      # prime multiplier spreading work items over the rank range


@inline_kernel
def _flood(seed, free, size, not_left, not_right):
    """Bit mask of the free cells connected to the ``seed`` bits through ``free`` cells."""
    region = seed & free
    while True:
        grown = (region | ((region & not_right) << 1) | ((region & not_left) >> 1)
                 | (region << size) | (region >> size)) & free
        if grown == region:
            return region
        region = grown


@inline_kernel
def _compact(cells, free):
    """The bits of ``cells`` at the set bits of ``free``, packed: bit i for free cell i."""
    return extract_bits(cells, free)


@inline_kernel
def _spread(packed, free):
    """The cells of the free-cell bits ``packed``: the inverse of :func:`_compact`."""
    return deposit_bits(packed, free)


@inline_kernel
def _vertical_shift(i, src, dst, tiles, tile_at, earlier, weights):
    """How much the rank grows when tile ``i`` moves from ``src`` up to ``dst`` a row away
    (:func:`solver.ranking.moved_rank`, in bit operations): each cell passed that no earlier
    tile holds adds one to its digit, and each later tile passed loses one from its own.
    ``earlier[i]`` is the cells of tiles ``0..i-1``; ``tiles`` those of all."""
    passed = ((np.int64(1) << dst) - (np.int64(2) << src)) & ~earlier[i]
    shift = weights[i] * (1 + popcount(passed))
    later = passed & tiles
    while later != 0:
        shift += weights[tile_at[trailing_zeros(later)]]
        later &= later - 1
    return shift


@inline_kernel
def _add_moves(srcs, shift, vertical, rank, free, tile_at, earlier, marks, weights, moves, n):
    """Append to ``moves`` the moves of the tiles on the cells ``srcs`` to ``src + shift``
    and prefetch each one's target mark; return the new count ``n`` (see :func:`_moves`)."""
    tiles = ~free
    while srcs != 0:
        src = np.int64(trailing_zeros(srcs))
        srcs &= srcs - 1
        i, dst = tile_at[src], src + shift
        if not vertical:  # no cell between: only tile i's digit changes
            target = rank + weights[i] if shift > 0 else rank - weights[i]
        elif shift > 0:
            target = rank + _vertical_shift(i, src, dst, tiles, tile_at, earlier, weights)
        else:
            target = rank - _vertical_shift(i, dst, src, tiles, tile_at, earlier, weights)
        prefetch(marks, target)
        moves[n, 0], moves[n, 1], moves[n, 2] = target, (free & ~(np.int64(1) << dst)) | (np.int64(1) << src), src
        n += 1
    return n


@inline_kernel
def _moves(rank, region, tile_at, earlier, free, marks, geometry, weights, moves, n):
    """Append to ``moves`` the moves of placement ``rank`` with the blank in ``region``
    (a cell mask) and prefetch each one's target mark; return the new count ``n``.

    A move of a pattern tile from ``src`` to ``dst`` in the region is the row
    ``(target rank, free cells after the move, src)`` of ``moves`` (int64[M, 3]).
    ``tile_at`` (int64[N]) gives the pattern tile index on each cell or -1, ``earlier``
    (int64[k]) the cells of the tiles before each; ``free`` is the bit mask of the cells no
    pattern tile occupies. The tiles that can move one way are one mask of the region
    shifted: no test per tile and direction.
    """
    size, not_left, not_right = geometry[2], geometry[3], geometry[4]
    tiles = ((np.int64(1) << geometry[1]) - 1) & ~free
    n = _add_moves(((region & not_left) >> 1) & tiles, 1, False, rank, free, tile_at, earlier,
                   marks, weights, moves, n)
    n = _add_moves(((region & not_right) << 1) & tiles, -1, False, rank, free, tile_at, earlier,
                   marks, weights, moves, n)
    n = _add_moves((region >> size) & tiles, size, True, rank, free, tile_at, earlier, marks,
                   weights, moves, n)
    n = _add_moves((region << size) & tiles, -size, True, rank, free, tile_at, earlier, marks,
                   weights, moves, n)
    return n


@inline_kernel
def _unreached_moves(moves, n, marks, width):
    """Move to the front of ``moves[:n]`` the rows whose target state is not reached yet by a
    plain read of its mark, and return how many: most successors are old, and sorting them
    out without a branch spares a mispredicted one per move."""
    kept = 0
    for row in range(n):
        target, after, src = moves[row, 0], moves[row, 1], moves[row, 2]
        bit = np.int64(1) << popcount(after & ((np.int64(1) << src) - 1))
        mark = np.int64(marks[target])
        moves[kept, 0], moves[kept, 1], moves[kept, 2] = target, after, src
        kept += ((mark | (mark >> width)) & bit) == 0
    return kept


@inline_kernel
def _discover(moves, n, marks, table, depth, geometry, coming):
    """Label the blank regions the first ``n`` rows of ``moves`` (see :func:`_moves`) reach
    for the first time with ``depth + 1``, and flag their chunks in ``coming``.

    Returns the states discovered and, among them, the placements reached for the first time.
    """
    size, not_left, not_right = geometry[2], geometry[3], geometry[4]
    width = geometry[1] - geometry[0]  # free cells per placement: bits per plane of a mark
    plane = width * ((depth + 1) & 1)  # the discoveries' label: plane 0 at even depths
    chunk_ranks = CHUNK * (width + 1)
    found, filled = 0, 0
    for row in range(_unreached_moves(moves, n, marks, width)):
        target, after, src = moves[row, 0], moves[row, 1], moves[row, 2]
        bit = np.int64(1) << popcount(after & ((np.int64(1) << src) - 1))
        reached = _flood(np.int64(1) << src, after, size, not_left, not_right)
        before = np.int64(atomic_or(marks, target, _compact(reached, after) << plane))
        if ((before | (before >> width)) & bit) == 0:
            if before == 0:  # the placement's first blank region: its PDB value
                table[target] = depth + 1
                filled += 1
            chunk = target // chunk_ranks
            if coming[chunk] == 0:  # read first: most are set, and a store would take the
                coming[chunk] = 1   # line from the other cores' caches (racing stores agree)
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


@inline_kernel
def _frontier(mark, width, depth):
    """The free-cell bits of ``mark`` labelled with ``depth``: its frontier in that layer."""
    low = (np.int64(1) << width) - 1
    first, second = mark & low, (mark >> width) & low
    return first & ~second if depth & 1 == 0 else second & ~first


@inline_kernel
def _prefix_digits(prefix, n_cells, digits):
    """Write the digits of rank prefix ``prefix`` into ``digits`` (digit i in radix N - i)."""
    for i in range(digits.shape[0] - 1, -1, -1):
        radix = n_cells - i
        digits[i] = prefix % radix
        prefix //= radix


@inline_kernel
def _step(digits, steps, n_cells):
    """Add ``steps`` to the rank prefix whose ``digits`` these are; return the most
    significant digit that changed (most steps change only the last one)."""
    i = digits.shape[0] - 1
    if i < 0:
        return 0  # a one-tile table has one, empty, prefix
    while i > 0:
        total = digits[i] + steps
        radix = n_cells - i
        if total < radix:
            digits[i] = total
            return i
        digits[i] = total % radix
        steps = total // radix
        i -= 1
    digits[0] += steps  # past the last prefix only when a block ends there
    return 0


@inline_kernel
def _select_free(taken, d):
    """The ``d``-th (from 0) cell not in the bit mask ``taken``."""
    rest = ~taken
    for _ in range(d):
        rest &= rest - 1
    return np.int64(trailing_zeros(rest))


@inline_kernel
def _replace_tiles(first, digits, n_cells, cells, tile_at, free_cells):
    """Put tiles ``first..k-2`` on the cells their ``digits`` give, the tiles before
    ``first`` staying where ``cells`` has them; list the cells left free in ``free_cells``
    and return the occupied cells' bit mask (see :func:`place_prefix`).

    Moving on to the next prefix mostly changes the last digit only, so one tile moves
    instead of the whole prefix being unranked again."""
    taken = np.int64(0)
    for i in range(first):
        taken |= np.int64(1) << cells[i]
    for i in range(first, digits.shape[0]):
        tile_at[cells[i]] = -1
    for i in range(first, digits.shape[0]):
        cells[i] = _select_free(taken, digits[i])
        tile_at[cells[i]] = i
        taken |= np.int64(1) << cells[i]
    rest = ((np.int64(1) << n_cells) - 1) & ~taken
    j = 0
    while rest != 0:
        free_cells[j] = trailing_zeros(rest)
        rest &= rest - 1
        j += 1
    return taken


@inline_kernel
def _earlier_cells(cells, earlier):
    """Set ``earlier[i]`` to the bit mask of the cells of tiles ``0..i-1`` (of ``cells[:k-1]``:
    the last tile's is the whole prefix)."""
    taken = np.int64(0)
    for i in range(earlier.shape[0]):
        earlier[i] = taken
        taken |= np.int64(1) << cells[i]


@inline_kernel
def _has_frontier(marks, base, radix, width, depth):
    """Whether any of the placements ``base .. base + radix - 1`` has frontier states."""
    for j in range(radix):
        if _frontier(np.int64(marks[base + j]), width, depth) != 0:
            return True
    return False


@inline_kernel
def _expand_prefix(base, occupied, marks, table, depth, geometry, weights, tile_at, earlier,
                   free_cells, moves, coming):
    """Expand the frontier states of the placements ``base + j`` (``j < R = N - k + 1``)
    whose tiles ``0..k-2`` are set out on ``occupied`` (:func:`_replace_tiles`,
    :func:`_earlier_cells`).

    Their last tile is on ``free_cells[j]``. All their moves are listed (in ``moves``, room
    for ``4 * (N - k)`` a placement) before any target is read: the reads' cache misses
    overlap.
    """
    k, n_cells = geometry[0], geometry[1]
    radix, width = n_cells - k + 1, n_cells - k
    everything = (np.int64(1) << n_cells) - 1
    retire = width * (1 - (depth & 1))  # the other plane: both set means expanded
    n = 0
    for j in range(radix):
        # other threads only add labels of depth + 1 to this mark during the layer
        frontier = _frontier(np.int64(marks[base + j]), width, depth)
        if frontier == 0:
            continue
        last = free_cells[j]
        tile_at[last] = k - 1
        free = everything & ~(occupied | (np.int64(1) << last))
        n = _moves(base + j, _spread(frontier, free), tile_at, earlier, free, marks, geometry,
                   weights, moves, n)
        atomic_or(marks, base + j, frontier << retire)
        tile_at[last] = -1
    return _discover(moves, n, marks, table, depth, geometry, coming)


@kernel
def _expand_block(block, marks, table, depth, geometry, weights, active, coming):
    """Expand the frontier states of rank prefixes ``block * _BLOCK`` up to the next block,
    skipping the chunks ``active`` does not flag.

    The prefixes are visited in rank order and their digits counted up, so a prefix's tiles
    are set out by moving those whose digits changed (:func:`_replace_tiles`)."""
    k, n_cells = geometry[0], geometry[1]
    radix, width = n_cells - k + 1, n_cells - k
    prefixes = marks.shape[0] // radix
    digits = np.empty(k - 1, dtype=np.int64)
    cells, earlier = np.zeros(k, dtype=np.int64), np.zeros(k, dtype=np.int64)
    tile_at = np.full(n_cells, -1, dtype=np.int64)
    free_cells = np.empty(n_cells, dtype=np.int64)
    moves = np.empty((radix * 4 * width, 3), dtype=np.int64)
    prefix, end = block * _BLOCK, min(prefixes, (block + 1) * _BLOCK)
    _prefix_digits(prefix, n_cells, digits)
    occupied = _replace_tiles(0, digits, n_cells, cells, tile_at, free_cells)
    _earlier_cells(cells, earlier)
    stale = k - 1  # digits from ``stale`` on are not set out yet
    found, filled = 0, 0
    while prefix < end:
        steps = 1
        if active[prefix // CHUNK] == 0:
            steps = min(end, (prefix // CHUNK + 1) * CHUNK) - prefix
        elif _has_frontier(marks, prefix * radix, radix, width, depth):
            if stale < k - 1:
                occupied = _replace_tiles(stale, digits, n_cells, cells, tile_at, free_cells)
                _earlier_cells(cells, earlier)
                stale = k - 1
            states, placements = _expand_prefix(prefix * radix, occupied, marks, table, depth,
                                                geometry, weights, tile_at, earlier, free_cells,
                                                moves, coming)
            found += states
            filled += placements
        stale = min(stale, _step(digits, steps, n_cells))
        prefix += steps
    return found, filled


@kernel
def layer_blocks(marks, geometry):
    """Number of work items of a layer over ``marks``."""
    prefixes = marks.shape[0] // (geometry[1] - geometry[0] + 1)
    return (prefixes + _BLOCK - 1) // _BLOCK


@parallel_kernel
def _expand_layer(marks, table, depth, geometry, weights, active, coming):
    """Expand every frontier state of one BFS layer, in parallel.

    Parameters
    ----------
    marks : uint16[P], uint32[P] or uint64[P]
        Per placement rank, two planes of ``w = N - k`` bits (bit i: the i-th free cell in
        cell order); see the module's docstring. The frontier (labelled ``depth``) is
        relabelled expanded, the states first reached get the label of ``depth + 1``.
    table : uint8[P]
        PDB under construction; unreached placements hold ``UNREACHED`` and get ``depth + 1``.
    depth : int
        Depth of the frontier.
    geometry : int64[5]
        k, number of cells, board width, mask of cells not in column 0, mask of cells
        not in the last column.
    weights : int64[k]
        Place value of each tile's digit in the rank.
    active, coming : uint8[ceil(P / (R * CHUNK))]
        Per chunk of ``CHUNK`` rank prefixes (``R = N - k + 1`` ranks each): 1 where the
        frontier may have states; ``coming`` (zero on entry) gets 1 where states are
        discovered, so it is the next layer's ``active``.

    Returns
    -------
    tuple of int64
        Number of (placement, blank region) states discovered at ``depth + 1``, and of
        placements among them reached for the first time (table entries filled).
    """
    blocks = layer_blocks(marks, geometry)
    counts = np.zeros((blocks, 2), dtype=np.int64)
    for item in prange(blocks):
        block = (item * _SCATTER) % blocks  # spread the threads over the rank range
        counts[block, 0], counts[block, 1] = _expand_block(block, marks, table, depth, geometry,
                                                           weights, active, coming)
    return counts[:, 0].sum(), counts[:, 1].sum()


@kernel
def _expand_layer_serial(marks, table, depth, geometry, weights, active, coming):
    """:func:`_expand_layer` on one thread, for small tables (no thread start-up per layer)."""
    found, filled = 0, 0
    for block in range(layer_blocks(marks, geometry)):
        states, placements = _expand_block(block, marks, table, depth, geometry, weights,
                                           active, coming)
        found += states
        filled += placements
    return found, filled

