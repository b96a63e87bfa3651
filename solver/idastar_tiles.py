"""IDA* (Korf 1985) for the per-tile heuristics (Manhattan, misplaced, Euclidean): the benchmark's hot loop.

The search of :func:`solver.idastar._idastar` (successor lists, the goal test at
generation within the bound, the root counted once), specialised to h = ceil(sum of
``tile_cost[t, cell]`` / ``scale``): a child's h is one table read from its parent's
(:func:`solver.successors.tile_deltas`) and the board is touched only for children within
the bound. :func:`_idastar_tiles_in` is the per-board part a batch calls; the kernel keeps
its own copy of the iteration loop of :mod:`solver.deepening` (measured faster around this
contour); :mod:`solver.subtrees` runs :func:`contour_tiles` below a split search's roots,
and :mod:`solver.idastar_lines` runs it compiled with ``lines`` (linear conflicts).
``fsm`` prunes move strings (:mod:`solver.fsm`) when ``use_fsm`` is set.
"""

import numpy as np

from .deepening import MAX_DEPTH, MAX_ITERATIONS, NO_BOUND, outputs
from .jit import inline_kernel, kernel
from .limits import limits_checked, start_counts
from .linesteps import STEP_FIELDS, step_key, step_line, step_tiles
from .status import RUNNING, SOLVED, TOO_DEEP, TOO_MANY_ITERATIONS
from .successors import (
    LIST_END,
    blank_of,
    is_goal,
    list_start,
    move_of,
    successor_lists,
    target_of,
    tile_deltas,
    write_path,
)

NO_EXCESS = 1 << 60  # the least excess of :func:`contour_tiles` when no child was cut off
# keys and steps, and lc_table, of :func:`contour_tiles` without ``lines``: never read
NO_LINES, NO_TABLE = np.zeros(1, dtype=np.int64), np.zeros(1, dtype=np.uint8)


@inline_kernel
def contour_tiles(tiles, blank, s0, g0, last, q0, bound, scale, lists, delta, goal_pos, st_pos, st_sum,
                  st_q, path, generated, expanded, check_at, limits, deadline, fsm, use_fsm,
                  keys, lc_table, steps, lines):
    """One depth-first contour of :func:`_idastar_tiles` below a node at depth ``g0``.

    ``tiles`` (uint64[N]) shows the node, ``blank`` its blank cell, ``s0`` its scaled sum,
    ``last`` the move that made it (-1 at the start) and ``q0`` its automaton state (read
    with ``fsm`` if ``use_fsm``). Children of the node and below
    are generated and counted as in the serial search; the node itself is not.

    With ``lines`` (a constant: the per-tile search compiles without these steps) the sum
    is Manhattan distance plus linear conflicts, ``scale`` is 1 and ``delta`` is not read:
    ``keys`` holds the node's line keys, read and kept up to date through ``steps``
    (:func:`solver.linesteps.line_steps`), a line's conflicts read from ``lc_table``.

    Returns
    -------
    status : int64    RUNNING when the contour was searched to its end, else SOLVED or a limit
    generated, expanded : int64   the counters, carried on
    min_excess : int64  smallest scaled excess of a cut-off child (NO_EXCESS: none)
    cost : int64      moves below the node to the goal (``path[:cost]``) when SOLVED
    check_at : int64  the next limit check
    """
    n4 = np.uint64(tiles.shape[0] * 4)
    # f > bound  <=>  s > room, with room = (bound - d - 1) * scale: no division per
    # child; the next bound comes from the smallest excess s - room of a cut-off child.
    min_excess = np.int64(NO_EXCESS)
    room = (bound - g0 - 1) * scale
    d = 0
    b = np.uint64(blank)
    s_cur = s0
    q = q0
    p = list_start(blank, last)
    while True:
        code = lists[p]
        if code == LIST_END:  # all children tried: back up
            if d == 0:
                break
            d -= 1
            du = np.uint64(d)  # unsigned indices: no wraparound code
            p = st_pos[du]
            last_code = lists[p - np.uint64(1)]
            pb = blank_of(last_code)
            if lines:  # the move undone: its two key changes too
                at = (tiles[pb] * n4 + (last_code & np.uint64(255))) * np.uint64(STEP_FIELDS)
                keys[step_line(steps[at])] -= step_key(steps[at])
                keys[step_line(steps[at + np.uint64(1)])] -= step_key(steps[at + np.uint64(1)])
            tiles[b] = tiles[pb]
            tiles[pb] = 0
            b = pb
            s_cur = st_sum[du]
            if use_fsm:
                q = st_q[du]
            room += scale
            continue
        p += np.uint64(1)
        # not shared: as helpers (inlined or not) these steps ran 2-6x slower (docs/kernel-contexts.md)
        nq = q
        if use_fsm:
            nq = np.int64(fsm[q * 4 + move_of(code)])
            if nq < 0:
                continue  # completes a forbidden move string: not generated
        if generated >= check_at:
            hit, check_at = limits_checked(generated, limits, deadline)
            if hit != RUNNING:
                return hit, generated, expanded, min_excess, 0, check_at
        generated += 1
        tgt = target_of(code)
        t = tiles[tgt]
        if lines:  # the Manhattan change, and the conflicts of the line across the move
            at = (t * n4 + (code & np.uint64(255))) * np.uint64(STEP_FIELDS)
            across = steps[at]
            line = step_line(across)
            old = keys[line]
            new = old + step_key(across)
            s = s_cur + step_tiles(across) + np.int64(lc_table[np.uint64(new)]) - np.int64(lc_table[np.uint64(old)])
        else:
            s = s_cur + delta[t * n4 + (code & np.uint64(255))]
        excess = s - room
        if excess > 0:
            if excess < min_excess:
                min_excess = excess
            continue
        if lines:
            keys[line] = new
            along = steps[at + np.uint64(1)]
            keys[step_line(along)] += step_key(along)
        tiles[b] = t
        tiles[tgt] = 0
        du = np.uint64(d)
        st_pos[du] = p
        st_sum[du] = s_cur
        if use_fsm:
            st_q[du] = q
        if s == 0 and is_goal(tiles, goal_pos):
            write_path(path, lists, st_pos, d + 1)
            return SOLVED, generated, expanded, min_excess, d + 1, check_at
        if g0 + d + 1 >= MAX_DEPTH:
            return TOO_DEEP, generated, expanded, min_excess, 0, check_at
        expanded += 1
        d += 1
        room -= scale
        b = tgt
        s_cur = s
        q = nq
        p = list_start(tgt, move_of(code))
    return RUNNING, generated, expanded, min_excess, 0, check_at


@inline_kernel
def tiles_next_bound(bound, min_excess, scale):
    """The bound after ``bound`` given the least scaled excess of a cut-off child (for a
    split search's subtrees: NO_BOUND when none was)."""
    if min_excess == NO_EXCESS:
        return np.int64(NO_BOUND)
    return bound + (min_excess + scale - 1) // scale


@kernel
def _idastar_tiles(tiles8, goal_pos, nbr8, tile_cost, scale, limits, fsm, use_fsm):
    """IDA* for a per-tile heuristic: h = ceil(sum of ``tile_cost[t, cell]`` / ``scale``),
    with parent or automaton pruning.

    Parameters
    ----------
    tiles8 : int8[N]        start board, row-major, 0 = blank; solvable, not the goal
    goal_pos : int64[N]     goal cell of each tile
    nbr8 : int8[N, 4]       neighbour table, -1 off the board
    tile_cost : int32[N, N] scaled cost of tile t on cell c
    scale : int64           1, or the fixed-point scale
    limits : int64[LIMITS_LEN]  node budget and time limit (:mod:`solver.limits`)
    fsm : int32[S * 4]      pruning automaton (:mod:`solver.fsm`), read if ``use_fsm``

    Returns
    -------
    Same as :func:`solver.idastar._idastar`.
    """
    return _idastar_tiles_in(tiles8, goal_pos, successor_lists(nbr8), tile_deltas(nbr8, tile_cost), tile_cost,
                             scale, limits, fsm, use_fsm, tiles_workspace())


@inline_kernel
def tiles_workspace():
    """The arrays one :func:`_idastar_tiles_in` call works in: path, bounds and nodes per
    iteration (its outputs), and the stack. A batch reuses one set for all its boards,
    since each solve writes before it reads."""
    path, bounds, iter_nodes = outputs()
    return (path, bounds, iter_nodes, np.zeros(MAX_DEPTH + 1, dtype=np.uint64),
            np.zeros(MAX_DEPTH + 1, dtype=np.int64), np.zeros(MAX_DEPTH + 1, dtype=np.int64))


@inline_kernel
def start_sum(board, tile_cost):
    """A start board's blank cell and the sum of ``tile_cost`` over its tiles."""
    blank, s = 0, np.int64(0)
    for c in range(board.shape[0]):
        s += tile_cost[board[c], c]
        if board[c] == 0:
            blank = c
    return blank, s


@kernel
def _idastar_tiles_in(tiles8, goal_pos, lists, delta, tile_cost, scale, limits, fsm, use_fsm, work):
    """:func:`_idastar_tiles` with its successor lists, tile deltas and work arrays
    (:func:`tiles_workspace`) given: the per-board part of a batch."""
    tiles = tiles8.astype(np.uint64)
    path, bounds, iter_nodes, st_pos, st_sum, st_q = work
    # start_sum written out: called here, Korf #1 ran at 176.5-179.3 M nodes/s against
    # 181.8-182.4 (benchmarks/solver_speed.py, alternating, 2026-12-07)
    n = tiles8.shape[0]
    blank0 = 0
    h0 = np.int64(0)  # the start's scaled sum
    for c in range(n):
        h0 += tile_cost[tiles8[c], c]
        if tiles8[c] == 0:
            blank0 = c
    h_root = h0 if scale == 1 else (h0 + scale - 1) // scale
    # This kernel keeps its own copy of the loop of solver.deepening: around this contour
    # the shared loop ran Korf #1 1.5-5 % slower in one process (three runs), at 85-86 % of
    # the C yardstick's nodes/s against 90-91 % (benchmarks/solver_speed.py, alternate
    # processes, same sitting); again on 2026-12-07, 174.6-180.3 M nodes/s against
    # 176.6-182.8 (median 92 % of C against 93 %, ten runs each). tests/test_deepening.py
    # holds both to the same accounting.
    generated, expanded, deadline, check_at = start_counts(limits)
    bound = h_root
    n_iter = 0
    while n_iter < MAX_ITERATIONS:
        start_generated = generated - 1 if n_iter == 0 else generated
        bounds[n_iter] = bound
        n_iter += 1
        expanded += 1
        # Two inlined copies, each with a constant use_fsm: the one for parent pruning
        # compiles without the automaton (a shared copy ran Korf #1 at 164-168 instead of
        # 185-186 M nodes/s, benchmarks/solver_speed.py's instance, same machine and hour).
        if use_fsm:
            status, generated, expanded, min_excess, cost, check_at = contour_tiles(
                tiles, blank0, h0, 0, -1, 0, bound, scale, lists, delta, goal_pos, st_pos, st_sum, st_q,
                path, generated, expanded, check_at, limits, deadline, fsm, True, NO_LINES, NO_TABLE, NO_LINES, False)
        else:
            status, generated, expanded, min_excess, cost, check_at = contour_tiles(
                tiles, blank0, h0, 0, -1, 0, bound, scale, lists, delta, goal_pos, st_pos, st_sum, st_q,
                path, generated, expanded, check_at, limits, deadline, fsm, False, NO_LINES, NO_TABLE, NO_LINES, False)
        iter_nodes[n_iter - 1] = generated - start_generated
        if status != RUNNING:
            return status, path, cost, generated, expanded, bounds, iter_nodes, n_iter, h_root
        bound += (min_excess + scale - 1) // scale
    return TOO_MANY_ITERATIONS, path, 0, generated, expanded, bounds, iter_nodes, n_iter, h_root
