"""Incremental evaluation of a :class:`~solver.heuristics.KernelHeuristic` inside kernels.

A search keeps the board twice (``tiles[cell]`` and ``pos[tile]``) and the heuristic's
parts in ``hs`` (int64[HS_LEN]): the scaled per-tile sum, the linear-conflict and pattern
sums, and each line's and group's current value. A move changes one tile, so it changes
at most two lines and one group in each orientation; :func:`apply_move` updates just
those and records the old values in a ``save`` row (int64[SAVE_LEN]) for :func:`undo_move`.
"""

import numpy as np

from .jit import kernel

HS_TILES, HS_LC, HS_PDB, HS_PDB_REFL = 0, 1, 2, 3
HS_LINE0 = 4            # 2n line values (n <= 5)
HS_GROUP0 = 14          # MAX_GROUPS group values
HS_RGROUP0 = 22         # MAX_GROUPS reflected group values
HS_LEN = 30
SAVE_LEN = 12


@kernel
def popcount32(x):
    """Number of set bits of a 32-bit value."""
    x = x - ((x >> 1) & 0x55555555)
    x = (x & 0x33333333) + ((x >> 2) & 0x33333333)
    x = (x + (x >> 4)) & 0x0F0F0F0F
    return ((x * 0x01010101) & 0xFFFFFFFF) >> 24


@kernel
def group_value(pos, g, H, reflected):
    """PDB value of group ``g`` for the board (``reflected``: of its mirror image)."""
    k = H.group_k[g]
    table = H.tables[g]
    n_cells = pos.shape[0]
    used = np.int64(0)
    rank = np.int64(0)
    for i in range(k):
        t = H.group_tiles[g, i]
        if reflected:
            c = np.int64(H.refl_cell[pos[H.refl_tile[t]]])
        else:
            c = np.int64(pos[t])
        below = popcount32(used & ((np.int64(1) << c) - 1))
        rank = rank * (n_cells - i) + (c - below)
        used |= np.int64(1) << c
    return np.int64(table[rank])


@kernel
def line_value(tiles, line, size, H):
    """Linear-conflict extra cost of one row (``line < size``) or column."""
    if line < size:
        start, step = line * size, 1
    else:
        start, step = line - size, size
    code = 0
    mult = 1
    for i in range(size):
        code += H.lc_code[line, tiles[start + i * step]] * mult
        mult *= size + 1
    return np.int64(H.lc_table[code])


@kernel
def h_total(hs, H):
    """The heuristic value held in ``hs``."""
    h = hs[HS_TILES]
    if H.scale != 1:
        h = (h + H.scale - 1) // H.scale
    if H.use_lc:
        h += hs[HS_LC]
    if H.n_groups > 0:
        p = hs[HS_PDB]
        if H.reflect and hs[HS_PDB_REFL] > p:
            p = hs[HS_PDB_REFL]
        h += p
    return h


@kernel
def h_init(tiles, pos, size, H, hs):
    """Fill ``hs`` for the board from scratch and return the heuristic value."""
    hs[:] = 0
    for t in range(1, tiles.shape[0]):
        hs[HS_TILES] += H.tile_cost[t, pos[t]]
    if H.use_lc:
        for line in range(2 * size):
            v = line_value(tiles, line, size, H)
            hs[HS_LINE0 + line] = v
            hs[HS_LC] += v
    for g in range(H.n_groups):
        v = group_value(pos, g, H, False)
        hs[HS_GROUP0 + g] = v
        hs[HS_PDB] += v
        if H.reflect:
            v = group_value(pos, g, H, True)
            hs[HS_RGROUP0 + g] = v
            hs[HS_PDB_REFL] += v
    return h_total(hs, H)


@kernel
def _update_line(tiles, line, size, H, hs, save, d, slot):
    """Recompute one line value, saving the old one in ``save[d, slot:slot+2]``."""
    save[d, slot] = HS_LINE0 + line
    save[d, slot + 1] = hs[HS_LINE0 + line]
    v = line_value(tiles, line, size, H)
    hs[HS_LC] += v - hs[HS_LINE0 + line]
    hs[HS_LINE0 + line] = v


@kernel
def _update_group(pos, g, H, hs, save, d, slot, reflected):
    """Recompute one (possibly reflected) group value, saving the old one."""
    at = (HS_RGROUP0 if reflected else HS_GROUP0) + g
    total = HS_PDB_REFL if reflected else HS_PDB
    save[d, slot] = at
    save[d, slot + 1] = hs[at]
    v = group_value(pos, g, H, reflected)
    hs[total] += v - hs[at]
    hs[at] = v


@kernel
def apply_move(tiles, pos, size, H, hs, save, d, blank, target):
    """Slide the tile on ``target`` into the blank cell; update ``hs``; return new h.

    ``save[d]`` (``save`` is int64[depth, SAVE_LEN]) receives what :func:`undo_move`
    needs: the four sums, then (index, old value) pairs for two lines, one group and one
    reflected group (index -1 when unused).
    """
    t = tiles[target]
    tiles[blank] = t
    tiles[target] = 0
    pos[t] = blank
    pos[0] = target
    save[d, 0] = hs[HS_TILES]
    save[d, 1] = hs[HS_LC]
    save[d, 2] = hs[HS_PDB]
    save[d, 3] = hs[HS_PDB_REFL]
    hs[HS_TILES] += H.tile_cost[t, blank] - H.tile_cost[t, target]
    save[d, 4] = -1
    save[d, 6] = -1
    save[d, 8] = -1
    save[d, 10] = -1
    if H.use_lc:
        if blank // size == target // size:  # horizontal: the tile changed column
            _update_line(tiles, size + blank % size, size, H, hs, save, d, 4)
            _update_line(tiles, size + target % size, size, H, hs, save, d, 6)
        else:
            _update_line(tiles, blank // size, size, H, hs, save, d, 4)
            _update_line(tiles, target // size, size, H, hs, save, d, 6)
    if H.n_groups > 0:
        g = H.tile_group[t]
        if g >= 0:
            _update_group(pos, g, H, hs, save, d, 8, False)
        if H.reflect:
            g = H.tile_group[H.refl_tile[t]]
            if g >= 0:
                _update_group(pos, g, H, hs, save, d, 10, True)
    return h_total(hs, H)


@kernel
def undo_move(tiles, pos, hs, save, d, blank, target):
    """Undo :func:`apply_move` (same ``blank`` and ``target``)."""
    t = tiles[blank]
    tiles[target] = t
    tiles[blank] = 0
    pos[t] = target
    pos[0] = blank
    hs[HS_TILES] = save[d, 0]
    hs[HS_LC] = save[d, 1]
    hs[HS_PDB] = save[d, 2]
    hs[HS_PDB_REFL] = save[d, 3]
    for slot in range(4, SAVE_LEN, 2):
        if save[d, slot] >= 0:
            hs[save[d, slot]] = save[d, slot + 1]
