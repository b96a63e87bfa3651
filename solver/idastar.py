"""IDA* (Korf 1985) as one iterative numba kernel.

Depth-first contours with bound = f of the root, then the smallest f that exceeded the
previous bound. The blank tries ``U, L, R, D`` and never undoes its last move; a child
is counted as generated when it is created, and the goal test is made then, accepted
only when its f is within the bound. The search stops at the first goal it accepts.
The root is counted once, not once per iteration: with Manhattan distance this
reproduces Korf's published node counts exactly.
"""

import numpy as np

from .hstate import HS_LEN, HS_TILES, child_h, commit_child, h_init, slide
from .jit import kernel

MAX_DEPTH = 1024
MAX_ITERATIONS = 1024


@kernel
def is_goal(tiles, goal_pos):
    """Whether every tile of ``tiles`` stands on its goal cell."""
    for c in range(tiles.shape[0]):
        if goal_pos[tiles[c]] != c:
            return False
    return True


@kernel
def _unwind(tiles, pos, blanks, d):
    """Undo the moves of depths ``d-1 .. 0`` so the caller's board is restored."""
    for k in range(d - 1, -1, -1):
        slide(tiles, pos, blanks[k + 1], blanks[k])


@kernel
def _idastar(tiles8, size, goal_pos, nbr, H, max_nodes):
    """Search with IDA*.

    Parameters
    ----------
    tiles8 : int8[N]      start board, row-major, 0 = blank; must be solvable
    size : int            board width n
    goal_pos : int64[N]   goal cell of each tile
    nbr : int64[N, 4]     neighbour table (:func:`solver.geometry.neighbours`)
    H : KernelHeuristic   admissible heuristic arrays
    max_nodes : int64     budget on nodes generated

    Returns
    -------
    status : int64        0 solved, 1 budget exceeded, 2 depth limit
    path : int8[MAX_DEPTH]  moves of the solution in ``path[:cost]``
    cost, generated, expanded : int64
    bounds, iter_nodes : int64[MAX_ITERATIONS]  bound and nodes generated per iteration
    n_iter, h0 : int64
    """
    tile_cost, scale, use_lc, lc_code, lc_table, n_groups, tile_group, group_tiles, \
        group_k, tables, reflect, refl_tile, refl_cell = H
    n = tiles8.shape[0]
    tiles = tiles8.astype(np.int64)
    pos = np.empty(n, dtype=np.int64)
    for c in range(n):
        pos[tiles[c]] = c
    # Pure per-tile heuristics take a child's h from the parent's sum without touching
    # the board, so a child cut off by the bound costs two table reads.
    per_tile = not use_lc and n_groups == 0
    rows = np.zeros((MAX_DEPTH + 1, HS_LEN), dtype=np.int64)
    parts = np.zeros(7, dtype=np.int64)
    path = np.zeros(MAX_DEPTH, dtype=np.int8)
    next_move = np.zeros(MAX_DEPTH + 1, dtype=np.int64)
    blanks = np.zeros(MAX_DEPTH + 1, dtype=np.int64)
    bounds = np.zeros(MAX_ITERATIONS, dtype=np.int64)
    iter_nodes = np.zeros(MAX_ITERATIONS, dtype=np.int64)
    h0 = h_init(tiles, pos, size, H, rows, 0)
    generated = np.int64(1)  # the root
    expanded = np.int64(0)
    bound = h0
    n_iter = 0
    if is_goal(tiles, goal_pos):
        bounds[0] = bound
        iter_nodes[0] = 1
        return 0, path, 0, generated, expanded, bounds, iter_nodes, 1, h0
    while n_iter < MAX_ITERATIONS:
        start_generated = generated - 1 if n_iter == 0 else generated
        bounds[n_iter] = bound
        n_iter += 1
        expanded += 1
        next_bound = np.int64(1) << 40
        d = 0
        next_move[0] = 0
        blanks[0] = pos[0]
        while d >= 0:
            m = next_move[d]
            if m == 4:  # all children tried: back up
                d -= 1
                if d >= 0:
                    slide(tiles, pos, blanks[d + 1], blanks[d])
                continue
            next_move[d] = m + 1
            if d > 0 and m == 3 - path[d - 1]:
                continue  # parent pruning
            b = blanks[d]
            tgt = nbr[b, m]
            if tgt < 0:
                continue
            if generated >= max_nodes:
                _unwind(tiles, pos, blanks, d)
                iter_nodes[n_iter - 1] = generated - start_generated
                return 1, path, 0, generated, expanded, bounds, iter_nodes, n_iter, h0
            generated += 1
            t = tiles[tgt]
            g = -1
            g2 = -1
            if per_tile:
                s = rows[d, HS_TILES] + tile_cost[t, b] - tile_cost[t, tgt]
                hc = s if scale == 1 else (s + scale - 1) // scale
            else:
                slide(tiles, pos, b, tgt)
                if n_groups > 0:
                    g = tile_group[t]
                    if reflect:
                        g2 = tile_group[refl_tile[t]]
                hc = child_h(tiles, pos, size, t, b, tgt, rows, d, tile_cost, scale, use_lc, lc_code,
                             lc_table, n_groups, group_tiles, group_k, g, tables[max(g, 0)], g2,
                             tables[max(g2, 0)], reflect, refl_tile, refl_cell, parts)
            f = d + 1 + hc
            if f > bound:
                if f < next_bound:
                    next_bound = f
                if not per_tile:
                    slide(tiles, pos, tgt, b)
                continue
            if per_tile:
                slide(tiles, pos, b, tgt)
                rows[d + 1, HS_TILES] = s
            else:
                commit_child(rows, d, use_lc, n_groups, reflect, g, g2, parts)
            path[d] = m
            blanks[d + 1] = tgt
            if hc == 0 and is_goal(tiles, goal_pos):
                _unwind(tiles, pos, blanks, d + 1)
                iter_nodes[n_iter - 1] = generated - start_generated
                return 0, path, d + 1, generated, expanded, bounds, iter_nodes, n_iter, h0
            if d + 1 >= MAX_DEPTH:
                _unwind(tiles, pos, blanks, d + 1)
                return 2, path, 0, generated, expanded, bounds, iter_nodes, n_iter, h0
            expanded += 1
            d += 1
            next_move[d] = 0
        iter_nodes[n_iter - 1] = generated - start_generated
        bound = next_bound
    return 2, path, 0, generated, expanded, bounds, iter_nodes, n_iter, h0
