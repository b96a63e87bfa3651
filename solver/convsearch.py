"""A*, BFS and DFS under any :class:`~solver.conventions.Conventions`: one general kernel.

Searches under ``korf`` never come here (:mod:`solver.kernels` runs them in the kernels of
:mod:`solver.graphsearch` and :mod:`solver.astar`, unchanged); this kernel serves every other
set of conventions, and under ``korf`` gives the same figures (the tests hold it to that).

* The blank's moves are tried in ``order``; a child that undoes the parent's move is never
  generated (parent pruning, as in every kernel).
* A*'s open list is a binary heap whose key is (f, then two words that break ties): f is the
  integer g + h, or with ``f=float`` g + the heuristic's real value (Euclidean distance's
  sum of square roots, added cell by cell in a float64); ties go to the larger g, the
  smaller g, the first in, the last in, or the board that comes first tile by tile (the
  board's string on 3x3).
* Duplicates (A*): ``best-g`` keeps the best g per board, pushes a board again when a
  cheaper g reaches it and skips stale entries on pop; ``no-closed`` does the same but a
  stale entry is expanded again (at the board's best g), as a queue of (f, board) without
  a closed set does; ``closed`` never expands a board twice. BFS and DFS mark a board seen
  when it is generated, and never push it again.
* The goal test is made when a board is generated or when it is taken from the frontier.
  DFS with the test on taking pushes the children in ``order`` (the last one is expanded
  first, as a textbook stack does), with the test on generation in reverse (the first one is).
* Counts: ``generated`` (korf: generated = the root and every child after parent pruning;
  expanded = boards whose children were generated), ``pushes`` (generated = the root and
  every push onto the frontier), ``pops`` (generated as ``pushes``; expanded = every board
  taken from the frontier, the goal and stale entries included).
"""

import numpy as np

from .graphsearch import ASTAR, BFS, DFS
from .hstate import HS_LEN, h_init, placed, slide
from .jit import inline_kernel, kernel
from .limits import LIMIT_STATES, limit_hit, next_check, start_counts
from .statetable import (
    EMPTY,
    find_board,
    grow_rows,
    node_store,
    pack,
    rebuild_index,
    trace_path,
    unpack,
    with_room,
)
from .status import BUDGET_MEMORY, EXHAUSTED, RUNNING, SOLVED
from .successors import is_goal

# codes of the conventions' values, in the order of solver.conventions' tuples
TIE_LARGER_G, TIE_SMALLER_G, TIE_FIFO, TIE_LIFO, TIE_BOARD = 0, 1, 2, 3, 4
DUP_BEST_G, DUP_NO_CLOSED, DUP_CLOSED = 0, 1, 2
COUNT_GENERATED, COUNT_PUSHES, COUNT_POPS = 0, 1, 2
_TOP = np.uint64(0xFFFFFFFFFFFFFFFF)


@inline_kernel
def _tie_words(ties, g, seq, tiles):
    if ties == TIE_LARGER_G:
        return _TOP - np.uint64(g), np.uint64(seq)
    if ties == TIE_SMALLER_G:
        return np.uint64(g), np.uint64(seq)
    if ties == TIE_FIFO:
        return np.uint64(seq), np.uint64(0)
    if ties == TIE_LIFO:
        return _TOP - np.uint64(seq), np.uint64(0)
    return pack(tiles, True)  # the board, tile by tile (on 5x5 its first 24 cells: they decide)


@inline_kernel
def _less(fa, a1, a2, fb, b1, b2):
    """Whether the heap key (fa, a1, a2) comes before (fb, b1, b2)."""
    if fa != fb:
        return fa < fb
    if a1 != b1:
        return a1 < b1
    return a2 < b2


@inline_kernel
def _sift_up(hf, h1, h2, hn, hg, start, f, a1, a2, node, g):
    """Put the entry (f, a1, a2, node, g) into a heap of ``start`` entries."""
    hole = start
    while hole > 0:
        up = (hole - 1) >> 1
        if not _less(f, a1, a2, hf[up], h1[up], h2[up]):
            break
        hf[hole], h1[hole], h2[hole], hn[hole], hg[hole] = hf[up], h1[up], h2[up], hn[up], hg[up]
        hole = up
    hf[hole], h1[hole], h2[hole], hn[hole], hg[hole] = f, a1, a2, node, g


@inline_kernel
def _sift_down(hf, h1, h2, hn, hg, size):
    """Move the last of ``size`` entries into the root's place and restore the heap."""
    last_f, last_1, last_2, last_node, last_g = hf[size], h1[size], h2[size], hn[size], hg[size]
    hole = 0
    while True:
        kid = 2 * hole + 1
        if kid >= size:
            break
        if kid + 1 < size and _less(hf[kid + 1], h1[kid + 1], h2[kid + 1], hf[kid], h1[kid], h2[kid]):
            kid += 1
        if not _less(hf[kid], h1[kid], h2[kid], last_f, last_1, last_2):
            break
        hf[hole], h1[hole], h2[hole], hn[hole], hg[hole] = hf[kid], h1[kid], h2[kid], hn[kid], hg[kid]
        hole = kid
    hf[hole], h1[hole], h2[hole], hn[hole], hg[hole] = last_f, last_1, last_2, last_node, last_g


@inline_kernel
def _float_h(tiles, fcost):
    """The heuristic's real value: the tiles' costs added cell by cell in a float64."""
    total = 0.0
    for c in range(tiles.shape[0]):
        if tiles[c] != 0:
            total += fcost[tiles[c], c]
    return total


@kernel
def _convention_search(kind, tiles8, size, goal_pos, nbr, order, H, fcost, use_float, ties, dups, goal_at_gen,
                       count_mode, limits):
    """Run A* (``kind`` 0), BFS (1) or DFS (2) from ``tiles8`` under the conventions the
    codes name (module text).

    Parameters
    ----------
    kind, tiles8, size, goal_pos, nbr, H, limits : as :func:`solver.graphsearch._graph_search`
    order : int64[4]       the moves (indices into ``U, L, R, D``) in the order they are tried
    fcost : float64[N, N]  ``fcost[t, c]``: tile t's real cost on cell c (read if ``use_float``)
    ties, dups, count_mode : int  codes TIE_*, DUP_*, COUNT_*
    goal_at_gen : bool     test for the goal when a board is generated (else when taken)

    Returns
    -------
    Same as :func:`solver.graphsearch._graph_search`.
    """
    tiles, pos = placed(tiles8)
    rows = np.zeros((1, HS_LEN), dtype=np.int64)
    h0 = h_init(tiles, pos, size, H, rows, 0)
    empty_path = np.zeros(0, dtype=np.int8)
    if is_goal(tiles, goal_pos):  # the root's pop counts when the goal is tested on taking
        return SOLVED, empty_path, 0, 1, np.int64(count_mode == COUNT_POPS and not goal_at_gen), 0, h0

    keys, gs, parents, moves, slots = node_store(tiles)
    cap = keys.shape[0]
    closed = np.zeros(cap, dtype=np.bool_)
    count, max_depth = 1, 0  # boards stored, the largest g among them
    # A*: the heap (f, two tie words, node, g); BFS and DFS: hn is the queue or the stack
    hf = np.zeros(cap, dtype=np.float64)
    h1 = np.zeros(cap, dtype=np.uint64)
    h2 = np.zeros(cap, dtype=np.uint64)
    hn = np.zeros(cap, dtype=np.int64)
    hg = np.zeros(cap, dtype=np.int64)
    f0 = _float_h(tiles, fcost) if use_float else np.float64(h0)
    a1, a2 = _tie_words(ties, 0, 0, tiles)
    hf[0], h1[0], h2[0], hn[0], hg[0] = f0, a1, a2, 0, 0
    frontier_len = 1
    head = 0  # BFS: the next entry of the queue
    generated, expanded, deadline, check_at = start_counts(limits)
    seq = 1
    children = np.zeros(4, dtype=np.int64)
    while True:
        if kind == BFS:
            if head == frontier_len:
                break
            node = hn[head]
            head += 1
        elif kind == DFS:
            if frontier_len == 0:
                break
            frontier_len -= 1
            node = hn[frontier_len]
        else:
            if frontier_len == 0:
                break
            node, entry_g = hn[0], hg[0]
            frontier_len -= 1
            if frontier_len > 0:
                _sift_down(hf, h1, h2, hn, hg, frontier_len)
        if count_mode == COUNT_POPS:
            expanded += 1
        if kind == ASTAR:
            if dups == DUP_BEST_G and entry_g != gs[node]:
                continue  # stale: a cheaper path to this board was pushed later
            if dups == DUP_CLOSED:
                if closed[node]:
                    continue
                closed[node] = True
        unpack(keys[node, 0], keys[node, 1], tiles, pos)
        g = gs[node]
        if not goal_at_gen and is_goal(tiles, goal_pos):
            path = np.zeros(g, dtype=np.int8)
            trace_path(parents, moves, node, path)
            return SOLVED, path, g, generated, expanded, max_depth, h0
        if count_mode != COUNT_POPS:
            expanded += 1
        blank = pos[0]
        n_children = 0
        for k in range(4):
            m = order[k]
            tgt = nbr[blank, m]
            if tgt < 0 or m == 3 - moves[node]:
                continue  # off the board, or back to the parent (parent pruning)
            if generated >= check_at:
                hit = limit_hit(generated, limits, deadline)
                if hit != RUNNING:
                    return hit, empty_path, 0, generated, expanded, max_depth, h0
                check_at = next_check(generated, limits)
            if count_mode == COUNT_GENERATED:
                generated += 1
            slide(tiles, pos, blank, tgt)
            k1, k2, slot, known = find_board(slots, keys, tiles)
            cheaper = kind == ASTAR and known != EMPTY and gs[known] > g + 1 and not closed[known]
            if known == EMPTY or cheaper:
                if known == EMPTY:
                    if count == keys.shape[0]:
                        if 2 * count > limits[LIMIT_STATES]:
                            return BUDGET_MEMORY, empty_path, 0, generated, expanded, max_depth, h0
                        keys, gs, parents, moves, closed = with_room(count, keys, gs, parents, moves, closed)
                    known = count
                    count += 1
                    keys[known, 0], keys[known, 1] = k1, k2
                    closed[known] = False  # a grown array's new rows are unset
                    slots[slot] = known
                gs[known] = g + 1
                parents[known] = node
                moves[known] = m
                if g + 1 > max_depth:
                    max_depth = g + 1
                if count_mode != COUNT_GENERATED:
                    generated += 1
                if goal_at_gen and is_goal(tiles, goal_pos):
                    path = np.zeros(g + 1, dtype=np.int8)
                    trace_path(parents, moves, known, path)
                    return SOLVED, path, g + 1, generated, expanded, max_depth, h0
                if kind == ASTAR:
                    if frontier_len == hf.shape[0]:
                        hf, h1, h2, hn, hg = with_room(frontier_len, hf, h1, h2, hn, hg)
                    hc = _float_h(tiles, fcost) if use_float else np.float64(h_init(tiles, pos, size, H, rows, 0))
                    a1, a2 = _tie_words(ties, g + 1, seq, tiles)
                    _sift_up(hf, h1, h2, hn, hg, frontier_len, g + 1 + hc, a1, a2, known, g + 1)
                    frontier_len += 1
                    seq += 1
                else:
                    children[n_children] = known
                    n_children += 1
            slide(tiles, pos, tgt, blank)
        if kind != ASTAR:
            if frontier_len + 4 > hn.shape[0]:
                hn = grow_rows(hn, frontier_len)
            for k in range(n_children):
                # DFS tested on generation: the first child ends on top of the stack
                j = n_children - 1 - k if kind == DFS and goal_at_gen else k
                hn[frontier_len] = children[j]
                frontier_len += 1
        if 2 * count > slots.shape[0]:
            slots = rebuild_index(keys, count, 4 * slots.shape[0])
    return EXHAUSTED, empty_path, 0, generated, expanded, max_depth, h0
