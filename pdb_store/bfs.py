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
discoveries of one placement safe.
"""

import numba
import numpy as np
from numba import prange

from solver.jit import JIT_OPTIONS, kernel

from .atomics import atomic_or

#: Table value of a placement the search never reached (no blank position leads to the goal).
UNREACHED = 255
#: The same JIT options as every kernel, plus ``parallel=True`` for ``prange``.
PARALLEL_JIT_OPTIONS = dict(JIT_OPTIONS, parallel=True)
_BLOCK = 1 << 14          # ranks per work item of a layer
_SCATTER = 1_000_003      # prime multiplier spreading work items over the rank range


def parallel_kernel(func):
    """Compile ``func`` as a tilesweep numba kernel that may use ``prange``."""
    return numba.njit(**PARALLEL_JIT_OPTIONS)(func)


@kernel
def _unrank(rank, k, n_cells, cells):
    """Write into ``cells[:k]`` the cells of the placement ``rank`` (no allocation)."""
    r = rank
    for i in range(k - 1, -1, -1):
        radix = n_cells - i
        cells[i] = r % radix
        r //= radix
    taken = np.int64(0)
    for i in range(k):
        d = cells[i]
        c = 0
        while True:
            if (taken >> c) & 1 == 0:
                if d == 0:
                    break
                d -= 1
            c += 1
        cells[i] = c
        taken |= np.int64(1) << c


@kernel
def _moved_rank(rank, cells, k, i, src, dst, weights):
    """Rank of the placement ``cells`` after tile ``i`` moves from ``src`` to free ``dst``."""
    lo, hi = min(src, dst), max(src, dst)
    step = 1 if dst > src else -1
    between = 0
    for j in range(i):
        if lo < cells[j] < hi:
            between += 1
    result = rank + ((dst - src) - step * between) * weights[i]
    for j in range(i + 1, k):
        if lo < cells[j] < hi:
            result += step * weights[j]
    return result


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
def _expand(rank, region, cells, nxt, seen, table, depth, geometry, weights, neighbours):
    """Expand placement ``rank`` with the blank in ``region``; return states discovered.

    ``geometry`` is int64[5]: k, n_cells, size, not_left mask, not_right mask.
    """
    k, n_cells, size, not_left, not_right = (geometry[0], geometry[1], geometry[2],
                                             geometry[3], geometry[4])
    _unrank(rank, k, n_cells, cells)
    free = (np.int64(1) << n_cells) - 1
    for i in range(k):
        free &= ~(np.int64(1) << cells[i])
    found = 0
    for i in range(k):
        src = cells[i]
        for m in range(4):
            dst = np.int64(neighbours[src, m])
            if dst < 0 or (region >> dst) & 1 == 0:
                continue
            target = _moved_rank(rank, cells, k, i, src, dst, weights)
            if (np.int64(seen[target]) >> src) & 1:
                continue  # plain read first: most successors are old, skip the atomic
            after = (free & ~(np.int64(1) << dst)) | (np.int64(1) << src)
            reached = _flood(np.int64(1) << src, after, size, not_left, not_right)
            before = np.int64(atomic_or(seen, target, reached))
            if (before >> src) & 1 == 0:
                atomic_or(nxt, target, reached)
                if before == 0:  # the placement's first blank region: its PDB value
                    table[target] = depth + 1
                found += 1
    return found


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
    int64
        Number of (placement, blank region) states discovered at ``depth + 1``.
    """
    n = cur.shape[0]
    blocks = (n + _BLOCK - 1) // _BLOCK
    counts = np.zeros(blocks, dtype=np.int64)
    for item in prange(blocks):
        block = (item * _SCATTER) % blocks
        cells = np.empty(geometry[0], dtype=np.int64)
        found = 0
        for rank in range(block * _BLOCK, min(n, (block + 1) * _BLOCK)):
            region = np.int64(cur[rank])
            if region != 0:
                cur[rank] = 0  # only this thread reads or writes cur[rank] in a layer
                found += _expand(rank, region, cells, nxt, seen, table, depth,
                                 geometry, weights, neighbours)
        counts[block] = found
    return counts.sum()
