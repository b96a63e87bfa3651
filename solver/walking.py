"""Walking distance (Takahashi 2001): the tables and their per-move link tables.

The *vertical pattern* of a board forgets which tile is where and keeps, for each row r,
how many of its tiles belong to goal row g (a count matrix), plus the blank's row. A
vertical move carries one tile into the blank's row: it changes one pattern into another,
and which one depends only on the direction and the moved tile's goal row. ``WD_v`` is the
fewest such moves from a board's pattern to the goal's, found by one breadth-first search
over all patterns from the goal's; ``WD_h`` is the same on the transposed board (columns
and goal columns), and walking distance is ``WD_v + WD_h``. Each move is one tile move
counted on one axis only, so the sum is admissible; every move changes one pattern by
one step, so it is consistent.

Patterns are numbered in breadth-first order. The kernels start from
:func:`pattern_code` (a sorted code array and a binary search) and then follow the *link
table* ``link[pattern * 2n + dir * n + g]``: the next pattern when a tile of goal row ``g``
enters the blank's row from below (``dir`` 0, the blank moves up) or above (1), coded as
``next << 6 | WD of next`` so a child's value is one read; -1 where no such tile exists.

The tables depend on the width and on the goal blank's row (its column for ``WD_h``), not
on the goal's tile order. Building the 4x4 table takes well under a second, so it is
computed once per process rather than stored (measured in ``docs/design.md``).
"""

from __future__ import annotations

from collections import deque
from functools import lru_cache
from typing import NamedTuple

import numpy as np

WD_BITS = 6  # walking distance per axis fits in 6 bits up to 5x5 (4x4: 35)
CODE_BITS = 3  # one count (0..5) of the pattern's matrix


class WalkTable(NamedTuple):
    """One axis's table for a width and a goal blank line.

    codes : int64[P]       sorted pattern codes (:func:`pattern_code`)
    ids : int32[P]         pattern number of each code in ``codes``
    link : int32[P * 2n]   next pattern and its distance, or -1 (module docstring)
    dist : uint8[P]        walking distance of each pattern on this axis
    """

    codes: np.ndarray
    ids: np.ndarray
    link: np.ndarray
    dist: np.ndarray


def pattern_code(matrix, blank_line: int, size: int) -> int:
    """Integer code of a count matrix (``size`` x ``size``, row-major) and the blank's line."""
    code = blank_line
    for count in matrix:
        code = (code << CODE_BITS) | int(count)
    return code


def _goal_matrix(size: int, goal_blank_line: int) -> tuple[int, ...]:
    return tuple((size - (r == goal_blank_line)) if r == g else 0
                 for r in range(size) for g in range(size))


def _neighbours(matrix: tuple[int, ...], blank: int, size: int):
    """(dir, goal line, next matrix, next blank line) of every pattern move."""
    for d, src in ((0, blank + 1), (1, blank - 1)):  # the tile comes from below / above
        if not 0 <= src < size:
            continue
        for g in range(size):
            if matrix[src * size + g]:
                nxt = list(matrix)
                nxt[src * size + g] -= 1
                nxt[blank * size + g] += 1
                yield d, g, tuple(nxt), src


@lru_cache(maxsize=16)
def walk_table(size: int, goal_blank_line: int) -> WalkTable:
    """The table of one axis, by breadth-first search from the goal pattern (cached)."""
    start = (_goal_matrix(size, goal_blank_line), goal_blank_line)
    number = {start: 0}
    order = [start]
    dist = [0]
    edges = []
    queue = deque([start])
    while queue:
        pattern = queue.popleft()
        here = number[pattern]
        for d, g, matrix, blank in _neighbours(*pattern, size):
            key = (matrix, blank)
            if key not in number:
                number[key] = len(order)
                order.append(key)
                dist.append(dist[here] + 1)
                queue.append(key)
            edges.append((here, d, g, number[key]))
    return _pack(size, order, np.array(dist, dtype=np.uint8), edges)


def _pack(size: int, order, dist: np.ndarray, edges) -> WalkTable:
    """Arrays of a table from its patterns in breadth-first order and its edges."""
    link = np.full(len(order) * 2 * size, -1, dtype=np.int32)
    for here, d, g, nxt in edges:
        link[here * 2 * size + d * size + g] = (nxt << WD_BITS) | int(dist[nxt])
    codes = np.array([pattern_code(m, b, size) for m, b in order], dtype=np.int64)
    sort = np.argsort(codes)
    tables = WalkTable(codes[sort], sort.astype(np.int32), link, dist)
    for array in tables:
        array.flags.writeable = False
    return tables


def board_patterns(tiles, goal, size: int) -> tuple[tuple[tuple[int, ...], int], tuple[tuple[int, ...], int]]:
    """Vertical and horizontal (count matrix, blank line) of a board for ``goal``."""
    goal_cell = {t: c for c, t in enumerate(goal)}
    vertical = [0] * (size * size)
    horizontal = [0] * (size * size)
    blank = 0
    for cell, t in enumerate(tiles):
        r, c = divmod(cell, size)
        if t == 0:
            blank = cell
            continue
        gr, gc = divmod(goal_cell[t], size)
        vertical[r * size + gr] += 1
        horizontal[c * size + gc] += 1
    return (tuple(vertical), blank // size), (tuple(horizontal), blank % size)


def start_patterns(tiles, goal, size: int) -> tuple[int, int]:
    """The board's vertical and horizontal patterns as ``number << WD_BITS | distance``."""
    out = []
    for (matrix, line), goal_line in zip(board_patterns(tiles, goal, size), divmod(goal.index(0), size)):
        table = walk_table(size, goal_line)
        k = int(table.ids[np.searchsorted(table.codes, pattern_code(matrix, line, size))])
        out.append((k << WD_BITS) | int(table.dist[k]))
    return out[0], out[1]


def walking_distance(tiles, goal, size: int) -> int:
    """WD of one board, by table lookups (for tests and reports; kernels update it per move)."""
    v, h = start_patterns(tiles, goal, size)
    mask = (1 << WD_BITS) - 1
    return (v & mask) + (h & mask)
