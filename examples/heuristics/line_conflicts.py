"""Manhattan distance plus 2 for each row and each column holding a conflict (after Hansson,
Mayer & Yung 1992, and Korf & Taylor 1996's additions to Manhattan distance):
``tilesweep solve ... --plugin examples/heuristics/line_conflicts.py --heuristic plugin:line-conflicts``.

Two tiles conflict in a row when both have their goal in that row and stand in the reverse
of their goal order: one of them must leave the row and come back, two vertical moves that
Manhattan distance does not count. A row holding any conflict adds 2 (the built-in
``linear-conflict`` adds 2 for each tile that must leave, so it is never below this one);
columns alike, with horizontal moves, so rows and columns add up. Admissible:
``tilesweep check-heuristic plugin:line-conflicts --plugin examples/heuristics/line_conflicts.py``.
"""

import numba
import numpy as np


@numba.njit
def line_conflicts(tiles, goal):
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
    for line in range(size):
        h += 2 * (_conflict(tiles, goal_cell, size, line, True) + _conflict(tiles, goal_cell, size, line, False))
    return h


@numba.njit
def _conflict(tiles, goal_cell, size, line, is_row):
    """1 if two tiles of ``line`` (a row, or a column) whose goal is in it stand reversed."""
    for i in range(size):
        a = tiles[line * size + i] if is_row else tiles[i * size + line]
        if a == 0:
            continue
        ga = goal_cell[a]
        if (ga // size if is_row else ga % size) != line:
            continue
        for j in range(i + 1, size):
            b = tiles[line * size + j] if is_row else tiles[j * size + line]
            if b == 0:
                continue
            gb = goal_cell[b]
            if (gb // size if is_row else gb % size) == line and gb < ga:
                return 1
    return 0


HEURISTICS = {"line-conflicts": line_conflicts}
