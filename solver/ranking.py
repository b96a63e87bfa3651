"""Dense perfect ranking of tile placements, the index of pattern-database tables.

The placement of k distinct pattern tiles over N cells is ranked in the mixed radix
``N, N-1, ..., N-k+1``: digit i is the cell of tile i counted among the cells not taken
by tiles 0..i-1. The ranks fill ``0 .. N!/(N-k)! - 1`` without gaps, in the
lexicographic order of the cell tuples. This module is the only implementation in the
package; ``tests/naive_pdb.py`` holds a deliberately naive one to check it against.
"""

import numpy as np
from numba.extending import intrinsic

from .jit import inline_kernel, kernel


def placement_count(cells: int, k: int) -> int:
    """Number of placements of ``k`` distinct tiles over ``cells`` cells."""
    total = 1
    for i in range(k):
        total *= cells - i
    return total


def digit_weights(n_cells: int, k: int) -> np.ndarray:
    """Place value of each digit of a rank, ``int64[k]``: rank = sum(weights * digits)."""
    weights = np.ones(k, dtype=np.int64)
    for i in range(k - 2, -1, -1):
        weights[i] = weights[i + 1] * (n_cells - i - 1)
    return weights


@intrinsic
def popcount(typingctx, x):
    """Set bits of an integer: one ``popcnt`` instruction where the CPU has it."""
    def codegen(context, builder, signature, args):
        return builder.ctpop(args[0])
    return x(x), codegen


@inline_kernel
def placement_digit(taken, cell):
    """Digit of a tile on ``cell``: the cells below it not in the bit mask ``taken``."""
    return cell - popcount(taken & ((np.int64(1) << cell) - 1))


@kernel
def rank_placement(where, n_cells):
    """Rank a placement.

    Parameters
    ----------
    where : int8[k] or any int[k]
        Cell of each pattern tile, in the pattern's tile order; all distinct.
    n_cells : int
        N, the number of cells of the board (at most 32).

    Returns
    -------
    int64
        The rank, in ``0 .. N!/(N-k)! - 1``.
    """
    taken = np.int64(0)
    rank = np.int64(0)
    for i in range(where.shape[0]):
        c = np.int64(where[i])
        rank = rank * (n_cells - i) + placement_digit(taken, c)
        taken |= np.int64(1) << c
    return rank


@kernel
def rank_placements(where, n_cells):
    """:func:`rank_placement` of each row of ``where`` (int[M, k]); returns int64[M]."""
    out = np.empty(where.shape[0], dtype=np.int64)
    for row in range(where.shape[0]):
        out[row] = rank_placement(where[row], n_cells)
    return out


@kernel
def unrank_placement(rank, k, n_cells, out):
    """Write into ``out[:k]`` the cells of the placement ``rank`` (no allocation)."""
    r = rank
    for i in range(k - 1, -1, -1):
        radix = n_cells - i
        out[i] = r % radix
        r //= radix
    taken = np.int64(0)
    for i in range(k):
        d = out[i]
        c = 0
        while True:  # the d-th cell not taken
            if (taken >> c) & 1 == 0:
                if d == 0:
                    break
                d -= 1
            c += 1
        out[i] = c
        taken |= np.int64(1) << c


@inline_kernel
def moved_rank(rank, i, src, dst, size, tile_at, weights):
    """Rank after tile ``i`` moves from ``src`` to the adjacent free cell ``dst``.

    ``tile_at`` (int[N]) holds the tile index on each cell or -1; ``weights`` is
    :func:`digit_weights`. Only tiles on the cells strictly between ``src`` and ``dst``
    (none for a horizontal move, ``size - 1`` cells for a vertical one) change digits.
    """
    step = 1 if dst > src else -1
    result = rank + step * weights[i]
    for cell in range(min(src, dst) + 1, max(src, dst)):
        j = tile_at[cell]
        if 0 <= j < i:  # an earlier tile: not counted in tile i's digit
            continue
        # free, or a later tile: one more cell counts towards tile i's digit
        result += step * weights[i]
        if j > i:  # tile j's cell is passed by tile i: its digit shifts by one
            result += step * weights[j]
    return result
