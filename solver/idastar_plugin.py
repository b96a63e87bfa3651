"""IDA* for a plugin heuristic alone (:mod:`solver.plugins`): h is the plugin's value.

The search of :func:`solver.idastar._idastar` (successor lists, the goal test at
generation within the bound, the same node accounting), without the built-in heuristic
parts it carries per depth: a child's h is one call of the plugin on the board. A plugin
combined with built-in heuristics in a ``max(...)`` runs in :func:`solver.idastar.idastar_search`;
this search is the smaller one, which numba compiles in a fraction of that one's time (once
per machine and plugin: :mod:`solver.plugin_kernels` makes the kernels around both). With
the plugin's incremental form (``use_step``) a child's h is ``step(tiles, goal, h of the
parent, tile, source, target)`` instead, the parents' h kept per depth.
"""

from typing import NamedTuple

import numpy as np

from .deepening import MAX_DEPTH, NO_BOUND, deepening, outputs
from .jit import inline_kernel, kernel
from .limits import limit_hit, next_check
from .status import BAD_HEURISTIC, RUNNING, SOLVED, TOO_DEEP
from .successors import LIST_END, blank_of, is_goal, list_start, move_of, successor_lists, target_of, write_path


class PluginSearch(NamedTuple):
    """What :func:`contour_plugin` takes (the arguments of :func:`plugin_only_search`, the
    goal board and the stack)."""

    tiles: np.ndarray     # int64[N] the board the search stands on, 0 = blank
    blank: int            # the start's blank cell
    goal: np.ndarray      # int64[N] the goal board, handed to the plugin
    goal_pos: np.ndarray  # int64[N] goal cell of each tile
    lists: np.ndarray     # successor lists (:func:`solver.successors.successor_lists`)
    st_pos: np.ndarray    # uint64[MAX_DEPTH + 1] per depth, the position in the parent's list
    st_q: np.ndarray      # int64[MAX_DEPTH + 1] per depth, the automaton state
    path: np.ndarray      # int8[MAX_DEPTH] the moves to a goal found
    fsm: np.ndarray
    use_fsm: bool
    plug: object
    step: object
    use_step: bool
    hs: np.ndarray        # int64[MAX_DEPTH + 1] h of each node on the path


@inline_kernel
def contour_plugin(ctx, bound, generated, expanded, check_at, limits, deadline):
    """One contour below the start, in the form :func:`solver.deepening.deepening` takes
    (``ctx``: a :class:`PluginSearch`)."""
    tiles = ctx.tiles
    goal = ctx.goal
    goal_pos = ctx.goal_pos
    lists = ctx.lists
    st_pos = ctx.st_pos
    st_q = ctx.st_q
    path = ctx.path
    fsm = ctx.fsm
    use_fsm = ctx.use_fsm
    plug = ctx.plug
    step = ctx.step
    use_step = ctx.use_step
    hs = ctx.hs
    next_bound = np.int64(NO_BOUND)
    d = 0
    b = np.int64(ctx.blank)
    q = np.int64(0)
    p = list_start(b, -1)
    while True:
        code = lists[p]
        if code == LIST_END:  # all children tried: back up
            if d == 0:
                break
            d -= 1
            p = st_pos[d]
            pb = np.int64(blank_of(lists[p - np.uint64(1)]))
            tiles[b] = tiles[pb]
            tiles[pb] = 0
            b = pb
            q = st_q[d]
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
                return hit, generated, expanded, next_bound, 0, check_at
            check_at = next_check(generated, limits)
        generated += 1
        tgt = np.int64(target_of(code))
        t = tiles[tgt]
        tiles[b] = t
        tiles[tgt] = 0
        if use_step:
            hc = np.int64(step(tiles, goal, hs[d], t, tgt, b))
        else:
            hc = np.int64(plug(tiles, goal))
        if hc < 0:
            return BAD_HEURISTIC, generated, expanded, next_bound, 0, check_at
        f = d + 1 + hc
        if f > bound:
            if f < next_bound:
                next_bound = f
            tiles[tgt] = tiles[b]
            tiles[b] = 0
            continue
        st_pos[d] = p
        st_q[d] = q
        hs[d + 1] = hc
        if hc == 0 and is_goal(tiles, goal_pos):
            write_path(path, lists, st_pos, d + 1)
            return SOLVED, generated, expanded, next_bound, d + 1, check_at
        if d + 1 >= MAX_DEPTH:
            return TOO_DEEP, generated, expanded, next_bound, 0, check_at
        expanded += 1
        d += 1
        b = tgt
        q = nq
        p = list_start(tgt, move_of(code))
    return RUNNING, generated, expanded, next_bound, 0, check_at


_deepen = deepening(contour_plugin)


@kernel
def no_step(tiles, goal, h, tile, source, target):
    """The incremental form of a plugin without one (never called)."""
    return 0


@inline_kernel
def plugin_only_search(tiles8, goal_pos, nbr, limits, fsm, use_fsm, plug, step, use_step):
    """IDA* with h = ``plug(tiles, goal)`` (``use_step``: a child's h from its parent's by
    ``step``, :mod:`solver.plugins`); arguments (``nbr``: int64[N, 4]) and returns as
    :func:`solver.idastar._idastar`."""
    n = tiles8.shape[0]
    tiles = tiles8.astype(np.int64)
    goal = np.empty(n, dtype=np.int64)
    blank = 0
    for c in range(n):
        goal[goal_pos[c]] = c
        if tiles[c] == 0:
            blank = c
    lists = successor_lists(nbr)
    path, bounds, iter_nodes = outputs()
    st_pos = np.zeros(MAX_DEPTH + 1, dtype=np.uint64)
    st_q = np.zeros(MAX_DEPTH + 1, dtype=np.int64)
    h0 = np.int64(plug(tiles, goal))
    hs = np.zeros(MAX_DEPTH + 1, dtype=np.int64)  # h of each node on the path
    hs[0] = h0
    if h0 < 0:
        return BAD_HEURISTIC, path, 0, np.int64(1), np.int64(0), bounds, iter_nodes, 0, h0
    ctx = PluginSearch(tiles=tiles, blank=blank, goal=goal, goal_pos=goal_pos, lists=lists, st_pos=st_pos, st_q=st_q,
                       path=path, fsm=fsm, use_fsm=use_fsm, plug=plug, step=step, use_step=use_step, hs=hs)
    return _deepen(ctx, h0, limits, path, bounds, iter_nodes)
