"""Building a blank-ignoring pattern database: a breadth-first search over placements alone.

In this abstraction a pattern tile moves into any adjacent cell no other pattern tile
holds, whether the blank could get there or not, and each such move costs 1. It is weaker
than tilesweep's own tables (:mod:`pdb_store.bfs`), where a tile moves only into the
blank's region, but it is the kind many solvers build, so their figures can be set beside
tilesweep's. Moves are reversible, so the search from the goal placement gives every
placement's distance to it. A layer scans the whole table for the placements at the
current depth: no frontier is kept beside the table, one byte per placement in all.
"""

from __future__ import annotations

from typing import Callable

import numpy as np
from numba import prange

from tilesweep.solver.geometry import neighbours64
from tilesweep.solver.jit import parallel_kernel
from tilesweep.solver.ranking import digit_weights, moved_rank, placement_count, rank_placement, unrank_placement

from .bfs import UNREACHED
from .build import BuildProgress, check_goal_group, fill_by_layers, huge_array

_BLOCK = 1 << 14  # ranks per work item of a layer


@parallel_kernel
def _ignoring_layer(table, depth, k, n_cells, size, weights, moves):
    """Label with ``depth + 1`` every unreached placement one tile move away from a
    placement holding ``depth``; return how many were labelled (two threads may both
    label one placement, so a count can run over: only whether it is 0 is exact).

    ``moves`` (int64[N, 4]) is :func:`solver.geometry.neighbours64`: the cell next to each
    cell in each direction, -1 off the board.
    """
    count = table.shape[0]
    found = 0
    for block in prange((count + _BLOCK - 1) // _BLOCK):
        where = np.empty(k, dtype=np.int64)
        tile_at = np.full(n_cells, -1, dtype=np.int64)
        labelled = 0
        for rank in range(block * _BLOCK, min(count, (block + 1) * _BLOCK)):
            if table[rank] != depth:
                continue
            unrank_placement(rank, k, n_cells, where)
            for i in range(k):
                tile_at[where[i]] = i
            for i in range(k):
                src = where[i]
                for m in range(4):
                    dst = moves[src, m]
                    if dst < 0 or tile_at[dst] >= 0:
                        continue  # off the board, or another pattern tile is there
                    target = moved_rank(rank, i, src, dst, size, tile_at, weights)
                    if table[target] == UNREACHED:
                        table[target] = depth + 1
                        labelled += 1
            for i in range(k):
                tile_at[where[i]] = -1
        found += labelled
    return found


def build_ignoring_table(size: int, goal: tuple[int, ...], group: tuple[int, ...],
                         on_layer: Callable[[BuildProgress], None] | None = None) -> np.ndarray:
    """Build the blank-ignoring pattern database of ``group`` for ``goal``.

    Entry ``rank_placement(cells, size*size)`` is the fewest moves of the group's tiles
    that bring them to their goal cells when a tile may move into any adjacent cell no
    other group tile holds (the blank and the other tiles are ignored). Same index, dtype
    and unreached mark (255) as :func:`pdb_store.build.build_table`; ``on_layer`` likewise
    receives a :class:`BuildProgress` after each layer (``states`` are placements here).

    Raises
    ------
    InvalidBoardError
        Bad size, goal or group.
    """
    goal, group = check_goal_group(size, goal, group)
    n, k = size * size, len(group)
    count = placement_count(n, k)
    table = huge_array(count, np.uint8, UNREACHED)
    table[rank_placement(np.array([goal.index(t) for t in group], dtype=np.int64), n)] = 0
    weights, moves = digit_weights(n, k), neighbours64(size)
    fill_by_layers(group, count, lambda depth: _ignoring_layer(table, np.uint8(depth), k, n, size, weights, moves),
                   on_layer)
    return table
