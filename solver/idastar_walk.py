"""IDA* with walking distance alone (or ``walking-distance+id``): one link-table read per child.

The same search as :func:`solver.idastar_tiles._idastar_tiles` (successor lists, the goal test
at generation within the bound, the root counted once), with h = WD_v + WD_h carried as
the two axis patterns (:mod:`solver.walking`): a vertical move changes only the vertical
pattern, a horizontal one only the horizontal, so a child's h is one read of the link
table and the board is touched only for children within the bound. With ``use_id`` each
axis also counts its inversions (:func:`solver.hstate.inversion_step`: the ``n - 1`` tiles
the moved tile passes) and takes the larger of its walking and inversion distance.
``fsm`` prunes move strings (:mod:`solver.fsm`) when ``use_fsm`` is set; parent pruning is
in the lists.
"""

from typing import NamedTuple

import numpy as np

from .deepening import MAX_DEPTH, NO_BOUND, deepening, outputs
from .hstate import ID_BITS, inversion_step, inversions, walk_value, with_distance
from .jit import inline_kernel, kernel
from .limits import limit_hit, next_check
from .status import RUNNING, SOLVED, TOO_DEEP
from .successors import LIST_END, blank_of, is_goal, list_start, move_of, successor_lists, target_of, write_path
from .walking import WD_BITS


class WalkSearch(NamedTuple):
    """What :func:`contour_walk` takes (the arguments of :func:`_idastar_walk`, the start's
    inversion counts and the stack)."""

    tiles: np.ndarray     # uint64[N] the board the search stands on, 0 = blank
    blank0: int           # the start's blank cell
    v0: int               # the start's vertical ...
    h0: int               # ... and horizontal axis pattern
    iv0: int              # the start's vertical ...
    ih0: int              # ... and horizontal inversion count (with ``use_id``)
    size: int
    goal_pos: np.ndarray
    lists: np.ndarray     # successor lists (:func:`solver.successors.successor_lists`)
    step: np.ndarray
    link_v: np.ndarray
    link_h: np.ndarray
    lc_code: np.ndarray
    use_id: bool
    fsm: np.ndarray
    use_fsm: bool
    st_pos: np.ndarray    # uint64[MAX_DEPTH + 1] per depth, the position in the parent's list
    st_v: np.ndarray      # int64[MAX_DEPTH + 1] per depth, the vertical ...
    st_h: np.ndarray      # ... and horizontal axis pattern,
    st_q: np.ndarray      # the automaton state,
    st_iv: np.ndarray     # the vertical ...
    st_ih: np.ndarray     # ... and horizontal inversion count
    path: np.ndarray      # int8[MAX_DEPTH] the moves to a goal found


@inline_kernel
def contour_walk(ctx, bound, generated, expanded, check_at, limits, deadline):
    """One contour below the start, in the form :func:`solver.deepening.deepening` takes
    (``ctx``: a :class:`WalkSearch`)."""
    tiles = ctx.tiles
    size = ctx.size
    goal_pos = ctx.goal_pos
    lists = ctx.lists
    step = ctx.step
    link_v = ctx.link_v
    link_h = ctx.link_h
    lc_code = ctx.lc_code
    use_id = ctx.use_id
    fsm = ctx.fsm
    use_fsm = ctx.use_fsm
    st_pos = ctx.st_pos
    st_v = ctx.st_v
    st_h = ctx.st_h
    st_q = ctx.st_q
    st_iv = ctx.st_iv
    st_ih = ctx.st_ih
    path = ctx.path
    row = 2 * size
    next_bound = np.int64(NO_BOUND)
    d = 0
    b = np.uint64(ctx.blank0)
    v, h, q = ctx.v0, ctx.h0, np.int64(0)
    iv, ih = ctx.iv0, ctx.ih0
    p = list_start(ctx.blank0, -1)
    while True:
        code = lists[p]
        if code == LIST_END:  # all children tried: back up
            if d == 0:
                break
            d -= 1
            p = st_pos[d]
            pb = blank_of(lists[p - np.uint64(1)])
            tiles[b] = tiles[pb]
            tiles[pb] = 0
            b = pb
            v, h, q = st_v[d], st_h[d], st_q[d]
            iv, ih = st_iv[d], st_ih[d]
            continue
        p += np.uint64(1)
        m = move_of(code)
        # not shared: as helpers (inlined or not) these steps ran 2-6x slower (docs/kernel-contexts.md)
        nq = q
        if use_fsm:
            nq = np.int64(fsm[q * 4 + m])
            if nq < 0:
                continue  # completes a forbidden move string: not generated
        if generated >= check_at:
            hit = limit_hit(generated, limits, deadline)
            if hit != RUNNING:
                return hit, generated, expanded, next_bound, 0, check_at
            check_at = next_check(generated, limits)
        generated += 1
        tgt = target_of(code)
        t = tiles[tgt]
        v2, h2, iv2, ih2 = v, h, iv, ih
        k = step[np.int64(t) * 4 + m]
        if m == 0 or m == 3:  # U or D: the tile changes row
            v2 = np.int64(link_v[(v >> WD_BITS) * row + k])
            if use_id:
                iv2 = with_distance((iv >> ID_BITS) + inversion_step(tiles, t, b, tgt, size, lc_code), size)
        else:
            h2 = np.int64(link_h[(h >> WD_BITS) * row + k])
            if use_id:
                ih2 = with_distance((ih >> ID_BITS) + inversion_step(tiles, t, b, tgt, size, lc_code), size)
        wd = walk_value(v2, h2, iv2, ih2, use_id)
        f = d + 1 + wd
        if f > bound:
            if f < next_bound:
                next_bound = f
            continue
        tiles[b] = t
        tiles[tgt] = 0
        st_pos[d] = p
        st_v[d], st_h[d], st_q[d] = v, h, q
        st_iv[d], st_ih[d] = iv, ih
        if wd == 0 and is_goal(tiles, goal_pos):
            write_path(path, lists, st_pos, d + 1)
            return SOLVED, generated, expanded, next_bound, d + 1, check_at
        if d + 1 >= MAX_DEPTH:
            return TOO_DEEP, generated, expanded, next_bound, 0, check_at
        expanded += 1
        d += 1
        b = tgt
        v, h, q = v2, h2, nq
        iv, ih = iv2, ih2
        p = list_start(tgt, m)
    return RUNNING, generated, expanded, next_bound, 0, check_at


_deepen = deepening(contour_walk)


@kernel
def _idastar_walk(tiles8, size, goal_pos, nbr8, step, link_v, link_h, v0, h0, fsm, use_fsm,
                  limits, lc_code, use_id):
    """IDA* guided by walking distance.

    Parameters
    ----------
    tiles8 : int8[N]          start board, row-major, 0 = blank; solvable, not the goal
    size : int64              board width n
    goal_pos : int64[N]       goal cell of each tile
    nbr8 : int8[N, 4]         neighbour table, -1 off the board
    step : int64[N * 4]       per (tile, move): direction * n + the tile's goal line on
                              the move's axis (its offset in a link row)
    link_v, link_h : int32[:] link tables of the two axes (:mod:`solver.walking`)
    v0, h0 : int64            the start's axis patterns, ``number << WD_BITS | distance``
    fsm : int32[S * 4]        pruning automaton (:mod:`solver.fsm`), read if ``use_fsm``
    limits : int64[LIMITS_LEN]  node budget and time limit (:mod:`solver.limits`)
    lc_code : int32[2n + 2, N]  its last two rows (goal places in row-major and column-major
                              order) are read if ``use_id`` (:mod:`solver.heuristics`)
    use_id : bool             ``walking-distance+id``

    Returns
    -------
    Same as :func:`solver.idastar._idastar`.
    """
    n = tiles8.shape[0]
    tiles = tiles8.astype(np.uint64)
    lists = successor_lists(nbr8)
    path, bounds, iter_nodes = outputs()
    st_pos = np.zeros(MAX_DEPTH + 1, dtype=np.uint64)
    st_v = np.zeros(MAX_DEPTH + 1, dtype=np.int64)
    st_h = np.zeros(MAX_DEPTH + 1, dtype=np.int64)
    st_q = np.zeros(MAX_DEPTH + 1, dtype=np.int64)
    st_iv = np.zeros(MAX_DEPTH + 1, dtype=np.int64)
    st_ih = np.zeros(MAX_DEPTH + 1, dtype=np.int64)
    blank0 = 0
    for c in range(n):
        if tiles8[c] == 0:
            blank0 = c
    iv0 = ih0 = np.int64(0)
    if use_id:
        iv0 = with_distance(inversions(tiles, size, lc_code, False), size)
        ih0 = with_distance(inversions(tiles, size, lc_code, True), size)
    h_root = walk_value(v0, h0, iv0, ih0, use_id)
    ctx = WalkSearch(tiles=tiles, blank0=blank0, v0=v0, h0=h0, iv0=iv0, ih0=ih0, size=size, goal_pos=goal_pos,
                     lists=lists, step=step, link_v=link_v, link_h=link_h, lc_code=lc_code, use_id=use_id, fsm=fsm,
                     use_fsm=use_fsm, st_pos=st_pos, st_v=st_v, st_h=st_h, st_q=st_q, st_iv=st_iv, st_ih=st_ih,
                     path=path)
    return _deepen(ctx, h_root, limits, path, bounds, iter_nodes)


def walk_steps(size: int, goal: tuple[int, ...]) -> np.ndarray:
    """``int64[N * 4]``: the ``step`` argument of :func:`_idastar_walk` for ``goal``."""
    n = size * size
    step = np.zeros(n * 4, dtype=np.int64)
    for cell, t in enumerate(goal):
        goal_row, goal_col = divmod(cell, size)
        # U: the tile comes from above (direction 1); L: from the left (1); R, D: 0
        step[t * 4: t * 4 + 4] = (size + goal_row, size + goal_col, goal_col, goal_row)
    step.flags.writeable = False
    return step
