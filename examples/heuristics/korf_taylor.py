"""Manhattan distance with three of Korf & Taylor's (1996) additions: line conflicts, the last
move and corner tiles.
``tilesweep solve ... --plugin examples/heuristics/korf_taylor.py --heuristic plugin:korf-taylor``.

Each addition charges moves of some tile that Manhattan distance does not count, and an
addition is left out wherever its moves could be ones another has charged:

- **Line conflicts**: a row holding two of its own tiles in the reverse of their goal order
  adds 2 (one of them leaves the row and comes back: two vertical moves); columns alike,
  with horizontal moves.
- **Last move**: the solution's last move brings the blank into its goal cell from a
  neighbouring cell g, so the tile that belongs in g stood in the blank's goal cell just
  before. For each neighbour g, the moves that detour costs that tile beyond its Manhattan
  distance (0 or 2, along the g side); the smallest of them is added, unless a neighbour
  tile's line along that side holds a charged conflict.
- **Corner tiles**: a corner whose tile is not home while both tiles beside it are home adds
  2: the corner tile enters through one of those two cells, whose tile must leave and come
  back. Left out when a tile beside it sits in a charged line, or was counted already (by
  the last move, or by another corner: the 8-puzzle's corners share neighbours).

Admissible, checked on every 8-puzzle board (both goals) and on sampled 15-puzzles:
``tilesweep check-heuristic plugin:korf-taylor --plugin examples/heuristics/korf_taylor.py``.

Richard E. Korf and Larry A. Taylor, "Finding optimal solutions to the twenty-four puzzle",
AAAI 1996.
"""

import numba
import numpy as np


@numba.njit
def korf_taylor(tiles, goal):
    n = tiles.shape[0]
    size = int(np.sqrt(n) + 0.5)
    goal_cell = np.empty(n, dtype=np.int64)
    cell = np.empty(n, dtype=np.int64)
    for c in range(n):
        goal_cell[goal[c]] = c
        cell[tiles[c]] = c
    h = 0
    for t in range(1, n):
        h += abs(cell[t] // size - goal_cell[t] // size) + abs(cell[t] % size - goal_cell[t] % size)
    if h == 0:
        return 0  # the goal
    row_charged = np.zeros(size, dtype=np.bool_)
    col_charged = np.zeros(size, dtype=np.bool_)
    for line in range(size):
        row_charged[line] = _conflict(tiles, goal_cell, size, line, True)
        col_charged[line] = _conflict(tiles, goal_cell, size, line, False)
        h += 2 * (row_charged[line] + col_charged[line])
    counted = np.zeros(n, dtype=np.bool_)  # tiles whose extra moves are charged already
    h += _last_move(goal, cell, goal_cell, size, row_charged, col_charged, counted)
    h += _corners(tiles, goal, cell, size, row_charged, col_charged, counted)
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


@numba.njit
def _last_move(goal, cell, goal_cell, size, row_charged, col_charged, counted):
    """The fewest extra moves the last move's tile makes (see the module), marking the
    neighbour tiles ``counted`` when there are any."""
    br, bc = goal_cell[0] // size, goal_cell[0] % size
    best = 2
    for dr, dc in ((-1, 0), (1, 0), (0, -1), (0, 1)):
        gr, gc = br + dr, bc + dc
        if gr < 0 or gr >= size or gc < 0 or gc >= size:
            continue
        t = goal[gr * size + gc]
        r, c = cell[t] // size, cell[t] % size
        if dr == 0:  # a horizontal neighbour: its tile's detour is horizontal moves
            if col_charged[c]:
                return 0
            extra = abs(c - bc) + abs(bc - gc) - abs(c - gc)
        else:
            if row_charged[r]:
                return 0
            extra = abs(r - br) + abs(br - gr) - abs(r - gr)
        best = min(best, extra)
    if best > 0:
        for dr, dc in ((-1, 0), (1, 0), (0, -1), (0, 1)):
            gr, gc = br + dr, bc + dc
            if 0 <= gr < size and 0 <= gc < size:
                counted[goal[gr * size + gc]] = True
    return best


@numba.njit
def _corners(tiles, goal, cell, size, row_charged, col_charged, counted):
    """2 for each corner whose tile is away while both tiles beside it are home (see the module)."""
    extra = 0
    last = size - 1
    for kr, kc in ((0, 0), (0, last), (last, 0), (last, last)):
        k = kr * size + kc
        a = kr * size + (1 if kc == 0 else last - 1)  # beside the corner in its row
        b = (1 if kr == 0 else last - 1) * size + kc  # and in its column
        ta, tb = goal[a], goal[b]
        if goal[k] == 0 or tiles[k] == goal[k] or ta == 0 or tb == 0:
            continue
        if tiles[a] != ta or tiles[b] != tb or counted[ta] or counted[tb]:
            continue
        if row_charged[a // size] or col_charged[a % size] or row_charged[b // size] or col_charged[b % size]:
            continue
        counted[ta] = counted[tb] = True
        extra += 2
    return extra


HEURISTICS = {"korf-taylor": korf_taylor}
