"""Incremental evaluation of a :class:`~solver.heuristics.KernelHeuristic` inside kernels.

A search keeps the board twice (``tiles[cell]`` and ``pos[tile]``) and, per depth, a
row of the heuristic's parts (int64[HS_LEN]): the scaled per-tile sum, the
linear-conflict and pattern sums, each line's and group's value, and the two walking
distance patterns. A move changes one tile, so it changes at most two lines, one group,
one reflected group and one walking-distance pattern: a child's h is the parent's row
plus those few differences (:func:`child_h`), and only a child that is kept gets a row
of its own (:func:`commit_child`). The heuristic is the maximum over its terms of the
sum of the parts each term names (:func:`combine`); a plain heuristic has one term.

Numba copies and reference-counts every array or tuple handed to a function, so the
helpers take single arrays, never the heuristic tuple; kernels unpack it once.
"""

import numpy as np

from .jit import inline_kernel, kernel
from .ranking import placement_digit
from .walking import CODE_BITS, WD_BITS

HS_TILES, HS_LC, HS_PDB, HS_PDB_REFL = 0, 1, 2, 3
HS_LINE0 = 4            # 2n line values (n <= 5)
HS_GROUP0 = 14          # MAX_GROUPS group values
HS_RGROUP0 = 22         # MAX_GROUPS reflected group values
HS_WD_V, HS_WD_H = 30, 31  # walking distance: pattern << WD_BITS | its distance, per axis
HS_LEN = 32
PARTS_LEN = 9           # what child_h hands to commit_child

# Parts a term of a heuristic adds up (bits of KernelHeuristic.terms)
TERM_TILES, TERM_LC, TERM_PDB, TERM_WD = 1, 2, 4, 8
WD_MASK = (1 << WD_BITS) - 1


@inline_kernel
def group_value(pos, g, group_tiles, group_k, table, refl_tile, refl_cell, reflected):
    """PDB value of group ``g`` for the board (``reflected``: of its mirror image)."""
    n_cells = pos.shape[0]
    used = np.int64(0)
    rank = np.int64(0)
    for i in range(group_k[g]):
        t = group_tiles[g, i]
        if reflected:
            c = np.int64(refl_cell[pos[refl_tile[t]]])
        else:
            c = np.int64(pos[t])
        rank = rank * (n_cells - i) + placement_digit(used, c)
        used |= np.int64(1) << c
    return np.int64(table[rank])


@inline_kernel
def line_value(tiles, line, size, lc_code, lc_table):
    """Linear-conflict extra cost of one row (``line < size``) or column."""
    if line < size:
        start, step = line * size, 1
    else:
        start, step = line - size, size
    code = 0
    mult = 1
    for i in range(size):
        code += lc_code[line, tiles[start + i * step]] * mult
        mult *= size + 1
    return np.int64(lc_table[code])


@inline_kernel
def combine(t, lc, p, w, terms, n_terms):
    """Max over the terms of the sum of the parts each names (tiles, LC, PDB, WD)."""
    best = np.int64(0)
    for i in range(n_terms):
        m = terms[i]
        v = np.int64(0)
        if m & TERM_TILES:
            v += t
        if m & TERM_LC:
            v += lc
        if m & TERM_PDB:
            v += p
        if m & TERM_WD:
            v += w
        if v > best:
            best = v
    return best


@inline_kernel
def h_of_row(row, scale, reflect, terms, n_terms):
    """The heuristic value held in one row of parts."""
    t = row[HS_TILES]
    if scale != 1:
        t = (t + scale - 1) // scale
    p = row[HS_PDB]
    if reflect and row[HS_PDB_REFL] > p:
        p = row[HS_PDB_REFL]
    w = (row[HS_WD_V] & WD_MASK) + (row[HS_WD_H] & WD_MASK)
    return combine(t, row[HS_LC], p, w, terms, n_terms)


@inline_kernel
def wd_pattern(tiles, size, goal_line, by_column, codes, ids, dist):
    """Walking-distance pattern of one axis for the board: ``number << WD_BITS | distance``."""
    counts = np.zeros(size * size, dtype=np.int64)
    blank_line = 0
    for c in range(tiles.shape[0]):
        line = c % size if by_column else c // size
        if tiles[c] == 0:
            blank_line = line
        else:
            counts[line * size + goal_line[tiles[c]]] += 1
    code = np.int64(blank_line)
    for i in range(size * size):
        code = (code << CODE_BITS) | counts[i]
    k = ids[np.searchsorted(codes, code)]
    return (np.int64(k) << WD_BITS) | np.int64(dist[k])


@inline_kernel
def h_init(tiles, pos, size, H, rows, d):
    """Fill ``rows[d]`` for the board from scratch and return the heuristic value."""
    tile_cost, scale, use_lc, lc_code, lc_table, n_groups, tile_group, group_tiles, \
        group_k, tables, reflect, refl_tile, refl_cell, terms, n_terms, use_wd, goal_row, \
        goal_col, wd_link_v, wd_link_h, wd_v, wd_h = H
    row = rows[d]
    row[:] = 0
    for t in range(1, tiles.shape[0]):
        row[HS_TILES] += tile_cost[t, pos[t]]
    if use_lc:
        for line in range(2 * size):
            v = line_value(tiles, line, size, lc_code, lc_table)
            row[HS_LINE0 + line] = v
            row[HS_LC] += v
    for g in range(n_groups):
        v = group_value(pos, g, group_tiles, group_k, tables[g], refl_tile, refl_cell, False)
        row[HS_GROUP0 + g] = v
        row[HS_PDB] += v
        if reflect:
            v = group_value(pos, g, group_tiles, group_k, tables[g], refl_tile, refl_cell, True)
            row[HS_RGROUP0 + g] = v
            row[HS_PDB_REFL] += v
    if use_wd:
        row[HS_WD_V] = wd_pattern(tiles, size, goal_row, False, wd_v[0], wd_v[1], wd_v[2])
        row[HS_WD_H] = wd_pattern(tiles, size, goal_col, True, wd_h[0], wd_h[1], wd_h[2])
    return h_of_row(row, scale, reflect, terms, n_terms)


@inline_kernel
def moved_lines(blank, target, size):
    """The two lines whose conflicts a move can change (the moved tile's old and new)."""
    if blank // size == target // size:  # horizontal: the tile changed column
        return size + blank % size, size + target % size
    return blank // size, target // size


@inline_kernel
def wd_step(row, size, t, blank, target, goal_row, goal_col, wd_link_v, wd_link_h, parts):
    """Walking distance after tile ``t`` moved from ``target`` into ``blank``: one link read."""
    v, h = row[HS_WD_V], row[HS_WD_H]
    if blank // size != target // size:  # vertical: the tile changed row
        d = 0 if target > blank else 1
        v = np.int64(wd_link_v[(v >> WD_BITS) * 2 * size + d * size + goal_row[t]])
    else:
        d = 0 if target > blank else 1
        h = np.int64(wd_link_h[(h >> WD_BITS) * 2 * size + d * size + goal_col[t]])
    parts[7], parts[8] = v, h
    return (v & WD_MASK) + (h & WD_MASK)


@inline_kernel
def child_h(tiles, pos, size, t, blank, target, rows, d, tile_cost, scale, use_lc, lc_code,
            lc_table, n_groups, group_tiles, group_k, g, table_g, g2, table_g2, reflect,
            refl_tile, refl_cell, w, terms, n_terms, parts):
    """h of the child where tile ``t`` has moved from ``target`` into ``blank``.

    The board must already show the move. ``g`` and ``g2`` are the groups of ``t`` and of
    its mirror tile (-1 for none) and ``table_g``, ``table_g2`` their tables; ``w`` is the
    child's walking distance (:func:`wd_step`, 0 when unused). (Python passes a call of
    more than 30 arguments as ``*args``, which numba cannot inline.) The new
    parts go to ``parts`` (int64[PARTS_LEN]: tile sum, line a, value a, line b, value b,
    group value, mirror group value, vertical and horizontal walking-distance patterns)
    for :func:`commit_child`.
    """
    row = rows[d]
    s = row[HS_TILES] + tile_cost[t, blank] - tile_cost[t, target]
    parts[0] = s
    ht = s if scale == 1 else (s + scale - 1) // scale
    lc = np.int64(0)
    if use_lc:
        la, lb = moved_lines(blank, target, size)
        va = line_value(tiles, la, size, lc_code, lc_table)
        vb = line_value(tiles, lb, size, lc_code, lc_table)
        parts[1], parts[2], parts[3], parts[4] = la, va, lb, vb
        lc = row[HS_LC] - row[HS_LINE0 + la] - row[HS_LINE0 + lb] + va + vb
    p = np.int64(0)
    if n_groups > 0:
        p = row[HS_PDB]
        if g >= 0:
            v = group_value(pos, g, group_tiles, group_k, table_g, refl_tile, refl_cell, False)
            parts[5] = v
            p += v - row[HS_GROUP0 + g]
        if reflect:
            q = row[HS_PDB_REFL]
            if g2 >= 0:
                v = group_value(pos, g2, group_tiles, group_k, table_g2, refl_tile, refl_cell, True)
                parts[6] = v
                q += v - row[HS_RGROUP0 + g2]
            if q > p:
                p = q
    return combine(ht, lc, p, w, terms, n_terms)


@inline_kernel
def commit_child(rows, d, use_lc, n_groups, reflect, use_wd, g, g2, parts):
    """Write ``rows[d + 1]``: the parent's parts with those :func:`child_h` changed."""
    parent = rows[d]
    row = rows[d + 1]
    row[:] = parent
    row[HS_TILES] = parts[0]
    if use_lc:
        la, va, lb, vb = parts[1], parts[2], parts[3], parts[4]
        row[HS_LC] += va + vb - parent[HS_LINE0 + la] - parent[HS_LINE0 + lb]
        row[HS_LINE0 + la] = va
        row[HS_LINE0 + lb] = vb
    if n_groups > 0:
        if g >= 0:
            row[HS_PDB] += parts[5] - parent[HS_GROUP0 + g]
            row[HS_GROUP0 + g] = parts[5]
        if reflect and g2 >= 0:
            row[HS_PDB_REFL] += parts[6] - parent[HS_RGROUP0 + g2]
            row[HS_RGROUP0 + g2] = parts[6]
    if use_wd:
        row[HS_WD_V] = parts[7]
        row[HS_WD_H] = parts[8]


@inline_kernel
def slide(tiles, pos, blank, target):
    """Move the tile on ``target`` into the blank cell."""
    t = tiles[target]
    tiles[blank] = t
    tiles[target] = 0
    pos[t] = blank
    pos[0] = target


@kernel
def h_many(boards, size, H):
    """Heuristic value of each row of ``boards`` (int8[M, N]); returns int64[M]."""
    m, n = boards.shape
    out = np.empty(m, dtype=np.int64)
    rows = np.zeros((1, HS_LEN), dtype=np.int64)
    tiles = np.empty(n, dtype=np.int64)
    pos = np.empty(n, dtype=np.int64)
    for i in range(m):
        for c in range(n):
            tiles[c] = boards[i, c]
            pos[boards[i, c]] = c
        out[i] = h_init(tiles, pos, size, H, rows, 0)
    return out
