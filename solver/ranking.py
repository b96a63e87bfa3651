"""Dense perfect ranking of tile placements, the index of pattern-database tables.

The placement of k distinct pattern tiles over N cells is ranked in the mixed radix
``N, N-1, ..., N-k+1``: digit i is the cell of tile i counted among the cells not taken
by tiles 0..i-1. The ranks fill ``0 .. N!/(N-k)! - 1`` without gaps.
"""

import numpy as np

from .jit import kernel


def placement_count(cells: int, k: int) -> int:
    """Number of placements of ``k`` distinct tiles over ``cells`` cells."""
    total = 1
    for i in range(k):
        total *= cells - i
    return total


@kernel
def rank_placement(where, n_cells):
    """Rank a placement.

    Parameters
    ----------
    where : int8[k] or any int[k]
        Cell of each pattern tile, in the pattern's tile order; all distinct.
    n_cells : int
        N, the number of cells of the board.

    Returns
    -------
    int64
        The rank, in ``0 .. N!/(N-k)! - 1``.
    """
    k = where.shape[0]
    rank = np.int64(0)
    for i in range(k):
        c = where[i]
        smaller = 0
        for j in range(i):
            if where[j] < c:
                smaller += 1
        rank = rank * (n_cells - i) + (c - smaller)
    return rank


@kernel
def unrank_placement(rank, k, n_cells, out):
    """Write into ``out[:k]`` (int8) the cells of the placement with ``rank``."""
    digits = np.empty(k, dtype=np.int64)
    r = np.int64(rank)
    for i in range(k - 1, -1, -1):
        radix = n_cells - i
        digits[i] = r % radix
        r //= radix
    taken = np.zeros(n_cells, dtype=np.bool_)
    for i in range(k):
        d = digits[i]
        c = 0
        while True:  # the d-th free cell
            if not taken[c]:
                if d == 0:
                    break
                d -= 1
            c += 1
        taken[c] = True
        out[i] = c
