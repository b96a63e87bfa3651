"""Manhattan distance as a plugin heuristic: ``tilesweep solve ... --plugin
examples/heuristics/manhattan.py --heuristic plugin:manhattan-plugin``.

It gives the built-in ``manhattan``'s h on every board, so IDA* generates exactly the
built-in's nodes; comparing the two measures what a plugin costs per node.
``manhattan-incremental`` is the same heuristic with an incremental form, which IDA*
calls instead: the parent's h plus the change of the moved tile's distance.

The distances between cells come from a table computed once, at import: numba reads a
module-level array as a constant, where dividing by the board's width on every call cost
more than the rest of the function.
"""

import numba
import numpy as np


def cell_distances() -> np.ndarray:
    """``DISTANCE[n, a, b]``: rows plus columns between cells ``a`` and ``b`` of a board of
    ``n`` cells (9, 16 or 25)."""
    table = np.zeros((26, 25, 25), dtype=np.int64)
    for size in (3, 4, 5):
        cells = np.arange(size * size)
        rows, cols = cells // size, cells % size
        table[size * size, :size * size, :size * size] = (abs(rows[:, None] - rows[None, :])
                                                          + abs(cols[:, None] - cols[None, :]))
    return table


DISTANCE = cell_distances()


@numba.njit(error_model="numpy")
def manhattan(tiles, goal):
    """Sum over the tiles of the rows plus columns between their cell and their goal cell.

    ``tiles`` and ``goal`` are int64 boards, row-major, 0 the blank; read them only.
    """
    n = tiles.shape[0]
    goal_cell = np.empty(n, dtype=np.int64)
    for c in range(n):
        goal_cell[goal[c]] = c
    h = 0
    for c in range(n):
        t = tiles[c]
        if t != 0:
            h += DISTANCE[n, c, goal_cell[t]]
    return h


@numba.njit(error_model="numpy")
def twice_manhattan(tiles, goal):
    """Deliberately inadmissible: 2 x Manhattan distance (solutions found are not optimal)."""
    return 2 * manhattan(tiles, goal)


@numba.njit(error_model="numpy")
def manhattan_step(tiles, goal, h, tile, source, target):
    """Manhattan distance after ``tile`` moved from cell ``source`` to ``target``, from the
    distance ``h`` before the move: only the moved tile's term changes."""
    n = tiles.shape[0]
    g = 0
    while goal[g] != tile:  # the tile's goal cell
        g += 1
    return h + DISTANCE[n, target, g] - DISTANCE[n, source, g]


HEURISTICS = {"manhattan-plugin": manhattan, "manhattan-incremental": manhattan,
              "twice-manhattan": twice_manhattan}
INCREMENTAL = {"manhattan-incremental": manhattan_step}
