"""Manhattan distance as a plugin heuristic: ``tilesweep solve ... --plugin
examples/heuristics/manhattan.py --heuristic plugin:manhattan-plugin``.

It gives the built-in ``manhattan``'s h on every board, so IDA* generates exactly the
built-in's nodes; comparing the two measures what a plugin's call costs per node.
``manhattan-incremental`` is the same heuristic with an incremental form, which IDA*
calls instead: the parent's h plus the change of the moved tile's distance.
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


@numba.njit
def manhattan_step(tiles, goal, h, tile, source, target):
    """Manhattan distance after ``tile`` moved from cell ``source`` to ``target``, from the
    distance ``h`` before the move: only the moved tile's term changes."""
    size = int(np.sqrt(tiles.shape[0]) + 0.5)
    g = 0
    while goal[g] != tile:
        g += 1
    before = abs(source // size - g // size) + abs(source % size - g % size)
    after = abs(target // size - g // size) + abs(target % size - g % size)
    return h + after - before


HEURISTICS = {"manhattan-plugin": manhattan, "manhattan-incremental": manhattan,
              "twice-manhattan": twice_manhattan}
INCREMENTAL = {"manhattan-incremental": manhattan_step}
