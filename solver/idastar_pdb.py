"""IDA* with additive pattern databases alone (``pdb:<partition>[+reflect]``).

The same search as :func:`solver.idastar._idastar` (successor lists, the goal test at
generation within the bound, the root counted once, the mirror lookup only when it can
matter), keeping per depth only what a PDB heuristic needs: each group's value and their
sum, regular and reflected. A move changes one group and one reflected group, so a
child's h is one table read, and a second only when the regular sum does not already cut
the child off (:func:`solver.idastar.contour` explains why the counts stay those of the
full lookup). The regular lookups of a node's children are issued together
(:func:`solver.idastar.plan_children`), so their cache misses overlap; with tables larger
than the caches the mirror lookups are too (:func:`mirrors_early`).
``fsm`` prunes move strings (:mod:`solver.fsm`) when ``use_fsm`` is set.
"""

import numpy as np

from .deepening import MAX_DEPTH, NO_BOUND, deepening, outputs
from .hstate import group_rank, slide
from .idastar import RANKS_LEN, RANKS_STRIDE, plan_children
from .jit import inline_kernel, kernel
from .limits import limit_hit, next_check
from .memory import byte_at, table_addresses
from .status import RUNNING, SOLVED, TOO_DEEP
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

# A table larger than this does not stay in the caches: its lookups go to memory.
CACHED_TABLE_BYTES = 64 << 20


def mirrors_early(H) -> bool:
    """Whether the mirror lookups are planned and prefetched with the regular ones: when a
    table is larger than the caches, where waiting for memory costs more than computing
    mirror indices that the lookup skip then leaves unused (measured on Korf's 100:
    docs/benchmarks.md)."""
    return bool(H.reflect) and max(table.nbytes for table in H.tables[:H.n_groups]) > CACHED_TABLE_BYTES


@inline_kernel
def _start_values(pos, n_groups, group_tiles, group_k, tables, refl_tile, refl_cell, reflected, values):
    """Each group's value for the board (``reflected``: of its mirror image) into
    ``values[:n_groups]``; their sum."""
    total = np.int64(0)
    for g in range(n_groups):
        v = np.int64(tables[g][group_rank(pos, g, group_tiles, group_k, refl_tile, refl_cell, reflected)])
        values[g] = v
        total += v
    return total


@inline_kernel
def _contour(ctx, bound, generated, expanded, check_at, limits, deadline):
    """One depth-first contour below the root, as :func:`solver.idastar.contour`, in the form
    :func:`solver.deepening.deepening` takes; in ``ctx``, ``vals``/``rvals``
    (int64[MAX_DEPTH + 1, groups]) and ``sums``/``rsums`` hold each depth's group values and
    sums, regular and reflected; ``addr`` has each group's table address
    (:func:`solver.hstate.table_addresses`). The root is the node ``tiles``/``pos`` show, at
    depth ``g0``, made by the move ``last`` (-1 at the start), in automaton state ``q0``:
    the start of a search, or a split search's subtree root (:mod:`solver.subtrees`)."""
    tiles, pos, goal_pos, lists, n_groups, tile_group, group_tiles, group_k, addr, reflect, early_mirrors, \
        refl_tile, refl_cell, vals, rvals, sums, rsums, ranks, rranks, st_pos, st_q, path, fsm, use_fsm, \
        g0, last, q0 = ctx
    next_bound = np.int64(NO_BOUND)
    d = 0
    b = pos[0]
    q = q0
    p = list_start(b, last)
    plan_children(lists, p, tiles, pos, b, tile_group, group_tiles, group_k, addr, refl_tile, refl_cell,
                  ranks, 0)
    if early_mirrors:
        plan_children(lists, p, tiles, pos, b, tile_group, group_tiles, group_k, addr, refl_tile, refl_cell,
                      rranks, 0, True)
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
        # unsigned indices below: numba adds no negative-index wraparound to their reads
        du = np.uint64(d)
        tgt = np.int64(target_of(code))
        t = np.uint64(tiles[np.uint64(tgt)])
        slide(tiles, pos, b, tgt)
        g = tile_group[t]
        h = sums[du]
        v = np.int64(0)
        if g >= 0:
            v = byte_at(addr[np.uint64(g)], ranks[np.uint64(at)])
            h += v - vals[du, np.uint64(g)]
        hc = h
        f = g0 + d + 1 + hc
        g2, w, rh = -1, np.int64(0), np.int64(0)
        if reflect and (f <= bound or f < next_bound):
            g2 = tile_group[np.uint64(refl_tile[t])]
            rh = rsums[du]
            if g2 >= 0:
                r = rranks[np.uint64(at)] if early_mirrors else group_rank(pos, g2, group_tiles, group_k, refl_tile,
                                                                           refl_cell, True)
                w = byte_at(addr[np.uint64(g2)], r)
                rh += w - rvals[du, np.uint64(g2)]
            if rh > hc:
                hc = rh
                f = g0 + d + 1 + hc
        if f > bound:
            if f < next_bound:
                next_bound = f
            slide(tiles, pos, tgt, b)
            continue
        for k in range(n_groups):  # a loop, not a slice copy: slices cost reference counts per node
            vals[du + np.uint64(1), np.uint64(k)] = vals[du, np.uint64(k)]
        sums[du + np.uint64(1)] = h
        if g >= 0:
            vals[du + np.uint64(1), np.uint64(g)] = v
        if reflect:
            for k in range(n_groups):
                rvals[du + np.uint64(1), np.uint64(k)] = rvals[du, np.uint64(k)]
            rsums[du + np.uint64(1)] = rh
            if g2 >= 0:
                rvals[du + np.uint64(1), np.uint64(g2)] = w
        st_pos[du] = p
        st_q[du] = q
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
        plan_children(lists, p, tiles, pos, b, tile_group, group_tiles, group_k, addr, refl_tile, refl_cell,
                      ranks, d * RANKS_STRIDE)
        if early_mirrors:
            plan_children(lists, p, tiles, pos, b, tile_group, group_tiles, group_k, addr, refl_tile, refl_cell,
                          rranks, d * RANKS_STRIDE, True)
    return RUNNING, generated, expanded, next_bound, 0, check_at


_deepen = deepening(_contour)


@kernel
def _idastar_pdb(tiles8, goal_pos, nbr, H, limits, fsm, use_fsm, early_mirrors):
    """IDA* with an additive PDB heuristic (``H.terms`` is the PDB sum alone), with parent
    or automaton pruning; arguments and returns as :func:`solver.idastar._idastar`.
    ``early_mirrors`` (with ``+reflect``): compute and prefetch the mirror lookups of a
    node's children with the regular ones (:func:`mirrors_early`)."""
    n_groups = H.n_groups
    tile_group = H.tile_group
    group_tiles = H.group_tiles
    group_k = H.group_k
    tables = H.tables
    reflect = H.reflect
    refl_tile = H.refl_tile
    refl_cell = H.refl_cell
    n = tiles8.shape[0]
    tiles = tiles8.astype(np.int64)
    pos = np.empty(n, dtype=np.int64)
    for c in range(n):
        pos[tiles[c]] = c
    lists = successor_lists(nbr)
    vals = np.zeros((MAX_DEPTH + 1, max(n_groups, 1)), dtype=np.int64)
    rvals = np.zeros((MAX_DEPTH + 1, max(n_groups, 1)), dtype=np.int64)
    sums = np.zeros(MAX_DEPTH + 1, dtype=np.int64)
    rsums = np.zeros(MAX_DEPTH + 1, dtype=np.int64)
    ranks = np.zeros(RANKS_LEN, dtype=np.int64)
    rranks = np.zeros(RANKS_LEN, dtype=np.int64)
    path, bounds, iter_nodes = outputs()
    st_pos = np.zeros(MAX_DEPTH + 1, dtype=np.uint64)
    st_q = np.zeros(MAX_DEPTH + 1, dtype=np.int64)
    sums[0] = _start_values(pos, n_groups, group_tiles, group_k, tables, refl_tile, refl_cell, False, vals[0])
    h0 = sums[0]
    if reflect:
        rsums[0] = _start_values(pos, n_groups, group_tiles, group_k, tables, refl_tile, refl_cell, True, rvals[0])
        h0 = max(h0, rsums[0])
    early = early_mirrors and reflect
    addr = table_addresses(tables)
    ctx = (tiles, pos, goal_pos, lists, n_groups, tile_group, group_tiles, group_k, addr, reflect, early, refl_tile,
           refl_cell, vals, rvals, sums, rsums, ranks, rranks, st_pos, st_q, path, fsm, use_fsm, np.int64(0),
           np.int64(-1), np.int64(0))
    return _deepen(ctx, h0, limits, path, bounds, iter_nodes)
