"""What a move changes to the line keys of linear conflicts (``linear-conflict``).

Every row and column has a key, the code :func:`solver.htables.line_conflict_table` is
indexed by: per cell of the line, base n + 1, 0 when the cell's tile belongs to another
line, else 1 + its goal place along this one. A move changes the keys of at most two lines
and the conflicts of at most one: a tile leaving or entering its goal row (a vertical move)
or its goal column (a horizontal one) changes that line's key; in the line it slides along,
it keeps its order among the line's tiles (the blank is not one), so that line's conflicts
stay and only its key moves a digit. :func:`line_steps` holds both key changes per (tile,
blank, move), so the IDA* contour (:func:`solver.idastar_tiles.contour_tiles` with
``lines``) reads a child's h as its parent's plus a Manhattan change and two reads of the
conflict table.
"""

import numpy as np

from .jit import inline_kernel

# A line step (:func:`line_steps`) is two words per (tile, blank, move), each
# ``key change << 8 | line << 2 | Manhattan change + 1``: the line across the move first,
# then the line along it (whose word has no Manhattan change). Two words, not five
# numbers: the table of a 4x4 board takes 16 KB, which stays in the first-level cache.
STEP_ACROSS, STEP_ALONG = 0, 1
STEP_FIELDS = 2


@inline_kernel
def step_word(key, line, tiles_change):
    return (np.int64(key) << 8) | (np.int64(line) << 2) | np.int64(tiles_change + 1)


@inline_kernel
def step_key(word):
    """The change of the line's key."""
    return word >> 8


@inline_kernel
def step_line(word):
    return np.uint64((word >> 2) & 15)


@inline_kernel
def step_tiles(word):
    """The change of the Manhattan sum."""
    return (word & 3) - 1


@inline_kernel
def line_place(cell, line, size):
    """The place of ``cell`` along ``line`` (a row when ``line < size``, else a column)."""
    return cell % size if line < size else cell // size


@inline_kernel
def line_through(cell, row, size):
    """The row (``row``) or the column through ``cell``, as a line number."""
    return cell // size if row else size + cell % size


@inline_kernel
def line_steps(nbr8, size, tile_cost, lc_code):
    """What a move changes: ``steps[(t * 4N + b * 4 + m) * STEP_FIELDS + field]`` for tile
    ``t`` sliding by move ``m`` into blank ``b`` (int64 words, :func:`step_word`):

    * ``STEP_ACROSS``: the tile's goal line across the move (its goal row for a vertical
      move, its goal column for a horizontal one), the change of its key (0 unless the tile
      leaves or enters that line) and the change of the Manhattan sum: the line whose
      conflicts can change;
    * ``STEP_ALONG``: the line the tile slides along and the change of its key (the tile's
      digit moves one place; 0 unless it is the tile's goal line).
    """
    n = nbr8.shape[0]
    power = np.ones(size, dtype=np.int64)
    for i in range(1, size):
        power[i] = power[i - 1] * (size + 1)
    steps = np.zeros(n * n * 4 * STEP_FIELDS, dtype=np.int64)
    for t in range(1, n):
        goal_cell = lc_code[2 * size, t]  # its goal place in row-major order
        for b in range(n):
            for m in range(4):
                src = nbr8[b, m]
                if src < 0:
                    continue
                vertical = m == 0 or m == 3
                across = line_through(goal_cell, vertical, size)
                key = np.int64(0)
                if line_through(b, vertical, size) == across:
                    key += lc_code[across, t] * power[line_place(b, across, size)]
                if line_through(src, vertical, size) == across:
                    key -= lc_code[across, t] * power[line_place(src, across, size)]
                along = line_through(b, not vertical, size)
                at = (t * n * 4 + b * 4 + m) * STEP_FIELDS
                steps[at + STEP_ACROSS] = step_word(key, across, tile_cost[t, b] - tile_cost[t, src])
                slid = lc_code[along, t] * (power[line_place(b, along, size)] - power[line_place(src, along, size)])
                steps[at + STEP_ALONG] = step_word(slid, along, 0)
    return steps
