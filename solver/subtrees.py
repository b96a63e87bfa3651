"""One IDA* iteration over a list of subtree roots: the work unit of a split search.

A split search (:mod:`solver.splitsearch`) cuts the tree of one IDA* iteration at a
frontier (:mod:`solver.frontier`) and searches the subtrees below its roots separately.
The kernels here take a bound and a chunk of roots (each its board, depth g, the move that
made it and its automaton state) and run, below each root in turn, the same depth-first
contour as the serial kernels (:func:`solver.idastar_tiles.contour_tiles`,
:func:`solver.idastar_pdb._contour`, :func:`solver.idastar.contour`), so every root's
subtree generates exactly the nodes the serial iteration generates there. They return the
nodes generated (in all and below each root: the split search deals the next iteration's
roots by these sizes), the least f above the bound, and the first root whose subtree holds a
goal within the bound, with its path.
"""

from __future__ import annotations

import time
from typing import NamedTuple

import numpy as np

from .deepening import MAX_DEPTH, NO_BOUND
from .geometry import neighbours, neighbours64
from .hstate import h_init
from .idastar import Node, Search, built_in_search, contour, start_node
from .idastar_pdb import (
    _contour as pdb_contour,
    _contour_zero_aware as pdb_contour_zero_aware,
    mirrors_early,
    pdb_context,
    pdb_root,
)
from .idastar_tiles import NO_LINES, NO_TABLE, contour_tiles, start_sum, tiles_next_bound
from .jit import inline_kernel, kernel
from .kernels import NO_FSM, goal_positions, near_goal, split_row
from .limits import make_limits, start_counts
from .search import _moves_text
from .status import RUNNING, SOLVED
from .successors import successor_lists, tile_deltas


@inline_kernel
def chunk_start(limits):
    """A chunk's state before its first root: ``generated, expanded`` (0: the roots were
    counted by the frontier), the deadline, the next limit check, ``next_bound`` (none yet),
    ``status, solved, cost`` (running, no root solved)."""
    generated, expanded, deadline, check_at = start_counts(limits, 0)
    return generated, expanded, deadline, check_at, np.int64(NO_BOUND), RUNNING, -1, 0


@inline_kernel
def root_searched(st, r, moves, scratch, stop_at_goal, solved, cost, path):
    """A chunk's ``status, solved, cost`` after the subtree of root ``r`` ended with ``st``
    (its goal's ``moves`` in ``scratch`` when SOLVED: kept in ``path`` for the first root
    solved), and whether the chunk stops here."""
    if st == SOLVED:
        if solved < 0:
            solved, cost = r, moves
            path[:] = scratch
        return RUNNING, solved, cost, stop_at_goal
    return st, solved, cost, st != RUNNING


@kernel
def _subtrees_tiles(boards, gs, lasts, qs, goal_pos, nbr8, tile_cost, scale, bound, stop_at_goal, limits,
                    fsm, use_fsm):
    """One iteration of :func:`solver.idastar_tiles._idastar_tiles` below each row of ``boards``.

    Parameters
    ----------
    boards : int8[R, N]     the roots' boards
    gs, lasts : int64[R]    each root's depth and the move that made it
    qs : int64[R]           each root's automaton state (read if ``use_fsm``)
    goal_pos, nbr8, tile_cost, scale, limits, fsm, use_fsm : as :func:`solver.idastar_tiles._idastar_tiles`
    bound : int64           the iteration's bound
    stop_at_goal : bool     stop at the first root whose subtree holds a goal (else search
                            every root, each to its first goal)

    Returns
    -------
    status : int64          RUNNING, or the limit or TOO_DEEP that stopped the chunk
    solved : int64          the first root (row) below which a goal was found, or -1
    path : int8[MAX_DEPTH]  the moves from that root to the goal in ``path[:cost]``
    cost, generated, expanded, next_bound : int64
    sizes : int64[R]        nodes generated below each root (0: not searched)
    """
    n_roots, n = boards.shape
    sizes = np.zeros(n_roots, dtype=np.int64)
    lists = successor_lists(nbr8)
    delta = tile_deltas(nbr8, tile_cost)
    path = np.zeros(MAX_DEPTH, dtype=np.int8)
    scratch = np.zeros(MAX_DEPTH, dtype=np.int8)
    st_pos = np.zeros(MAX_DEPTH + 1, dtype=np.uint64)
    st_sum = np.zeros(MAX_DEPTH + 1, dtype=np.int64)
    st_q = np.zeros(MAX_DEPTH + 1, dtype=np.int64)
    tiles = np.empty(n, dtype=np.uint64)
    generated, expanded, deadline, check_at, next_bound, status, solved, cost = chunk_start(limits)
    for r in range(n_roots):
        tiles[:] = boards[r]
        blank, s0 = start_sum(boards[r], tile_cost)
        before = generated
        # Two inlined copies with a constant use_fsm, as in _idastar_tiles: the one for parent
        # pruning compiles without the automaton (a shared copy runs ~10 % slower).
        if use_fsm:
            st, generated, expanded, min_excess, moves, check_at = contour_tiles(
                tiles, blank, s0, gs[r], lasts[r], qs[r], bound, scale, lists, delta, goal_pos, st_pos, st_sum,
                st_q, scratch, generated, expanded, check_at, limits, deadline, fsm, True,
                NO_LINES, NO_TABLE, NO_LINES, False)
        else:
            st, generated, expanded, min_excess, moves, check_at = contour_tiles(
                tiles, blank, s0, gs[r], lasts[r], qs[r], bound, scale, lists, delta, goal_pos, st_pos, st_sum,
                st_q, scratch, generated, expanded, check_at, limits, deadline, fsm, False,
                NO_LINES, NO_TABLE, NO_LINES, False)
        sizes[r] = generated - before
        next_bound = min(next_bound, tiles_next_bound(bound, min_excess, scale))
        status, solved, cost, stop = root_searched(st, r, moves, scratch, stop_at_goal, solved, cost, path)
        if stop:
            break
    return status, solved, path, cost, generated, expanded, next_bound, sizes


def roots_chunk(contour, root):
    """One iteration of ``contour`` below each row of ``boards``, an inline kernel
    ``chunk(start, boards, gs, lasts, qs, bound, stop_at_goal, limits, scratch)``:
    ``root(start, board, g, last, q)`` puts the context ``start`` on a root and returns the
    context that searches below it, with the root's h; ``scratch`` is the path the contour
    writes. Parameters and returns as :func:`_subtrees_tiles`."""

    @inline_kernel
    def chunk(start, boards, gs, lasts, qs, bound, stop_at_goal, limits, scratch):
        n_roots = boards.shape[0]
        sizes = np.zeros(n_roots, dtype=np.int64)
        path = np.zeros(MAX_DEPTH, dtype=np.int8)
        generated, expanded, deadline, check_at, next_bound, status, solved, cost = chunk_start(limits)
        for r in range(n_roots):
            ctx, _ = root(start, boards[r], gs[r], lasts[r], qs[r])
            before = generated
            st, generated, expanded, nb, moves, check_at = contour(ctx, bound, generated, expanded, check_at,
                                                                   limits, deadline)
            sizes[r] = generated - before
            next_bound = min(next_bound, nb)
            status, solved, cost, stop = root_searched(st, r, moves, scratch, stop_at_goal, solved, cost, path)
            if stop:
                break
        return status, solved, path, cost, generated, expanded, next_bound, sizes

    return chunk


@inline_kernel
def general_root(ctx, tiles8, g0, last, q0):
    """The :class:`solver.idastar.Search` ``ctx`` put on the board ``tiles8`` (int8[N]), a node
    at depth ``g0`` made by move ``last`` in automaton state ``q0`` (on ``ctx``'s arrays,
    rewritten), and its h."""
    node = ctx.node
    for c in range(tiles8.shape[0]):
        node.tiles[c] = tiles8[c]
        node.pos[tiles8[c]] = c
    h = h_init(node.tiles, node.pos, node.size, node.H, node.rows, 0)
    root = Node(tiles=node.tiles, pos=node.pos, size=node.size, g0=g0, last=last, q0=q0, goal_pos=node.goal_pos,
                lists=node.lists, H=node.H, rows=node.rows, parts=node.parts, ranks=node.ranks, st_pos=node.st_pos,
                st_q=node.st_q, path=node.path, fsm=node.fsm, use_fsm=node.use_fsm, goal=node.goal)
    return Search(node=root, plug=ctx.plug, use_plug=ctx.use_plug, step=ctx.step, use_step=ctx.use_step,
                  hs=ctx.hs), h


_general_chunk = roots_chunk(contour, general_root)
_pdb_chunk = roots_chunk(pdb_contour, pdb_root)
_pdb_chunk_zero_aware = roots_chunk(pdb_contour_zero_aware, pdb_root)


@kernel
def _subtrees(boards, gs, lasts, qs, size, goal_pos, nbr, H, bound, stop_at_goal, limits, fsm, use_fsm):
    """One iteration of :func:`solver.idastar._idastar` below each row of ``boards``.

    ``qs`` (int64[R]) are the roots' automaton states (read if ``use_fsm``); the other
    parameters and the returns are those of :func:`_subtrees_tiles` and
    :func:`solver.idastar._idastar`.
    """
    # the arrays of a search, set up on a blank board: general_root puts them on each root
    node, scratch, _, _ = start_node(np.zeros(boards.shape[1], dtype=np.int8), size, goal_pos, nbr, H, fsm, use_fsm)
    return _general_chunk(built_in_search(node), boards, gs, lasts, qs, bound, stop_at_goal, limits, scratch)


@kernel
def _subtrees_pdb(boards, gs, lasts, qs, goal_pos, nbr, H, bound, stop_at_goal, limits, fsm, use_fsm,
                  early_mirrors):
    """One iteration of :func:`solver.idastar_pdb._idastar_pdb` (placement-indexed tables)
    below each row of ``boards``. Parameters and returns as :func:`_subtrees_tiles`; ``H``,
    ``early_mirrors`` as ``_idastar_pdb``'s."""
    scratch = np.zeros(MAX_DEPTH, dtype=np.int8)
    start = pdb_context(boards.shape[1], goal_pos, nbr, H, fsm, use_fsm, early_mirrors, scratch)
    return _pdb_chunk(start, boards, gs, lasts, qs, bound, stop_at_goal, limits, scratch)


@kernel
def _subtrees_pdb_zero_aware(boards, gs, lasts, qs, goal_pos, nbr, H, bound, stop_at_goal, limits, fsm, use_fsm,
                             early_mirrors):
    """:func:`_subtrees_pdb` with zero-aware tables."""
    scratch = np.zeros(MAX_DEPTH, dtype=np.int8)
    start = pdb_context(boards.shape[1], goal_pos, nbr, H, fsm, use_fsm, early_mirrors, scratch)
    return _pdb_chunk_zero_aware(start, boards, gs, lasts, qs, bound, stop_at_goal, limits, scratch)


class Chunk(NamedTuple):
    """Subtree roots one task searches: their frontier indices and what the kernels take."""

    ids: np.ndarray      # int64[R] indices into the frontier
    boards: np.ndarray   # int8[R, N]
    g: np.ndarray        # int64[R]
    last: np.ndarray     # int64[R]
    q: np.ndarray        # int64[R]


class ChunkResult(NamedTuple):
    """What searching a chunk at one bound gave."""

    status: int          # RUNNING, or the limit (or TOO_DEEP) that stopped it
    solved: int          # frontier index of the first root with a goal below it, or -1
    moves: str           # the moves from that root to the goal
    generated: int
    expanded: int
    next_bound: int      # least f above the bound met (NO_BOUND: none)
    ids: np.ndarray      # the chunk's roots (frontier indices) ...
    sizes: np.ndarray    # ... and the nodes generated below each (0: not searched)
    cpu_seconds: float = 0.0  # CPU time of the thread that searched it


def subtrees_call(size: int, goal: tuple[int, ...], H, automaton=None):
    """``search(chunk, bound, stop_at_goal, limits) -> ChunkResult`` with the kernel the
    kernel table picks for ``H`` (:func:`~.kernels.split_row`: the per-tile one, the pattern
    database one, else the general one)."""
    goal_pos = goal_positions(goal)
    fsm = NO_FSM if automaton is None else automaton.full
    row = split_row(size, goal, H, automaton).name
    if row == "idastar-tiles":
        nbr8 = neighbours(size)

        def kernel_call(chunk, bound, stop, limits):
            return _subtrees_tiles(chunk.boards, chunk.g, chunk.last, chunk.q, goal_pos, nbr8, H.tile_cost,
                                   H.scale, bound, stop, limits, fsm, automaton is not None)
    elif row == "idastar-pdb":
        nbr, early = neighbours64(size), mirrors_early(H)

        subtrees = _subtrees_pdb_zero_aware if H.zero_aware else _subtrees_pdb

        def kernel_call(chunk, bound, stop, limits):
            return subtrees(chunk.boards, chunk.g, chunk.last, chunk.q, goal_pos, nbr, H, bound, stop, limits,
                                 fsm, automaton is not None, early)
    else:
        nbr = neighbours64(size)

        def kernel_call(chunk, bound, stop, limits):
            return _subtrees(chunk.boards, chunk.g, chunk.last, chunk.q, size, goal_pos, nbr, H, bound, stop,
                             limits, fsm, automaton is not None)

    def search(chunk: Chunk, bound: int, stop_at_goal: bool, limits: np.ndarray) -> ChunkResult:
        cpu_start = time.thread_time()
        status, solved, path, cost, generated, expanded, next_bound, sizes = kernel_call(
            chunk, bound, stop_at_goal, limits)
        cpu = time.thread_time() - cpu_start
        moves = _moves_text(path, int(cost)) if solved >= 0 else ""
        return ChunkResult(int(status), int(chunk.ids[solved]) if solved >= 0 else -1, moves, int(generated),
                           int(expanded), int(next_bound), chunk.ids, sizes, cpu)

    return search


def warmed(search, size: int, goal: tuple[int, ...]):
    """``search`` (of :func:`subtrees_call`) once run, so its kernel is compiled (or loaded
    from numba's cache): on one root, the goal one move away."""
    board = near_goal(goal, size)
    chunk = Chunk(np.zeros(1, np.int64), board[None, :], np.ones(1, np.int64), np.full(1, -1, np.int64),
                  np.zeros(1, np.int64))
    search(chunk, 64, True, make_limits(1000))
    return search
