"""The tables a heuristic's kernel arrays (:class:`solver.heuristics.KernelHeuristic`) are
built from: per-tile costs, linear conflicts' line codes and conflict counts, the
main-diagonal reflection and walking distance's arrays.
"""

from __future__ import annotations

import math
from typing import NamedTuple

import numpy as np

from .geometry import transpose_cell
from .walking import WalkTable, walk_table

EUCLID_SCALE = 1 << 20  # fixed point: h = ceil(sum(floor(d * scale)) / scale)


def tile_cost_table(base: str, size: int, goal: tuple[int, ...]) -> tuple[np.ndarray, int]:
    """Per-tile cost table and scale for ``manhattan``, ``misplaced`` and ``euclidean``."""
    n = size * size
    cost = np.zeros((n, n), dtype=np.int32)
    scale = EUCLID_SCALE if base == "euclidean" else 1
    if base == "pdb":
        return cost, 1
    for cell_goal, tile in enumerate(goal):
        if tile == 0:
            continue
        gr, gc = divmod(cell_goal, size)
        for cell in range(n):
            r, c = divmod(cell, size)
            if base == "misplaced":
                cost[tile, cell] = cell != cell_goal
            elif base == "euclidean":
                cost[tile, cell] = math.floor(math.hypot(r - gr, c - gc) * scale)
            else:
                cost[tile, cell] = abs(r - gr) + abs(c - gc)
    return cost, scale


def line_conflict_table(size: int) -> np.ndarray:
    """``uint8[(n+1)^n]``: for each line content code, 2 x (own tiles - longest in-order run)."""
    base = size + 1
    table = np.zeros(base ** size, dtype=np.uint8)
    for code in range(base ** size):
        digits, c = [], code
        for _ in range(size):
            digits.append(c % base)
            c //= base
        own = [d - 1 for d in digits if d > 0]
        if len(set(own)) != len(own):
            continue  # impossible content: two tiles with one goal slot
        lis = [1] * len(own)  # longest increasing subsequence, quadratic is plenty here
        for i in range(len(own)):
            for j in range(i):
                if own[j] < own[i]:
                    lis[i] = max(lis[i], lis[j] + 1)
        table[code] = 2 * (len(own) - max(lis, default=0))
    return table


def line_codes(size: int, goal: tuple[int, ...]) -> np.ndarray:
    """``int32[2n + 2, N]``: code of each tile in each row line, then each column line;
    then the tile's goal place in row-major order and in column-major order."""
    n = size * size
    codes = np.zeros((2 * size + 2, n), dtype=np.int32)
    for cell_goal, tile in enumerate(goal):
        if tile == 0:
            continue
        gr, gc = divmod(cell_goal, size)
        codes[gr, tile] = 1 + gc
        codes[size + gc, tile] = 1 + gr
        codes[2 * size, tile] = cell_goal
        codes[2 * size + 1, tile] = gc * size + gr
    return codes


def reflection(size: int, goal: tuple[int, ...]) -> tuple[np.ndarray, np.ndarray]:
    """Tile relabelling and cell map of the main-diagonal reflection for ``goal``."""
    n = size * size
    cell = np.array([transpose_cell(c, size) for c in range(n)], dtype=np.int8)
    goal_pos = {t: c for c, t in enumerate(goal)}
    tile = np.array([goal[cell[goal_pos[t]]] for t in range(n)], dtype=np.int8)
    return tile, cell


class WalkArrays(NamedTuple):
    """What :class:`solver.heuristics.KernelHeuristic` holds of walking distance."""

    goal_row: np.ndarray  # int64[N] goal row of each tile
    goal_col: np.ndarray  # int64[N] goal column of each tile
    link_v: np.ndarray    # int32[:] link tables of the two axes (:mod:`solver.walking`)
    link_h: np.ndarray
    v: tuple              # (int64[P], int32[P], uint8[P]): pattern codes, numbers and distances
    h: tuple


def walk_arrays(size: int, goal: tuple[int, ...], use: bool) -> WalkArrays:
    """Goal rows and columns, link tables and pattern tables of walking distance.

    Unused walking distance still gets arrays of the same types (one numba signature).
    """
    n = size * size
    goal_row = np.zeros(n, dtype=np.int64)
    goal_col = np.zeros(n, dtype=np.int64)
    for cell, tile in enumerate(goal):
        goal_row[tile], goal_col[tile] = divmod(cell, size)
    if use:
        v, h = (walk_table(size, line) for line in divmod(goal.index(0), size))
    else:
        v = h = _NO_WALK
    return WalkArrays(goal_row=goal_row, goal_col=goal_col, link_v=v.link, link_h=h.link,
                      v=(v.codes, v.ids, v.dist), h=(h.codes, h.ids, h.dist))


def _read_only(array: np.ndarray) -> np.ndarray:
    array.flags.writeable = False
    return array


_NO_WALK = WalkTable(_read_only(np.zeros(1, np.int64)), _read_only(np.zeros(1, np.int32)),
                     _read_only(np.full(1, -1, np.int32)), _read_only(np.zeros(1, np.uint8)))
