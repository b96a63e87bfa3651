"""IDA* (Korf 1985): the general kernel, for every built-in heuristic.

Each kernel is a contour (one depth-first pass under a bound) inside the iteration loop of
:mod:`solver.deepening`. The blank tries ``U, L, R, D`` and never undoes its last move; a
child is counted as generated when it is created, and the goal test is made then, accepted
only when its f is within the bound. The search stops at the first goal it accepts. The
root is counted once, not once per iteration: with Manhattan distance this reproduces
Korf's published node counts (97 of his 100 to the node; docs/benchmarks.md).

Contours walk precomputed successor lists (:mod:`solver.successors`): for each blank cell
and last move, the moves still allowed, each coded with its target cell, so the inner
loop has no off-board or parent-pruning test. The stack holds, per depth, only the
position in the parent's list (which also tells the parent's blank and the move taken)
and what the heuristic needs to back up. Each prunes with the automaton of
:mod:`solver.fsm` instead when given one, carrying its state per depth.

:func:`_idastar` runs every built-in heuristic, including linear conflicts, walking
distance and ``max`` of several (:func:`contour`); :func:`idastar_search` is the same
search with a plugin heuristic in the ``max``, :func:`plugin_search` with a plugin alone
(:func:`plugin_contour`; both bound to their plugin in :mod:`solver.plugin_kernels`). The
contour is inlined into the loop and the loop into the kernel, no deeper: numba copies the
whole inlined body at each level, so a wrapper level costs about as much compile time as
the contour itself. The search's start (:func:`search_start`) is therefore a kernel of its own.

The other IDA* kernels, each for one heuristic family, are in :mod:`solver.idastar_tiles`
(the per-tile heuristics: the benchmark's hot loop), :mod:`solver.idastar_lines`,
:mod:`solver.idastar_pdb` (pattern databases, alone or with walking distance) and
:mod:`solver.idastar_walk`; :mod:`solver.subtrees` runs the per-tile, PDB and general
contours below the roots of a split search.
"""

from typing import NamedTuple

import numpy as np

from .deepening import MAX_DEPTH, NO_BOUND, deepening, outputs
from .hstate import (
    HS_LEN,
    PARTS_LEN,
    child_parts,
    combine,
    commit_child,
    group_rank,
    h_init,
    lookup_sum,
    placed,
    slide,
    wd_step,
)
from .jit import inline_kernel, kernel
from .limits import limit_hit, next_check
from .memory import prefetch, table_addresses
from .status import BAD_HEURISTIC, RUNNING, SOLVED, TOO_DEEP
from .successors import (
    LIST_END,
    LIST_STRIDE,
    blank_of,
    is_goal,
    list_start,
    move_of,
    successor_lists,
    target_of,
    write_path,
)


class Node(NamedTuple):
    """A node :func:`contour` searches below, with the arrays it works in: the start
    (:func:`search_start`) or a split search's root (:func:`solver.subtrees._subtrees`)."""

    tiles: np.ndarray    # int64[N] the board, 0 = blank
    pos: np.ndarray      # int64[N] cell of each tile
    size: int            # board width n
    g0: int              # the node's depth
    last: int            # the move that made it (-1: none)
    q0: int              # its automaton state
    goal_pos: np.ndarray  # int64[N] goal cell of each tile
    lists: np.ndarray    # successor lists (:func:`solver.successors.successor_lists`)
    H: tuple             # the heuristic (:class:`solver.heuristics.KernelHeuristic`)
    rows: np.ndarray     # int64[MAX_DEPTH + 1, HS_LEN] heuristic parts per depth, ``rows[0]`` the node's
    parts: np.ndarray    # int64[PARTS_LEN] a child's parts, as worked out
    ranks: np.ndarray    # int64[RANKS_LEN] the children's table indices
    st_pos: np.ndarray   # uint64[MAX_DEPTH + 1] per depth, the position in the parent's list
    st_q: np.ndarray     # int64[MAX_DEPTH + 1] per depth, the automaton state
    path: np.ndarray     # int8[MAX_DEPTH] the moves below the node to a goal found
    fsm: np.ndarray      # int32[S * 4] pruning automaton, read if ``use_fsm``
    use_fsm: bool
    goal: np.ndarray     # int64[N] the goal board (what a plugin heuristic is given)


class Search(NamedTuple):
    """What :func:`contour` takes: the node, and a plugin heuristic to call if ``use_plug``;
    :func:`plugin_contour` also reads ``step`` if ``use_step`` and the plugin's h per depth."""

    node: Node
    plug: object
    use_plug: bool
    step: object         # the plugin's incremental form (:mod:`solver.plugins`)
    use_step: bool
    hs: np.ndarray       # int64[MAX_DEPTH + 1] the plugin's h of each node on the path (plugin alone)


RANKS_STRIDE = 4  # per depth: a table index for each of up to 4 moves
RANKS_LEN = (MAX_DEPTH + 1) * RANKS_STRIDE


@inline_kernel
def plan_children(lists, p, tiles, pos, b, tile_group, group_tiles, group_k, addr, refl_tile, refl_cell,
                  ranks, at, reflected=False):
    """Table index of each child in the list from ``p`` (the node's blank is ``b``) for its
    moved tile's group, to ``ranks[at + k]`` for child ``k``, with its entry prefetched
    (``reflected``: of the child's mirror image, for the mirrored tile's group).

    All the regular lookups of a node are issued before the first is read, so their cache
    and TLB misses overlap instead of following one another. (:func:`contour` plans no
    mirror lookups: most are skipped; the PDB loop plans them with tables larger than the
    caches, :func:`solver.idastar_pdb.mirrors_early`.)
    """
    k = 0
    while True:
        code = lists[p + np.uint64(k)]
        if code == LIST_END:
            break
        tgt = np.int64(target_of(code))
        t = np.uint64(tiles[np.uint64(tgt)])  # unsigned indices: no wraparound code
        g = tile_group[np.uint64(refl_tile[t])] if reflected else tile_group[t]
        if g >= 0:
            pos[t] = b  # the child's placement of the moved tile
            r = group_rank(pos, g, group_tiles, group_k, refl_tile, refl_cell, reflected)
            pos[t] = tgt
            ranks[np.uint64(at + k)] = r
            prefetch(addr[np.uint64(g)], r)
        k += 1


def idastar_contour(plugin_alone: bool):
    """The contour of :func:`_idastar` (:func:`contour`), or with ``plugin_alone`` the same
    search with h a plugin's value alone (:func:`plugin_contour`): numba drops the branches
    of the constant, so each compiles only its own heuristic's steps.
    """

    @inline_kernel
    def contour(ctx, bound, generated, expanded, check_at, limits, deadline):
        """One depth-first contour of :func:`_idastar` below a node at depth ``g0``, in the form
        :func:`solver.deepening.deepening` takes.

        ``ctx`` is a :class:`Search`, its ``node`` a :class:`Node` made by :func:`search_start`
        (the start) or :func:`solver.subtrees._subtrees` (a root). Children of the node and
        below are generated and counted as in the serial search; the node itself is not.

        With a reflected pattern database the mirror lookup is made only when it can matter:
        not for a child that the regular sum already cuts off with an f no smaller than the
        least f above the bound met so far, as the larger h could neither keep the child nor
        lower the next bound (the counts stay those of the full lookup); so is each further
        lookup (the other databases of a ``max`` of several). With ``use_plug``,
        h is also at least ``plug(tiles, goal)`` (a plugin heuristic, :mod:`solver.plugins`),
        called under the same rule; a negative value stops the search (``BAD_HEURISTIC``).

        Returns
        -------
        status : int64    RUNNING when the contour was searched to its end, else SOLVED or a limit
        generated, expanded : int64   the counters, carried on
        next_bound : int64  smallest f of a cut-off child (NO_BOUND: none)
        cost : int64      moves below the node to the goal (``path[:cost]``) when SOLVED
        check_at : int64  the next limit check
        """
        node = ctx.node
        plug = ctx.plug
        use_plug = ctx.use_plug
        step = ctx.step
        use_step = ctx.use_step
        hs = ctx.hs
        tiles = node.tiles
        pos = node.pos
        size = node.size
        g0 = node.g0
        goal_pos = node.goal_pos
        lists = node.lists
        H = node.H
        rows = node.rows
        parts = node.parts
        ranks = node.ranks
        st_pos = node.st_pos
        st_q = node.st_q
        path = node.path
        fsm = node.fsm
        use_fsm = node.use_fsm
        goal = node.goal
        # H's fields unpacked once before the loop, as in solver.graphsearch (measured there)
        tile_cost = H.tile_cost
        scale = H.scale
        use_lc = H.use_lc
        lc_code = H.lc_code
        lc_table = H.lc_table
        n_groups = H.n_groups
        tile_group = H.tile_group
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
        next_bound = np.int64(NO_BOUND)
        d = 0
        b = pos[0]
        q = node.q0
        p = list_start(b, node.last)
        if not plugin_alone and n_groups > 0:
            plan_children(lists, p, tiles, pos, b, tile_group, group_tiles, group_k, addr, refl_tile, refl_cell,
                          ranks, 0)
        while True:
            code = lists[p]
            if code == LIST_END:  # all children tried: back up
                if d == 0:
                    break
                d -= 1
                p = st_pos[d]
                pb = np.int64(blank_of(lists[p - np.uint64(1)]))
                slide(tiles, pos, b, pb)
                b = pb
                q = st_q[d]
                continue
            at = d * RANKS_STRIDE + np.int64(p % np.uint64(LIST_STRIDE))
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
            slide(tiles, pos, b, tgt)
            if plugin_alone:
                hc = np.int64(step(tiles, goal, hs[d], t, tgt, b) if use_step else plug(tiles, goal))
                if hc < 0:
                    return BAD_HEURISTIC, generated, expanded, next_bound, 0, check_at
                f = g0 + d + 1 + hc
            else:
                row = rows[d]
                w = wd_step(row, size, t, b, tgt, goal_row, goal_col, wd_link_v, wd_link_h,
                            parts) if use_wd else 0
                ht, lc, w = child_parts(tiles, size, t, b, tgt, row, tile_cost, scale, use_lc, lc_code, lc_table, w,
                                        terms, n_terms, parts)
                p_sum = np.int64(0)
                if n_groups > 0:
                    p_sum = lookup_sum(row, pos, t, 0, ranks[at], lookup_group, group_tiles, group_k, addr, lookup_refl,
                                       refl_tile, refl_cell, parts)
                hc = combine(ht, lc, p_sum, w, terms, n_terms)
                f = g0 + d + 1 + hc
                for i in range(1, n_lookups):
                    if f > bound and f >= next_bound:
                        break
                    q_sum = lookup_sum(row, pos, t, i, -1, lookup_group, group_tiles, group_k, addr, lookup_refl,
                                       refl_tile, refl_cell, parts)
                    if q_sum > p_sum:
                        p_sum = q_sum
                        hc = combine(ht, lc, q_sum, w, terms, n_terms)
                        f = g0 + d + 1 + hc
                if use_plug and (f <= bound or f < next_bound):
                    hp = plug(tiles, goal)
                    if hp < 0:
                        return BAD_HEURISTIC, generated, expanded, next_bound, 0, check_at
                    if hp > hc:
                        hc = hp
                        f = g0 + d + 1 + hc
            if f > bound:
                if f < next_bound:
                    next_bound = f
                slide(tiles, pos, tgt, b)
                continue
            if plugin_alone:
                hs[d + 1] = hc
            else:
                commit_child(rows, d, use_lc, n_groups, n_lookups, lookup_refl, use_wd, parts)
            st_pos[d] = p
            st_q[d] = q
            if hc == 0 and is_goal(tiles, goal_pos):
                write_path(path, lists, st_pos, d + 1)
                return SOLVED, generated, expanded, next_bound, d + 1, check_at
            if g0 + d + 1 >= MAX_DEPTH:
                return TOO_DEEP, generated, expanded, next_bound, 0, check_at
            expanded += 1
            d += 1
            b = tgt
            q = nq
            p = list_start(tgt, move_of(code))
            if not plugin_alone and n_groups > 0:
                plan_children(lists, p, tiles, pos, b, tile_group, group_tiles, group_k, addr, refl_tile, refl_cell,
                              ranks, d * RANKS_STRIDE)
        return RUNNING, generated, expanded, next_bound, 0, check_at

    return contour


contour = idastar_contour(False)
plugin_contour = idastar_contour(True)
_deepen = deepening(contour)
_deepen_plugin = deepening(plugin_contour)


@kernel
def _idastar(tiles8, size, goal_pos, nbr, H, limits, fsm, use_fsm):
    """IDA* for any heuristic, with parent or automaton pruning.

    Parameters
    ----------
    tiles8 : int8[N]      start board, row-major, 0 = blank; solvable, not the goal
    size : int            board width n
    goal_pos : int64[N]   goal cell of each tile
    nbr : int64[N, 4]     neighbour table (:func:`solver.geometry.neighbours`)
    H : KernelHeuristic   admissible heuristic arrays
    limits : int64[LIMITS_LEN]  node budget and time limit (:mod:`solver.limits`)
    fsm : int32[S * 4]    pruning automaton (:mod:`solver.fsm`), read if ``use_fsm``

    Returns
    -------
    status : int64        a code of :mod:`solver.status`
    path : int8[MAX_DEPTH]  moves of the solution in ``path[:cost]``
    cost, generated, expanded : int64
    bounds, iter_nodes : int64[MAX_ITERATIONS]  bound and nodes generated per iteration
    n_iter, h0 : int64
    """
    node, h0, path, bounds, iter_nodes = search_start(tiles8, size, goal_pos, nbr, H, fsm, use_fsm)
    return _deepen(built_in_search(node), h0, limits, path, bounds, iter_nodes)


@kernel
def no_plugin(tiles, goal):
    """The plugin argument of a search without one (never called)."""
    return 0


@kernel
def no_step(tiles, goal, h, tile, source, target):
    """The incremental form of a plugin without one (never called)."""
    return 0


@inline_kernel
def built_in_search(node):
    """The :class:`Search` below ``node`` with no plugin."""
    return Search(node=node, plug=no_plugin, use_plug=False, step=no_step, use_step=False,
                  hs=np.zeros(1, dtype=np.int64))


@inline_kernel
def idastar_search(tiles8, size, goal_pos, nbr, H, limits, fsm, use_fsm, plug):
    """:func:`_idastar` with h at least ``plug(tiles, goal)`` (a plugin heuristic in a ``max``)."""
    node, h0, path, bounds, iter_nodes = search_start(tiles8, size, goal_pos, nbr, H, fsm, use_fsm)
    hp = plug(node.tiles, node.goal)  # the boards, as the contour passes them to plug
    if hp < 0:
        return BAD_HEURISTIC, path, 0, np.int64(1), np.int64(0), bounds, iter_nodes, 0, h0
    ctx = Search(node=node, plug=plug, use_plug=True, step=no_step, use_step=False, hs=np.zeros(1, dtype=np.int64))
    return _deepen(ctx, max(h0, hp), limits, path, bounds, iter_nodes)


@inline_kernel
def plugin_search(tiles8, size, goal_pos, nbr, H, limits, fsm, use_fsm, plug, step, use_step):
    """IDA* with h = ``plug(tiles, goal)`` alone (``use_step``: a child's h from its parent's
    by ``step``, :mod:`solver.plugins`); ``H`` the heuristic's built-in part (none: h = 0),
    arguments and returns as :func:`_idastar`'s."""
    node, path, bounds, iter_nodes = start_node(tiles8, size, goal_pos, nbr, H, fsm, use_fsm)
    h0 = np.int64(plug(node.tiles, node.goal))
    if h0 < 0:
        return BAD_HEURISTIC, path, 0, np.int64(1), np.int64(0), bounds, iter_nodes, 0, h0
    hs = np.zeros(MAX_DEPTH + 1, dtype=np.int64)
    hs[0] = h0
    ctx = Search(node=node, plug=plug, use_plug=True, step=step, use_step=use_step, hs=hs)
    return _deepen_plugin(ctx, h0, limits, path, bounds, iter_nodes)


@kernel
def search_start(tiles8, size, goal_pos, nbr, H, fsm, use_fsm):
    """What the search of :func:`_idastar` starts from: the start's :class:`Node`, h of the
    start and the output arrays."""
    node, path, bounds, iter_nodes = start_node(tiles8, size, goal_pos, nbr, H, fsm, use_fsm)
    h0 = h_init(node.tiles, node.pos, size, H, node.rows, 0)
    return node, h0, path, bounds, iter_nodes


@inline_kernel
def start_node(tiles8, size, goal_pos, nbr, H, fsm, use_fsm):
    """The start's :class:`Node` (its heuristic parts ``rows[0]`` not yet worked out) and the
    output arrays."""
    tiles, pos = placed(tiles8)
    lists = successor_lists(nbr)
    rows = np.zeros((MAX_DEPTH + 1, HS_LEN), dtype=np.int64)
    parts = np.zeros(PARTS_LEN, dtype=np.int64)
    ranks = np.zeros(RANKS_LEN, dtype=np.int64)
    path, bounds, iter_nodes = outputs()
    st_pos = np.zeros(MAX_DEPTH + 1, dtype=np.uint64)
    st_q = np.zeros(MAX_DEPTH + 1, dtype=np.int64)
    node = Node(tiles=tiles, pos=pos, size=size, g0=0, last=-1, q0=0, goal_pos=goal_pos, lists=lists, H=H, rows=rows,
                parts=parts, ranks=ranks, st_pos=st_pos, st_q=st_q, path=path, fsm=fsm, use_fsm=use_fsm,
                goal=goal_board(goal_pos))
    return node, path, bounds, iter_nodes


@inline_kernel
def goal_board(goal_pos):
    """int64[N]: the goal board, from each tile's goal cell."""
    goal = np.empty(goal_pos.shape[0], dtype=np.int64)
    for t in range(goal_pos.shape[0]):
        goal[goal_pos[t]] = t
    return goal
