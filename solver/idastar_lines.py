"""IDA* with linear conflicts (``linear-conflict``): each line's conflicts read from its key.

The same search as :func:`solver.idastar_tiles._idastar_tiles` (successor lists, the goal test
at generation within the bound, the root counted once), with h = Manhattan distance plus
each row's and column's conflicts (:func:`solver.htables.line_conflict_table`). Every
line has a key, the code that table is indexed by: per cell of the line, base n + 1, 0 when
the cell's tile belongs to another line, else 1 + its goal place along this one. A move
changes the keys of at most two lines and the conflicts of at most one: a tile leaving or
entering its goal row (a vertical move) or its goal column (a horizontal one) changes that
line's key; in the line it slides along, it keeps its order among the line's tiles (the
blank is not one), so that line's conflicts stay and only its key moves a digit. Both key
changes are read from a table per (tile, blank, move) (:func:`line_steps`), so a child's h
is its parent's plus a Manhattan delta and two reads of the conflict table, and the board
and the keys are touched only for children within the bound (undone when the search backs
up). ``fsm`` prunes move strings (:mod:`solver.fsm`) when ``use_fsm`` is set.
"""

from typing import NamedTuple

import numpy as np

from .deepening import MAX_DEPTH, NO_BOUND, deepening, outputs
from .hstate import line_key
from .jit import inline_kernel, kernel
from .limits import limit_hit, next_check
from .status import RUNNING, SOLVED, TOO_DEEP
from .successors import LIST_END, blank_of, is_goal, list_start, move_of, successor_lists, target_of, write_path

# The fields of a line step (:func:`line_steps`), per (tile, blank, move)
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


class LinesSearch(NamedTuple):
    """What the contour of :func:`_idastar_lines` takes."""

    tiles: np.ndarray     # uint64[N] the board the search stands on, 0 = blank
    blank0: int           # the start's blank cell
    h_root: int           # h of the start
    keys: np.ndarray      # int64[2n] the line keys of the node the search stands on
    lc_table: np.ndarray  # uint8[(n+1)^n] a line's conflicts by its key
    lists: np.ndarray     # successor lists (:func:`solver.successors.successor_lists`)
    steps: np.ndarray     # what a move changes (:func:`line_steps`)
    goal_pos: np.ndarray  # int64[N] goal cell of each tile
    st_pos: np.ndarray    # uint64[MAX_DEPTH + 1] per depth, the position in the parent's list
    st_h: np.ndarray      # int64[MAX_DEPTH + 1] per depth, h
    st_q: np.ndarray      # int64[MAX_DEPTH + 1] per depth, the automaton state
    path: np.ndarray      # int8[MAX_DEPTH] the moves to a goal found
    fsm: np.ndarray       # int32[S * 4] pruning automaton


def line_contour(use_fsm: bool):
    """The contour of :func:`_idastar_lines`, with automaton pruning or without it (a
    constant, so the copy for parent pruning compiles without the automaton)."""

    @inline_kernel
    def contour_lines(ctx, bound, generated, expanded, check_at, limits, deadline):
        """One contour below the start, in the form :func:`solver.deepening.deepening` takes
        (``ctx``: a :class:`LinesSearch`)."""
        tiles = ctx.tiles
        keys = ctx.keys
        lc_table = ctx.lc_table
        lists = ctx.lists
        steps = ctx.steps
        goal_pos = ctx.goal_pos
        st_pos = ctx.st_pos
        st_h = ctx.st_h
        st_q = ctx.st_q
        path = ctx.path
        fsm = ctx.fsm
        n4 = np.uint64(tiles.shape[0] * 4)
        # f > bound  <=>  h > room, with room = bound - d - 1; the next bound is the bound plus
        # the least excess h - room of a cut-off child
        min_excess = np.int64(NO_BOUND)
        room = bound - 1
        d = 0
        b = np.uint64(ctx.blank0)
        h_cur = ctx.h_root
        q = np.int64(0)
        p = list_start(ctx.blank0, -1)
        while True:
            code = lists[p]
            if code == LIST_END:  # all children tried: back up
                if d == 0:
                    break
                d -= 1
                du = np.uint64(d)  # unsigned indices: no wraparound code
                p = st_pos[du]
                last = lists[p - np.uint64(1)]
                pb = blank_of(last)
                t = tiles[pb]
                at = (t * n4 + (last & np.uint64(255))) * np.uint64(STEP_FIELDS)
                across = steps[at]
                along = steps[at + np.uint64(1)]
                keys[step_line(across)] -= step_key(across)
                keys[step_line(along)] -= step_key(along)
                tiles[b] = t
                tiles[pb] = 0
                b = pb
                h_cur = st_h[du]
                if use_fsm:
                    q = st_q[du]
                room += 1
                continue
            p += np.uint64(1)
            # not shared: as helpers (inlined or not) these steps ran 2-6x slower (docs/kernel-contexts.md)
            nq = q
            if use_fsm:
                nq = np.int64(fsm[q * 4 + move_of(code)])
                if nq < 0:
                    continue  # completes a forbidden move string: not generated
            if generated >= check_at:
                hit = limit_hit(generated, limits, deadline)
                if hit != RUNNING:
                    return hit, generated, expanded, NO_BOUND, 0, check_at
                check_at = next_check(generated, limits)
            generated += 1
            tgt = target_of(code)
            t = tiles[tgt]
            at = (t * n4 + (code & np.uint64(255))) * np.uint64(STEP_FIELDS)
            across = steps[at]
            line = step_line(across)
            old = keys[line]
            new = old + step_key(across)
            h = h_cur + step_tiles(across) + np.int64(lc_table[np.uint64(new)]) \
                - np.int64(lc_table[np.uint64(old)])
            excess = h - room
            if excess > 0:
                if excess < min_excess:
                    min_excess = excess
                continue
            keys[line] = new
            along = steps[at + np.uint64(1)]
            keys[step_line(along)] += step_key(along)
            tiles[b] = t
            tiles[tgt] = 0
            du = np.uint64(d)
            st_pos[du] = p
            st_h[du] = h_cur
            if use_fsm:
                st_q[du] = q
            if h == 0 and is_goal(tiles, goal_pos):
                write_path(path, lists, st_pos, d + 1)
                return SOLVED, generated, expanded, NO_BOUND, d + 1, check_at
            if d + 1 >= MAX_DEPTH:
                return TOO_DEEP, generated, expanded, NO_BOUND, 0, check_at
            expanded += 1
            d += 1
            room -= 1
            b = tgt
            h_cur = h
            q = nq
            p = list_start(tgt, move_of(code))
        next_bound = np.int64(NO_BOUND) if min_excess == NO_BOUND else bound + min_excess
        return RUNNING, generated, expanded, next_bound, 0, check_at

    return contour_lines


_deepen_parent = deepening(line_contour(False))
_deepen_fsm = deepening(line_contour(True))


@kernel
def _idastar_lines(tiles8, size, goal_pos, nbr8, tile_cost, lc_code, lc_table, limits, fsm, use_fsm):
    """IDA* guided by Manhattan distance plus linear conflicts, with parent or automaton pruning.

    Parameters
    ----------
    tiles8 : int8[N]          start board, row-major, 0 = blank; solvable, not the goal
    size : int64              board width n
    goal_pos : int64[N]       goal cell of each tile
    nbr8 : int8[N, 4]         neighbour table, -1 off the board
    tile_cost : int32[N, N]   Manhattan distance of tile t on cell c
    lc_code : int32[2n + 2, N]  each tile's digit in each line's key, then its goal place
                              (:func:`solver.htables.line_codes`)
    lc_table : uint8[(n+1)^n] a line's conflicts by its key
    limits : int64[LIMITS_LEN]  node budget and time limit (:mod:`solver.limits`)
    fsm : int32[S * 4]        pruning automaton (:mod:`solver.fsm`), read if ``use_fsm``

    Returns
    -------
    Same as :func:`solver.idastar._idastar`.
    """
    n = tiles8.shape[0]
    tiles = tiles8.astype(np.uint64)
    lists = successor_lists(nbr8)
    steps = line_steps(nbr8, size, tile_cost, lc_code)
    path, bounds, iter_nodes = outputs()
    st_pos = np.zeros(MAX_DEPTH + 1, dtype=np.uint64)
    st_h = np.zeros(MAX_DEPTH + 1, dtype=np.int64)
    st_q = np.zeros(MAX_DEPTH + 1, dtype=np.int64)
    keys = np.zeros(2 * size, dtype=np.int64)
    blank0 = 0
    h_root = np.int64(0)
    for c in range(n):
        h_root += tile_cost[tiles8[c], c]
        if tiles8[c] == 0:
            blank0 = c
    for line in range(2 * size):
        keys[line] = line_key(tiles, line, size, lc_code)
        h_root += lc_table[keys[line]]
    ctx = LinesSearch(tiles=tiles, blank0=blank0, h_root=h_root, keys=keys, lc_table=lc_table, lists=lists,
                      steps=steps, goal_pos=goal_pos, st_pos=st_pos, st_h=st_h, st_q=st_q, path=path, fsm=fsm)
    if use_fsm:
        return _deepen_fsm(ctx, h_root, limits, path, bounds, iter_nodes)
    return _deepen_parent(ctx, h_root, limits, path, bounds, iter_nodes)
