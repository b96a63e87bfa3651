"""A table-driven plugin: Manhattan distance plus linear conflicts, each read from a table
computed when the file is imported. ``tilesweep solve ... --plugin
examples/heuristics/conflict_table.py --heuristic plugin:conflict-table``.

Per row, and per column, the tiles whose goal is in that line count 2 for each one that must
leave it: 2 x (those tiles - the longest of them already in goal order), the admissible form
of Hansson, Mayer & Yung (1992), which is the built-in ``linear-conflict``'s definition, so
the two give the same h on every board and IDA* the same node counts. The line's part is one
read of ``CONFLICTS``: a line's content is a number in base ``width + 1`` whose digits say,
cell by cell, where in the line the tile's goal is (0: the blank, or a tile of another
line), and its conflicts are tabulated for every such number (216 entries for the 8-puzzle,
3,125 for the 15-puzzle, 46,656 for the 24-puzzle).
"""

import numba
import numpy as np

SIZES = (3, 4, 5)


def cell_distances() -> np.ndarray:
    """``DISTANCE[n, a, b]``: rows plus columns between cells ``a`` and ``b`` of a board of
    ``n`` cells."""
    table = np.zeros((26, 25, 25), dtype=np.int64)
    for size in SIZES:
        cells = np.arange(size * size)
        rows, cols = cells // size, cells % size
        table[size * size, :size * size, :size * size] = (abs(rows[:, None] - rows[None, :])
                                                          + abs(cols[:, None] - cols[None, :]))
    return table


def longest_in_order(places: list[int]) -> int:
    """The length of the longest increasing subsequence of ``places``."""
    best = [1] * len(places)
    for i in range(len(places)):
        for j in range(i):
            if places[j] < places[i]:
                best[i] = max(best[i], best[j] + 1)
    return max(best, default=0)


def line_conflicts() -> np.ndarray:
    """``CONFLICTS[width, code]``: 2 x (tiles at home in the line - the longest run of them in
    goal order) for each content code of a line (first cell the most significant digit;
    digit ``d`` > 0: the tile's goal is the line's place ``d - 1``)."""
    table = np.zeros((6, 6 ** 5), dtype=np.int64)
    for width in SIZES:
        base = width + 1
        for code in range(base ** width):
            digits = [code // base ** (width - 1 - k) % base for k in range(width)]
            places = [d - 1 for d in digits if d > 0]
            if len(set(places)) == len(places):  # else no board has this line
                table[width, code] = 2 * (len(places) - longest_in_order(places))
    return table


DISTANCE = cell_distances()
CONFLICTS = line_conflicts()
WIDTH = np.array([0] * 9 + [3] + [0] * 6 + [4] + [0] * 8 + [5], dtype=np.int64)  # by cell count


@numba.njit(error_model="numpy")
def conflict_table(tiles, goal):
    """Manhattan distance plus the conflicts of every row and column (int64 boards, 0 the blank)."""
    n = tiles.shape[0]
    width = WIDTH[n]
    goal_cell = np.empty(n, dtype=np.int64)
    for c in range(n):
        goal_cell[goal[c]] = c
    h = 0
    for line in range(width):
        row_code = 0
        col_code = 0
        for k in range(width):
            row_code *= width + 1
            col_code *= width + 1
            c = line * width + k  # k-th cell of row `line`
            t = tiles[c]
            if t != 0:
                g = goal_cell[t]
                h += DISTANCE[n, c, g]
                if g // width == line:
                    row_code += 1 + g % width
            c = k * width + line  # k-th cell of column `line`
            t = tiles[c]
            if t != 0:
                g = goal_cell[t]
                if g % width == line:
                    col_code += 1 + g // width
        h += CONFLICTS[width, row_code] + CONFLICTS[width, col_code]
    return h


HEURISTICS = {"conflict-table": conflict_table}
