"""A* on packed 3×3 and 4×4 boards: the fast path of :mod:`solver.graphsearch`.

Same search, accounting and tie-breaks as the A* of :func:`graphsearch._graph_search`
(parent pruning, the goal test when a board leaves the open list, ties on f to the
larger g, then first in, first out, reopening), so the node counts, paths and statuses
are the same; what differs is the data:

* a board (3×3 or 4×4) is one uint64, 4 bits a cell; a move is a subtraction and an
  addition on it. A per-tile heuristic (Manhattan, misplaced, Euclidean) follows from the
  parent's tile sum, kept in its slot, by one table read; linear conflicts add each
  line's conflicts, kept in the slot above the tile sum, and a move recomputes the two
  lines it changes from the packed board; any other heuristic is set up from the board
  when a node is expanded (:func:`solver.hstate.h_init`) and updated per child
  (:func:`solver.hstate.child_h`), only for the children that are queued;
* an open-addressing hash table (linear probing, at most half full) whose slots hold the
  key and, in the same 16 bytes, the board's best g, last move, blank cell and tile sum:
  a lookup is one cache miss, and a board needs nothing else;
* an open list of buckets by (f, h = f - g), each a FIFO of keys linked through a pool of
  entries that popped entries return to. A board whose g improves is queued again; the
  older entry is skipped when it comes out (its g no longer matches the slot's).

The path is traced back through the table: each board's last move names its parent.
"""

import numpy as np

from .graphsearch import MAX_G
from .hstate import (
    HS_LEN,
    PARTS_LEN,
    TERM_LC,
    TERM_PDB,
    TERM_TILES,
    child_h,
    h_init,
    line_cells,
    line_value,
    moved_lines,
    pdb_child,
    pdb_init,
    pdb_max,
    slide,
    wd_step,
)
from .jit import inline_kernel, kernel
from .limits import LIMIT_STATES, limit_hit, next_check, start_counts
from .memory import table_addresses
from .statetable import FIRST_CAP, grow_rows, mix, unpack
from .status import BUDGET_MEMORY, EXHAUSTED, RUNNING, SOLVED, TOO_DEEP
from .successors import LIST_END, list_start, move_of, successor_lists, target_of, tile_deltas

# How a node's h is found (``hmode``): from the parent's tile sum alone (Manhattan,
# misplaced, Euclidean); from the tile sum and each line's linear conflicts, both kept in
# the slot (Manhattan + linear conflicts); from the pattern databases' group values, set
# up when a node is expanded (pattern databases alone); or from all of the board's
# heuristic parts, set up the same way (any other heuristic). Each has a kernel of its own.
H_PER_TILE, H_LINES, H_PDB, H_PARTS = 0, 1, 2, 3
HMODE_NAMES = ("tiles", "lines", "pdb", "parts")
LINE_BITS = 2  # a line's conflicts / 2: at most 3 on 4x4 (Korf's 2 x tiles to remove)
LINE_SHIFT = 8  # above the tile sum, which is under 256 for Manhattan distance
_G_MASK = np.uint64(0xFFFF)
_NIBBLE = np.uint64(15)


def astar_hmode(H) -> int:
    """How the packed A* finds the h of a node for the heuristic ``H``."""
    if H.n_terms == 1 and H.terms[0] == TERM_TILES:
        return H_PER_TILE
    if (H.n_terms == 1 and H.terms[0] == TERM_TILES | TERM_LC and H.scale == 1
            and int(H.tile_cost.max()) * H.tile_cost.shape[0] < 1 << LINE_SHIFT):
        return H_LINES
    if H.n_lookups > 0 and all(H.terms[i] == TERM_PDB for i in range(H.n_terms)):
        return H_PDB
    return H_PARTS


@kernel
def astar_tables(nbr8, tile_cost, scale, hmode):
    """What the packed A* kernels read for a board width and heuristic.

    Returns
    -------
    lists : uint64[N * 5 * 8]  successor lists (:func:`solver.successors.successor_lists`)
    delta : int64[N * N * 4]   ``delta[t * 4N + b * 4 + m]``: change of the tile sum when
                               tile ``t`` slides into blank ``b`` by move ``m``
    hcols : int64              1 + the largest h a board can have (per-tile), else 1 +
                               the longest optimal solution (the buckets widen if a larger
                               h comes)
    """
    n = nbr8.shape[0]
    worst = np.int64(0)
    for t in range(1, n):
        worst += tile_cost[t].max()
    hmax = (worst + scale - 1) // scale if hmode == H_PER_TILE else (31 if n == 9 else 80)
    return successor_lists(nbr8), tile_deltas(nbr8, tile_cost), hmax + 1


@inline_kernel
def _find(table, mask, key):
    """Slot of ``key`` in ``table`` (uint64[2^m, 2]), or of the empty slot it would take."""
    i = mix(key, np.uint64(0)) & mask
    while True:
        k = table[i, 0]
        if k == key or k == 0:  # no board packs to 0: it would be all blanks
            return i
        i = (i + np.uint64(1)) & mask


@kernel
def _rehash(table, capacity):
    """A table of ``capacity`` slots holding the boards of ``table``."""
    out = np.zeros((capacity, 2), dtype=np.uint64)
    mask = np.uint64(capacity - 1)
    for i in range(table.shape[0]):
        if table[i, 0] != 0:
            j = _find(out, mask, table[i, 0])
            out[j, 0] = table[i, 0]
            out[j, 1] = table[i, 1]
    return out


@kernel
def _grow_buckets(head, tail, hcols, rows, new_hcols):
    """Bucket heads and tails for ``rows`` values of f and ``new_hcols`` of h, the old
    ones (``hcols`` of h a row) kept."""
    new_head = np.full(rows * new_hcols, -1, dtype=np.int32)
    new_tail = np.full(rows * new_hcols, -1, dtype=np.int32)
    for i in range(head.shape[0]):
        j = (i // hcols) * new_hcols + i % hcols
        new_head[j] = head[i]
        new_tail[j] = tail[i]
    return new_head, new_tail


@inline_kernel
def _line_value(key, line, size, lc_code, lc_table):
    """Linear-conflict cost of one row (``line < size``) or column of the packed board."""
    start, step = line_cells(line, size)
    code = 0
    mult = 1
    for i in range(size):
        tile = (key >> np.uint64(4 * (start + i * step))) & _NIBBLE
        code += lc_code[line, tile] * mult
        mult *= size + 1
    return np.int64(lc_table[code])


@inline_kernel
def _line_field(lines, line):
    """One line's conflicts from the packed line values of a slot."""
    return 2 * ((lines >> (LINE_BITS * line)) & ((1 << LINE_BITS) - 1))


@inline_kernel
def _slot_value(g, move, blank, s):
    """A slot's second word: g, move + 1 (0 at the root), blank cell and ``s``: the tile sum
    (with linear conflicts, each line's above it, from bit LINE_SHIFT)."""
    return (np.uint64(g) | (np.uint64(move + 1) << np.uint64(16)) | (np.uint64(blank) << np.uint64(20))
            | (np.uint64(s) << np.uint64(24)))


@inline_kernel
def _slide(key, tile, frm, to):
    """The key after ``tile`` moves from cell ``frm`` to the blank on cell ``to``."""
    return key - (tile << (np.uint64(4) * frm)) + (tile << (np.uint64(4) * to))


@kernel
def _trace(table, mask, key, g, nbr8):
    """The moves from the root to the board ``key`` (found at depth ``g``): int8[g]."""
    path = np.zeros(g, dtype=np.int8)
    k = g
    while True:
        val = table[_find(table, mask, key), 1]
        m = np.int64((val >> np.uint64(16)) & _NIBBLE) - 1
        if m < 0 or k == 0:
            break
        k -= 1
        path[k] = m
        blank = (val >> np.uint64(20)) & _NIBBLE
        parent_blank = np.uint64(nbr8[blank, 3 - m])
        key = _slide(key, (key >> (np.uint64(4) * parent_blank)) & _NIBBLE, parent_blank, blank)
    return path


def _astar_kernel(hmode: int):
    """The packed A* kernel for one way of finding h (``hmode``, a constant of the closure):
    numba drops the branches of the other ways before it compiles, so each kernel holds
    only the heuristic code it runs (the pattern-database one, none of walking distance or
    linear conflicts)."""

    def search(tiles8, size, goal_key, nbr8, H, lists, delta, hcols, limits):
        """A* on a 3×3 or 4×4 board.

        Parameters
        ----------
        tiles8 : int8[N]          start board (solvable), N <= 16
        size : int                board width
        goal_key : uint64         the goal, packed 4 bits a cell
        nbr8 : int8[N, 4]         neighbour table, -1 off the board
        H : KernelHeuristic       the heuristic, of this kernel's ``hmode``: H_PER_TILE (one
                                  per-tile term: h = ceil(tile sum / scale)), H_LINES
                                  (Manhattan + linear conflicts), H_PDB or H_PARTS
        lists, delta, hcols       :func:`astar_tables`
        limits : int64[LIMITS_LEN]  node budget, time limit and the most boards the store may
                                  hold (:mod:`solver.limits`); the store doubles from 1,024
                                  boards, and stops (``BUDGET_MEMORY``) before a doubling would
                                  exceed that, as the general kernel does

        Returns
        -------
        Same as :func:`solver.graphsearch._graph_search`.
        """
        # H's fields unpacked once, as in solver.graphsearch (read at their use, A* ran slower)
        tile_cost = H.tile_cost
        scale = H.scale
        use_lc = H.use_lc
        lc_code = H.lc_code
        lc_table = H.lc_table
        n_groups = H.n_groups
        group_tiles = H.group_tiles
        group_k = H.group_k
        tables = H.tables
        refl_tile = H.refl_tile
        refl_cell = H.refl_cell
        terms = H.terms
        n_terms = H.n_terms
        use_wd = H.use_wd
        goal_row = H.goal_row
        goal_col = H.goal_col
        wd_link_v = H.wd_link_v
        wd_link_h = H.wd_link_h
        n_lookups = H.n_lookups
        lookup_group = H.lookup_group
        lookup_refl = H.lookup_refl
        addr = table_addresses(tables)
        n = tiles8.shape[0]
        n4 = np.uint64(4 * n)
        key = np.uint64(0)
        s0 = np.int64(0)
        blank0 = 0
        tiles = tiles8.astype(np.int64)
        pos = np.empty(n, dtype=np.int64)
        for c in range(n):
            key |= np.uint64(tiles8[c]) << np.uint64(4 * c)
            s0 += tile_cost[tiles8[c], c]
            pos[tiles[c]] = c
            if tiles8[c] == 0:
                blank0 = c
        rows = np.zeros((1, HS_LEN), dtype=np.int64)  # the expanded node's heuristic parts
        parts = np.zeros(PARTS_LEN, dtype=np.int64)
        if hmode == H_PER_TILE:
            h0 = s0 if scale == 1 else (s0 + scale - 1) // scale
        elif hmode == H_LINES:  # the slot's sum holds the tile sum and, above it, each line's conflicts / 2
            h0 = s0
            for line in range(2 * size):
                v = line_value(tiles, line, size, lc_code, lc_table)
                h0 += v
                s0 |= (v // 2) << (LINE_SHIFT + LINE_BITS * line)
        elif hmode == H_PDB:
            pdb_init(rows[0], pos, n_groups, group_tiles, group_k, tables, refl_tile, refl_cell, n_lookups,
                     lookup_group, lookup_refl)
            h0 = pdb_max(rows[0], n_lookups)
        else:
            h0 = h_init(tiles, pos, size, H, rows, 0)
        if h0 >= hcols:
            hcols = h0 + 1
        empty_path = np.zeros(0, dtype=np.int8)
        if key == goal_key:
            return SOLVED, empty_path, 0, 1, 0, 0, h0
        store_cap = FIRST_CAP  # the boards the store may hold before it doubles
        count = 1
        table = np.zeros((2 * store_cap, 2), dtype=np.uint64)
        mask = np.uint64(2 * store_cap - 1)
        i = _find(table, mask, key)
        table[i, 0] = key
        table[i, 1] = _slot_value(0, -1, blank0, s0)
        # the open list: bucket (f, h) at f * hcols + h; entries hold a key and the next entry
        frows = 2 * h0 + 2
        head = np.full(frows * hcols, -1, dtype=np.int32)
        tail = np.full(frows * hcols, -1, dtype=np.int32)
        e_key = np.zeros(FIRST_CAP, dtype=np.uint64)
        e_next = np.zeros(FIRST_CAP, dtype=np.int32)
        e_key[0] = key
        e_next[0] = -1
        head[h0 * hcols + h0] = 0
        tail[h0 * hcols + h0] = 0
        e_used = 1
        e_free = -1
        n_open = 1
        cur_f, cur_h = h0, h0  # no entry lies in a bucket before this one
        generated, expanded, deadline, check_at = start_counts(limits)
        max_depth = 0
        while n_open > 0:
            b = cur_f * hcols + cur_h
            while head[b] < 0:
                cur_h += 1
                if cur_h == hcols:
                    cur_h = 0
                    cur_f += 1
                b = cur_f * hcols + cur_h
            e = head[b]
            head[b] = e_next[e]
            if head[b] < 0:
                tail[b] = -1
            key = e_key[e]
            e_next[e] = e_free
            e_free = e
            n_open -= 1
            g = cur_f - cur_h
            val = table[_find(table, mask, key), 1]
            if np.int64(val & _G_MASK) != g:
                continue  # stale: a shorter path to this board was queued later
            if key == goal_key:
                return SOLVED, _trace(table, mask, key, g, nbr8), g, generated, expanded, max_depth, h0
            if g + 1 > MAX_G:
                return TOO_DEEP, empty_path, 0, generated, expanded, max_depth, h0
            expanded += 1
            blank = (val >> np.uint64(20)) & _NIBBLE
            s = np.int64(val >> np.uint64(24))
            lines = s >> LINE_SHIFT
            if hmode == H_LINES:
                lc = np.int64(0)
                for line in range(2 * size):
                    lc += _line_field(lines, line)
                s &= (1 << LINE_SHIFT) - 1
            elif hmode == H_PDB:
                unpack(key, np.uint64(0), tiles, pos)
                pdb_init(rows[0], pos, n_groups, group_tiles, group_k, tables, refl_tile, refl_cell, n_lookups,
                         lookup_group, lookup_refl)
            elif hmode == H_PARTS:
                unpack(key, np.uint64(0), tiles, pos)
                h_init(tiles, pos, size, H, rows, 0)
            p = list_start(blank, np.int64((val >> np.uint64(16)) & _NIBBLE) - 1)
            while True:
                code = lists[p]
                if code == LIST_END:
                    break
                p += np.uint64(1)
                if generated >= check_at:
                    hit = limit_hit(generated, limits, deadline)
                    if hit != RUNNING:
                        return hit, empty_path, 0, generated, expanded, max_depth, h0
                    check_at = next_check(generated, limits)
                generated += 1
                tgt = target_of(code)
                t = (key >> (np.uint64(4) * tgt)) & _NIBBLE
                sc = s + delta[t * n4 + (code & np.uint64(255))]
                child = _slide(key, t, tgt, blank)
                j = _find(table, mask, child)
                if table[j, 0] != 0:
                    if np.int64(table[j, 1] & _G_MASK) <= g + 1:
                        continue
                else:
                    if count == store_cap:
                        if 2 * count > limits[LIMIT_STATES]:
                            return BUDGET_MEMORY, empty_path, 0, generated, expanded, max_depth, h0
                        store_cap *= 2
                        table = _rehash(table, 2 * store_cap)
                        mask = np.uint64(2 * store_cap - 1)
                        j = _find(table, mask, child)
                    table[j, 0] = child
                    count += 1
                if g + 1 > max_depth:
                    max_depth = g + 1
                if hmode == H_PER_TILE:
                    hc = sc if scale == 1 else (sc + scale - 1) // scale
                    table[j, 1] = _slot_value(g + 1, move_of(code), tgt, sc)
                elif hmode == H_LINES:
                    la, lb = moved_lines(np.int64(blank), np.int64(tgt), size)
                    va = _line_value(child, la, size, lc_code, lc_table)
                    vb = _line_value(child, lb, size, lc_code, lc_table)
                    hc = sc + lc - _line_field(lines, la) - _line_field(lines, lb) + va + vb
                    cl = lines & ~((3 << (LINE_BITS * la)) | (3 << (LINE_BITS * lb)))
                    cl |= ((va // 2) << (LINE_BITS * la)) | ((vb // 2) << (LINE_BITS * lb))
                    table[j, 1] = _slot_value(g + 1, move_of(code), tgt, sc | (cl << LINE_SHIFT))
                else:
                    table[j, 1] = _slot_value(g + 1, move_of(code), tgt, sc)
                    b0, b1, ti = np.int64(blank), np.int64(tgt), np.int64(t)
                    slide(tiles, pos, b0, b1)
                    if hmode == H_PDB:
                        hc = pdb_child(rows[0], pos, ti, n_lookups, lookup_group, group_tiles, group_k, addr,
                                       lookup_refl, refl_tile, refl_cell, parts)
                    else:
                        w = wd_step(rows[0], size, ti, b0, b1, goal_row, goal_col, wd_link_v, wd_link_h,
                                    parts) if use_wd else 0
                        hc = child_h(tiles, pos, size, ti, b0, b1, rows, 0, tile_cost, scale, use_lc, lc_code,
                                     lc_table, n_groups, group_tiles, group_k, n_lookups, lookup_group,
                                     lookup_refl, addr, refl_tile, refl_cell, w, terms, n_terms, parts)
                    slide(tiles, pos, b1, b0)
                fc = g + 1 + hc
                if fc >= frows or hc >= hcols:
                    rows_f, cols_h = max(frows, 2 * fc + 2), max(hcols, hc + 1)
                    head, tail = _grow_buckets(head, tail, hcols, rows_f, cols_h)
                    frows, hcols = rows_f, cols_h
                if e_free >= 0:
                    e = e_free
                    e_free = e_next[e]
                else:
                    if e_used == e_key.shape[0]:
                        e_key = grow_rows(e_key, e_used)
                        e_next = grow_rows(e_next, e_used)
                    e = e_used
                    e_used += 1
                e_key[e] = child
                e_next[e] = -1
                bc = fc * hcols + hc
                if tail[bc] < 0:
                    head[bc] = e
                else:
                    e_next[tail[bc]] = e
                tail[bc] = e
                n_open += 1
                if fc < cur_f or (fc == cur_f and hc < cur_h):
                    cur_f, cur_h = fc, hc
        return EXHAUSTED, empty_path, 0, generated, expanded, max_depth, h0

    search.__name__ = search.__qualname__ = f"_astar_{HMODE_NAMES[hmode]}"  # numba's cache file of each
    return kernel(search)


ASTAR_KERNELS = tuple(_astar_kernel(hmode) for hmode in range(len(HMODE_NAMES)))  # by hmode
# By name too: the batch kernels call each as a global (a kernel numba can cache).
_astar_tiles, _astar_lines, _astar_pdb, _astar_parts = ASTAR_KERNELS
