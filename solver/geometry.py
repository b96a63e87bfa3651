"""Board geometry: cells, moves and their precomputed neighbour tables.

Moves are named by the direction the blank travels. Their index order is the
successor order every algorithm uses: ``U, L, R, D``; the inverse of move ``m``
is ``3 - m``, which makes parent pruning a single comparison in the kernels.
"""

from functools import lru_cache

import numpy as np

MOVES = "ULRD"
MOVE_INDEX = {name: i for i, name in enumerate(MOVES)}
MOVE_DELTAS = ((-1, 0), (0, -1), (0, 1), (1, 0))  # (row, col) step of the blank
SIZES = (3, 4, 5)
NO_CELL = -1


def inverse_move(move: int) -> int:
    """Return the move that undoes ``move``."""
    return 3 - move


@lru_cache(maxsize=None)
def neighbours(size: int) -> np.ndarray:
    """Cell the blank reaches from each cell by each move.

    Returns
    -------
    numpy.ndarray
        ``int8[size*size, 4]``; entry ``[c, m]`` is the cell reached from ``c`` by
        move ``m`` (order ``U, L, R, D``), or ``-1`` when the move leaves the board.
        Read-only and shared.
    """
    table = np.full((size * size, 4), NO_CELL, dtype=np.int8)
    for cell in range(size * size):
        row, col = divmod(cell, size)
        for m, (dr, dc) in enumerate(MOVE_DELTAS):
            r, c = row + dr, col + dc
            if 0 <= r < size and 0 <= c < size:
                table[cell, m] = r * size + c
    table.flags.writeable = False
    return table


@lru_cache(maxsize=None)
def neighbours64(size: int) -> np.ndarray:
    """:func:`neighbours` as ``int64``, the form the general kernels take (read-only)."""
    table = neighbours(size).astype(np.int64)
    table.flags.writeable = False
    return table


def transpose_cell(cell: int, size: int) -> int:
    """Return the cell mirrored about the main diagonal."""
    row, col = divmod(cell, size)
    return col * size + row
