"""Manhattan distance as a plugin heuristic: ``tilesweep solve ... --plugin
examples/heuristics/manhattan.py --heuristic plugin:manhattan-plugin``.

It gives the built-in ``manhattan``'s h on every board, so IDA* generates exactly the
built-in's nodes; comparing the two measures what a plugin's call costs per node.
"""

import numba
import numpy as np


@numba.njit
def manhattan(tiles, goal):
    """Sum over the tiles of the rows plus columns between their cell and their goal cell.

    ``tiles`` and ``goal`` are int64 boards, row-major, 0 the blank; read them only.
    """
    n = tiles.shape[0]
    size = int(np.sqrt(n) + 0.5)
    goal_cell = np.empty(n, dtype=np.int64)
    for c in range(n):
        goal_cell[goal[c]] = c
    h = 0
    for c in range(n):
        t = tiles[c]
        if t != 0:
            g = goal_cell[t]
            h += abs(c // size - g // size) + abs(c % size - g % size)
    return h


@numba.njit
def twice_manhattan(tiles, goal):
    """Deliberately inadmissible: 2 x Manhattan distance (solutions found are not optimal)."""
    return 2 * manhattan(tiles, goal)


HEURISTICS = {"manhattan-plugin": manhattan, "twice-manhattan": twice_manhattan}
