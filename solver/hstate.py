"""Incremental evaluation of a :class:`~solver.heuristics.KernelHeuristic` inside kernels.

A search keeps the board twice (``tiles[cell]`` and ``pos[tile]``) and, per depth, a
row of the heuristic's parts (int64[HS_LEN]): the scaled per-tile sum, the
linear-conflict and pattern sums, each line's and group's value, the two walking
distance patterns and, for ``walking-distance+id``, the two inversion counts. A move
changes one tile, so it changes at most two lines, one group,
one group of each further pattern-database lookup (a reflected one, or another database
of a ``max``) and one walking-distance pattern: a child's h is the parent's row
plus those few differences (:func:`child_h`), and only a child that is kept gets a row
of its own (:func:`commit_child`). The heuristic is the maximum over its terms of the
sum of the parts each term names (:func:`combine`); a plain heuristic has one term.

Numba copies and reference-counts every array or tuple handed to a function, so the
helpers take single arrays, never the heuristic tuple; kernels read the fields they use
by name (``H.tile_cost``) once, before their loops.
"""

import numpy as np

from .jit import inline_kernel, kernel
from .memory import byte_at
from .ranking import placement_digit
from .walking import CODE_BITS, WD_BITS

HS_TILES, HS_LC, HS_PDB, HS_PDB_REFL = 0, 1, 2, 3
HS_LINE0 = 4            # 2n line values (n <= 5)
HS_GROUP0 = 14          # MAX_GROUPS group values
HS_RGROUP0 = 22         # MAX_GROUPS reflected group values
HS_WD_V, HS_WD_H = 30, 31  # walking distance: pattern << WD_BITS | its distance, per axis
HS_ID_V, HS_ID_H = 32, 33  # inversions << ID_BITS | inversion distance, per axis
HS_PDB_MORE = 34        # the sums of the third and later PDB lookups (max of several PDBs)
MAX_LOOKUPS = 4         # PDB lookups a heuristic takes the max of (a +reflect counts two)
HS_LEN = HS_PDB_MORE + MAX_LOOKUPS - 2
PARTS_GROUP0 = 11       # the group each lookup's move changed (-1 for none), then
PARTS_VALUE0 = PARTS_GROUP0 + MAX_LOOKUPS  # that group's new value, per lookup
PARTS_LEN = PARTS_VALUE0 + MAX_LOOKUPS     # what child_h hands to commit_child

# Parts a term of a heuristic adds up (bits of KernelHeuristic.terms); TERM_ID marks the
# walking distance of a term as ``walking-distance+id``
TERM_TILES, TERM_LC, TERM_PDB, TERM_WD, TERM_ID = 1, 2, 4, 8, 16
WD_MASK = (1 << WD_BITS) - 1
ID_BITS = 8  # inversion distance per axis (4x4: at most 35)
ID_MASK = (1 << ID_BITS) - 1


@inline_kernel
def group_rank(pos, g, group_tiles, group_k, refl_tile, refl_cell, reflected):
    """Index of group ``g``'s placement on the board (``reflected``: on its mirror image)."""
    n_cells = pos.shape[0]
    used = np.int64(0)
    rank = np.int64(0)
    for i in range(group_k[g]):
        # unsigned indices: numba adds no negative-index wraparound to these reads
        t = np.uint64(group_tiles[g, i])
        if reflected:
            c = np.int64(refl_cell[np.uint64(pos[np.uint64(refl_tile[t])])])
        else:
            c = np.int64(pos[t])
        rank = rank * (n_cells - i) + placement_digit(used, c)
        used |= np.int64(1) << c
    return rank


@inline_kernel
def group_value(pos, g, group_tiles, group_k, table, refl_tile, refl_cell, reflected):
    """PDB value of group ``g`` for the board (``reflected``: of its mirror image)."""
    return np.int64(table[group_rank(pos, g, group_tiles, group_k, refl_tile, refl_cell, reflected)])


@inline_kernel
def line_cells(line, size):
    """The first cell and the stride of a row (``line < size``) or a column."""
    if line < size:
        return line * size, 1
    return line - size, size


@inline_kernel
def line_key(tiles, line, size, lc_code):
    """The key of one row (``line < size``) or column: per cell along it, base n + 1, the
    digit ``lc_code`` gives its tile in this line."""
    start, step = line_cells(line, size)
    code = 0
    mult = 1
    for i in range(size):
        code += lc_code[line, tiles[start + i * step]] * mult
        mult *= size + 1
    return code


@inline_kernel
def line_value(tiles, line, size, lc_code, lc_table):
    """Linear-conflict extra cost of one row (``line < size``) or column."""
    return np.int64(lc_table[line_key(tiles, line, size, lc_code)])


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
def has_term(terms, n_terms, bit):
    """Whether a term of the heuristic has part ``bit``."""
    for i in range(n_terms):
        if terms[i] & bit:
            return True
    return False


@inline_kernel
def walk_value(v, h, id_v, id_h, use_id):
    """Walking distance of two axis patterns; with ``use_id`` each axis takes the larger
    of its walking and inversion distance (``walking-distance+id``)."""
    wv = v & WD_MASK
    wh = h & WD_MASK
    if use_id:
        wv = max(wv, id_v & ID_MASK)
        wh = max(wh, id_h & ID_MASK)
    return wv + wh


@inline_kernel
def sum_slot(lookup):
    """Where a row holds the PDB sum of ``lookup`` (0: the regular one, 1: the next)."""
    return HS_PDB + lookup if lookup < 2 else HS_PDB_MORE + lookup - 2


@inline_kernel
def values_slot(reflected):
    """Where a row's group values of a regular (or reflected) lookup start; the groups of
    several databases are numbered apart, so each group has one slot of each kind."""
    return HS_RGROUP0 if reflected else HS_GROUP0


@inline_kernel
def pdb_max(row, n_lookups):
    """The largest of the PDB sums of a row's lookups (0 without any)."""
    p = np.int64(0)
    for i in range(n_lookups):
        p = max(p, row[sum_slot(i)])
    return p


@inline_kernel
def h_of_row(row, scale, n_lookups, terms, n_terms):
    """The heuristic value held in one row of parts."""
    t = row[HS_TILES]
    if scale != 1:
        t = (t + scale - 1) // scale
    p = pdb_max(row, n_lookups)
    w = walk_value(row[HS_WD_V], row[HS_WD_H], row[HS_ID_V], row[HS_ID_H],
                   has_term(terms, n_terms, TERM_ID))
    return combine(t, row[HS_LC], p, w, terms, n_terms)


@inline_kernel
def with_distance(inv, size):
    """``inv << ID_BITS`` | Takahashi's inversion distance of ``inv`` inversions on one axis.

    A move along the axis carries a tile past ``size - 1`` others in the axis' reading
    order, changing the count by at most ``size - 1`` and by an amount of that parity; on
    4x4 (steps of 1 or 3) the fewest moves are ``inv // 3 + inv % 3``, and on 3x3 (steps
    of 0 or 2, the count is even) ``inv // 2``: ``inv // (n - 1) + inv % (n - 1)`` for both.
    """
    return (inv << ID_BITS) | (inv // (size - 1) + inv % (size - 1))


@inline_kernel
def reading_cell(k, size, by_column):
    """The cell at place ``k`` of the row-major (or, ``by_column``, column-major) order."""
    if by_column:
        return (k % size) * size + k // size
    return k


@inline_kernel
def inversions(tiles, size, lc_code, by_column):
    """Pairs of tiles out of their goal order, read row by row (or column by column)."""
    axis = 2 * size + (1 if by_column else 0)
    n = tiles.shape[0]
    count = np.int64(0)
    for i in range(n):
        a = tiles[reading_cell(i, size, by_column)]
        if a == 0:
            continue
        for j in range(i + 1, n):
            b = tiles[reading_cell(j, size, by_column)]
            if b != 0 and lc_code[axis, a] > lc_code[axis, b]:
                count += 1
    return count


@inline_kernel
def inversion_step(tiles, t, blank, target, size, lc_code):
    """Change of the inversions of the moved axis when tile ``t`` moves from ``target`` into
    ``blank``: it passes the ``size - 1`` tiles between the two cells in the reading order of
    that axis (column-major for a horizontal move). The board may show the move or not."""
    blank, target = np.int64(blank), np.int64(target)
    by_column = blank // size == target // size
    axis = 2 * size + (1 if by_column else 0)
    a = (target % size) * size + target // size if by_column else target
    b = (blank % size) * size + blank // size if by_column else blank
    earlier = b < a
    gt = lc_code[axis, t]
    delta = np.int64(0)
    for k in range(min(a, b) + 1, max(a, b)):
        if (gt > lc_code[axis, tiles[reading_cell(k, size, by_column)]]) == earlier:
            delta += 1
        else:
            delta -= 1
    return delta


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
def pdb_init(row, pos, n_groups, group_tiles, group_k, tables, refl_tile, refl_cell, n_lookups, lookup_group,
             lookup_refl):
    """Fill the pattern-database parts of ``row`` (each lookup's group values and sum) for
    the board (``pos[tile]``)."""
    for i in range(n_lookups):
        mine = np.int64(0)  # the groups of this lookup's database, as bits
        for t in range(pos.shape[0]):
            if lookup_group[i, t] >= 0:
                mine |= np.int64(1) << lookup_group[i, t]
        first = values_slot(lookup_refl[i])
        row[sum_slot(i)] = 0
        for g in range(n_groups):
            if mine & (np.int64(1) << g):
                v = group_value(pos, g, group_tiles, group_k, tables[g], refl_tile, refl_cell, lookup_refl[i])
                row[first + g] = v
                row[sum_slot(i)] += v


@inline_kernel
def h_init(tiles, pos, size, H, rows, d):
    """Fill ``rows[d]`` for the board from scratch and return the heuristic value.

    ``H``'s fields are read into locals first: A*'s general kernel calls this per node, and
    read by field inside the branches it ran at 0.75x the nodes per second (1.83 against
    2.44 M nodes/s, 300 8-puzzles, ``benchmarks/solver_speed.py``'s general-kernel line)."""
    tile_cost, scale, use_lc, lc_code, lc_table = H.tile_cost, H.scale, H.use_lc, H.lc_code, H.lc_table
    n_groups, group_tiles, group_k, tables = H.n_groups, H.group_tiles, H.group_k, H.tables
    refl_tile, refl_cell, terms, n_terms = H.refl_tile, H.refl_cell, H.terms, H.n_terms
    use_wd, goal_row, goal_col, wd_v, wd_h = H.use_wd, H.goal_row, H.goal_col, H.wd_v, H.wd_h
    n_lookups, lookup_group, lookup_refl = H.n_lookups, H.lookup_group, H.lookup_refl
    row = rows[d]
    row[:] = 0
    for t in range(1, tiles.shape[0]):
        row[HS_TILES] += tile_cost[t, pos[t]]
    if use_lc:
        for line in range(2 * size):
            v = line_value(tiles, line, size, lc_code, lc_table)
            row[HS_LINE0 + line] = v
            row[HS_LC] += v
    pdb_init(row, pos, n_groups, group_tiles, group_k, tables, refl_tile, refl_cell, n_lookups, lookup_group,
             lookup_refl)
    if use_wd:
        row[HS_WD_V] = wd_pattern(tiles, size, goal_row, False, wd_v[0], wd_v[1], wd_v[2])
        row[HS_WD_H] = wd_pattern(tiles, size, goal_col, True, wd_h[0], wd_h[1], wd_h[2])
        if has_term(terms, n_terms, TERM_ID):
            row[HS_ID_V] = with_distance(inversions(tiles, size, lc_code, False), size)
            row[HS_ID_H] = with_distance(inversions(tiles, size, lc_code, True), size)
    return h_of_row(row, scale, n_lookups, terms, n_terms)


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
def id_step(tiles, size, t, blank, target, row, lc_code, parts):
    """``walking-distance+id`` of the child, after :func:`wd_step` wrote its patterns to ``parts``."""
    id_v, id_h = row[HS_ID_V], row[HS_ID_H]
    delta = inversion_step(tiles, t, blank, target, size, lc_code)
    if blank // size != target // size:
        id_v = with_distance((id_v >> ID_BITS) + delta, size)
    else:
        id_h = with_distance((id_h >> ID_BITS) + delta, size)
    parts[9], parts[10] = id_v, id_h
    return walk_value(parts[7], parts[8], id_v, id_h, True)


@inline_kernel
def child_parts(tiles, size, t, blank, target, row, tile_cost, scale, use_lc, lc_code, lc_table, w, terms,
                n_terms, parts):
    """The parts of a child's h other than its pattern databases: ``(tiles, lc, wd)``.

    ``row`` is the parent's; the board must already show the move (tile ``t`` from
    ``target`` into ``blank``). ``w`` is the child's walking distance (:func:`wd_step`, 0
    when unused), to which a term marked ``TERM_ID`` adds the inversion distance. The new
    parts go to ``parts`` as :func:`child_h` describes.
    """
    if has_term(terms, n_terms, TERM_ID):  # only with walking distance in use
        w = id_step(tiles, size, t, blank, target, row, lc_code, parts)
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
    return ht, lc, w


@inline_kernel
def pdb_sum(row, total, first, g, address, rank, parts, slot):
    """The PDB sum ``row[total]`` with group ``g``'s value ``row[first + g]`` replaced by
    entry ``rank`` of the table at ``address`` (kept in ``parts[slot]``; see
    :func:`byte_at`); unchanged when ``g < 0``."""
    s = row[total]
    if g >= 0:
        v = byte_at(address, rank)
        parts[slot] = v
        s += v - row[first + g]
    return s


@inline_kernel
def lookup_rank(pos, g, group_tiles, group_k, refl_tile, refl_cell, reflected):
    """:func:`group_rank` for a ``reflected`` known only at run time (each branch keeps the
    constant one inlined)."""
    if reflected:
        return group_rank(pos, g, group_tiles, group_k, refl_tile, refl_cell, True)
    return group_rank(pos, g, group_tiles, group_k, refl_tile, refl_cell, False)


@inline_kernel
def lookup_sum(row, pos, t, i, rank, lookup_group, group_tiles, group_k, addr, lookup_refl, refl_tile, refl_cell,
               parts):
    """The PDB sum of lookup ``i`` for the child where tile ``t`` moved (the board shows the
    move): one table read, at ``rank`` if it is not negative (a rank planned ahead), else
    computed. The group and its new value go to ``parts`` for :func:`commit_child`."""
    g = lookup_group[i, t]
    parts[PARTS_GROUP0 + i] = g
    if g >= 0 and rank < 0:
        rank = lookup_rank(pos, g, group_tiles, group_k, refl_tile, refl_cell, lookup_refl[i])
    return pdb_sum(row, sum_slot(i), values_slot(lookup_refl[i]), g, addr[max(g, 0)], rank, parts,
                   PARTS_VALUE0 + i)


@inline_kernel
def pdb_child(row, pos, t, n_lookups, lookup_group, group_tiles, group_k, addr, lookup_refl, refl_tile, refl_cell,
              parts):
    """The largest PDB sum over the lookups for the child where tile ``t`` moved (the board
    shows the move; ``row`` is the parent's), as :func:`lookup_sum` finds each."""
    p = np.int64(0)
    for i in range(n_lookups):
        p = max(p, lookup_sum(row, pos, t, i, -1, lookup_group, group_tiles, group_k, addr, lookup_refl,
                              refl_tile, refl_cell, parts))
    return p


@inline_kernel
def child_h(tiles, pos, size, t, blank, target, rows, d, tile_cost, scale, use_lc, lc_code,
            lc_table, n_groups, group_tiles, group_k, n_lookups, lookup_group, lookup_refl, addr,
            refl_tile, refl_cell, w, terms, n_terms, parts):
    """h of the child where tile ``t`` has moved from ``target`` into ``blank``.

    The board must already show the move. Each of the ``n_lookups`` PDB lookups reads the
    table of the group the move changed for it (``lookup_group``; ``addr``: the tables'
    addresses, :func:`table_addresses`); ``w`` is the
    child's walking distance (:func:`wd_step`, 0 when unused), to which a term marked
    ``TERM_ID`` adds the inversion distance. (Python passes a call of
    more than 30 arguments as ``*args``, which numba cannot inline.) The new
    parts go to ``parts`` (int64[PARTS_LEN]: tile sum, line a, value a, line b, value b,
    two unused, vertical and horizontal walking-distance patterns,
    vertical and horizontal inversions, then each lookup's group and its value) for
    :func:`commit_child`.
    """
    row = rows[d]
    ht, lc, w = child_parts(tiles, size, t, blank, target, row, tile_cost, scale, use_lc, lc_code, lc_table, w,
                            terms, n_terms, parts)
    p = np.int64(0)
    if n_groups > 0:
        p = pdb_child(row, pos, t, n_lookups, lookup_group, group_tiles, group_k, addr, lookup_refl, refl_tile,
                      refl_cell, parts)
    return combine(ht, lc, p, w, terms, n_terms)


@inline_kernel
def commit_child(rows, d, use_lc, n_groups, n_lookups, lookup_refl, use_wd, parts):
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
        for i in range(n_lookups):
            g = parts[PARTS_GROUP0 + i]
            if g >= 0:
                at = values_slot(lookup_refl[i]) + g
                row[sum_slot(i)] += parts[PARTS_VALUE0 + i] - parent[at]
                row[at] = parts[PARTS_VALUE0 + i]
    if use_wd:
        row[HS_WD_V] = parts[7]
        row[HS_WD_H] = parts[8]
        row[HS_ID_V] = parts[9]
        row[HS_ID_H] = parts[10]


@inline_kernel
def placed(tiles8):
    """The board ``tiles8`` as the kernels keep it: ``tiles`` (int64[N]) and ``pos``
    (int64[N], the cell of each tile)."""
    tiles = tiles8.astype(np.int64)
    pos = np.empty(tiles.shape[0], dtype=np.int64)
    for c in range(tiles.shape[0]):
        pos[tiles[c]] = c
    return tiles, pos


@inline_kernel
def slide(tiles, pos, blank, target):
    """Move the tile on ``target`` into the blank cell."""
    t = np.uint64(tiles[np.uint64(target)])  # unsigned indices: no wraparound code
    tiles[np.uint64(blank)] = t
    tiles[np.uint64(target)] = 0
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
