"""IDA* with the larger of a pattern database and walking distance (``max(pdb:...,walking-distance)``).

The search of :func:`solver.idastar_pdb._idastar_pdb` with walking distance beside the
database: per depth it keeps each group's value and their sum, regular and reflected, and
the two walking-distance axis patterns (:mod:`solver.walking`). A move changes one axis
pattern, one group and one reflected group, so a child's walking distance is one read of
a link table and its database values one table read each. The walking distance is read
first; the regular table only when it can decide, that is unless the walking distance
already cuts the child off with an f no smaller than the least f above the bound met so
far (the larger h could neither keep the child nor lower the next bound), and the mirror
under the same rule after it: the counts stay those of the general kernel
(:func:`solver.idastar.contour`), which reads all three under that rule. The regular
lookups of a node's children are planned and prefetched together
(:func:`solver.idastar.plan_children`), the mirror ones too with tables larger than the
caches (:func:`solver.idastar_pdb.mirrors_early`). ``fsm`` prunes move strings
(:mod:`solver.fsm`) when ``use_fsm`` is set.
"""

from typing import NamedTuple

import numpy as np

from .deepening import MAX_DEPTH, NO_BOUND, deepening
from .hstate import WD_MASK, group_rank, slide
from .idastar import RANKS_STRIDE, plan_children
from .idastar_pdb import PdbSearch, pdb_start
from .jit import inline_kernel, kernel
from .limits import limit_hit, next_check
from .memory import byte_at
from .status import RUNNING, SOLVED, TOO_DEEP
from .successors import LIST_END, LIST_STRIDE, blank_of, is_goal, list_start, move_of, target_of, write_path
from .walking import WD_BITS


class PdbWalkSearch(NamedTuple):
    """What :func:`_contour` takes: a PDB search's context and walking distance's."""

    pdb: PdbSearch
    step: np.ndarray  # int64[N * 4] as :func:`solver.idastar_walk._idastar_walk` takes it
    row: np.uint64    # a link table's row length (2n)
    wv: np.ndarray    # int64[MAX_DEPTH + 1] each depth's vertical ...
    wh: np.ndarray    # ... and horizontal axis pattern


@inline_kernel
def _contour(ctx, bound, generated, expanded, check_at, limits, deadline):
    """One depth-first contour below the root, as :func:`solver.idastar.contour`, in the form
    :func:`solver.deepening.deepening` takes; ``ctx`` is a :class:`PdbWalkSearch`."""
    pdb = ctx.pdb
    tiles = pdb.tiles
    pos = pdb.pos
    goal_pos = pdb.goal_pos
    lists = pdb.lists
    n_groups = pdb.H.n_groups
    tile_group = pdb.H.tile_group
    group_tiles = pdb.H.group_tiles
    group_k = pdb.H.group_k
    reflect = pdb.H.reflect
    refl_tile = pdb.H.refl_tile
    refl_cell = pdb.H.refl_cell
    wd_link_v = pdb.H.wd_link_v
    wd_link_h = pdb.H.wd_link_h
    addr = pdb.addr
    early_mirrors = pdb.early_mirrors
    vals = pdb.vals
    rvals = pdb.rvals
    sums = pdb.sums
    rsums = pdb.rsums
    ranks = pdb.ranks
    rranks = pdb.rranks
    st_pos = pdb.st_pos
    st_q = pdb.st_q
    path = pdb.path
    fsm = pdb.fsm
    use_fsm = pdb.use_fsm
    step = ctx.step
    row = ctx.row
    wv = ctx.wv
    wh = ctx.wh
    next_bound = np.int64(NO_BOUND)
    d = 0
    b = pos[0]
    q = 0
    p = list_start(b, -1)
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
        # unsigned indices below: numba adds no negative-index wraparound to their reads
        du = np.uint64(d)
        tgt = np.int64(target_of(code))
        t = np.uint64(tiles[np.uint64(tgt)])
        v2, h2 = wv[du], wh[du]
        k = np.uint64(step[t * np.uint64(4) + np.uint64(m)])
        if m == 0 or m == 3:  # U or D: the tile changes row
            v2 = np.int64(wd_link_v[np.uint64(v2 >> WD_BITS) * row + k])
        else:
            h2 = np.int64(wd_link_h[np.uint64(h2 >> WD_BITS) * row + k])
        hc = (v2 & WD_MASK) + (h2 & WD_MASK)
        f = d + 1 + hc
        g, v, h = -1, np.int64(0), sums[du]
        g2, w, rh = -1, np.int64(0), rsums[du]
        if f <= bound or f < next_bound:
            g = tile_group[t]
            if g >= 0:
                v = byte_at(addr[np.uint64(g)], ranks[np.uint64(at)])
                h += v - vals[du, np.uint64(g)]
            if h > hc:
                hc = h
                f = d + 1 + hc
            if reflect and (f <= bound or f < next_bound):
                g2 = tile_group[np.uint64(refl_tile[t])]
                if g2 >= 0:
                    if early_mirrors:
                        r = rranks[np.uint64(at)]
                    else:
                        pos[t] = b  # the child's placement of the moved tile, as plan_children
                        r = group_rank(pos, g2, group_tiles, group_k, refl_tile, refl_cell, True)
                        pos[t] = tgt
                    w = byte_at(addr[np.uint64(g2)], r)
                    rh += w - rvals[du, np.uint64(g2)]
                if rh > hc:
                    hc = rh
                    f = d + 1 + hc
        if f > bound:
            if f < next_bound:
                next_bound = f
            continue
        slide(tiles, pos, b, tgt)
        # a kept child had every lookup made: f <= bound let each through
        for j in range(n_groups):  # a loop, not a slice copy: slices cost reference counts per node
            vals[du + np.uint64(1), np.uint64(j)] = vals[du, np.uint64(j)]
        sums[du + np.uint64(1)] = h
        if g >= 0:
            vals[du + np.uint64(1), np.uint64(g)] = v
        if reflect:
            for j in range(n_groups):
                rvals[du + np.uint64(1), np.uint64(j)] = rvals[du, np.uint64(j)]
            rsums[du + np.uint64(1)] = rh
            if g2 >= 0:
                rvals[du + np.uint64(1), np.uint64(g2)] = w
        wv[du + np.uint64(1)] = v2
        wh[du + np.uint64(1)] = h2
        st_pos[du] = p
        st_q[du] = q
        if hc == 0 and is_goal(tiles, goal_pos):
            write_path(path, lists, st_pos, d + 1)
            return SOLVED, generated, expanded, next_bound, d + 1, check_at
        if d + 1 >= MAX_DEPTH:
            return TOO_DEEP, generated, expanded, next_bound, 0, check_at
        expanded += 1
        d += 1
        b = tgt
        q = nq
        p = list_start(tgt, m)
        plan_children(lists, p, tiles, pos, b, tile_group, group_tiles, group_k, addr, refl_tile, refl_cell,
                      ranks, d * RANKS_STRIDE)
        if early_mirrors:
            plan_children(lists, p, tiles, pos, b, tile_group, group_tiles, group_k, addr, refl_tile, refl_cell,
                          rranks, d * RANKS_STRIDE, True)
    return RUNNING, generated, expanded, next_bound, 0, check_at


_deepen = deepening(_contour)


@kernel
def _idastar_pdb_walk(tiles8, size, goal_pos, nbr, H, limits, fsm, use_fsm, early_mirrors, step, v0, h0):
    """IDA* with h = max(PDB sum (and its mirror with ``+reflect``), walking distance), with
    parent or automaton pruning; arguments as :func:`solver.idastar_pdb._idastar_pdb`, and
    ``size``, ``step``, ``v0``, ``h0`` as :func:`solver.idastar_walk._idastar_walk` takes them (the
    link tables are ``H``'s); returns as :func:`solver.idastar._idastar`."""
    pdb, hr, bounds, iter_nodes = pdb_start(tiles8, goal_pos, nbr, H, fsm, use_fsm, early_mirrors)
    wv = np.zeros(MAX_DEPTH + 1, dtype=np.int64)
    wh = np.zeros(MAX_DEPTH + 1, dtype=np.int64)
    wv[0], wh[0] = v0, h0
    hr = max(hr, (v0 & WD_MASK) + (h0 & WD_MASK))
    ctx = PdbWalkSearch(pdb=pdb, step=step, row=np.uint64(2 * size), wv=wv, wh=wh)
    return _deepen(ctx, hr, limits, pdb.path, bounds, iter_nodes)
