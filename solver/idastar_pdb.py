"""IDA* with additive pattern databases (``pdb:<partition>[+reflect]``), alone or in a max with
walking distance (``max(pdb:...,walking-distance)``).

The same search as :func:`solver.idastar._idastar` (successor lists, the goal test at
generation within the bound, the root counted once, the mirror lookup only when it can
matter), keeping per depth only what a PDB heuristic needs: each group's value and their
sum, regular and reflected. A move changes one group and one reflected group, so a
child's h is one table read, and a second only when the regular sum does not already cut
the child off (:func:`solver.idastar.contour` explains why the counts stay those of the
full lookup). The regular lookups of a node's children are issued together
(:func:`solver.idastar.plan_children`), so their cache misses overlap; with tables larger
than the last-level cache the mirror lookups are too (:func:`mirrors_early`).
``fsm`` prunes move strings (:mod:`solver.fsm`) when ``use_fsm`` is set.

With zero-aware tables (``H.zero_aware``, :mod:`solver.zeroaware`) an index also names the
blank's region among the cells the group leaves free. A move of a tile of group g puts the
blank on a cell next to its old one that no other group holds, so the blank stays in its
region for every other group: a child still changes one group's value (and one mirrored
group's), read at the region of the child's blank.

With walking distance beside the database (:func:`_idastar_pdb_walk`) the search also keeps
the two walking-distance axis patterns per depth (:mod:`solver.walking`). A move changes one
axis pattern, so a child's walking distance is one read of a link table, made first; the
regular table is read only when it can decide, that is unless the walking distance already
cuts the child off with an f no smaller than the least f above the bound met so far (the
larger h could neither keep the child nor lower the next bound), and the mirror under the
same rule after it: the counts stay those of the general kernel, which reads all three
under that rule.
"""

from functools import lru_cache
from pathlib import Path
from typing import NamedTuple

import numpy as np

from .deepening import MAX_DEPTH, NO_BOUND, deepening, outputs
from .hstate import WD_MASK, group_rank, slide
from .idastar import RANKS_LEN, RANKS_STRIDE, plan_children
from .jit import inline_kernel, kernel
from .limits import limit_hit, next_check
from .memory import byte_at, data_address, prefetch, table_addresses
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
from .walking import WD_BITS
from .zeroaware import KEY_RECORD, group_index, group_key, key_index

#: The last-level cache assumed where the machine does not say (Linux's sysfs).
DEFAULT_CACHE_BYTES = 64 << 20
_UNITS = {"K": 1 << 10, "M": 1 << 20, "G": 1 << 30}


def cache_bytes(text: str) -> int:
    """A sysfs cache size (``491520K``, ``32M``, ``1048576``) in bytes."""
    text = text.strip()
    return int(text[:-1]) * _UNITS[text[-1]] if text[-1:] in _UNITS else int(text)


@lru_cache(maxsize=None)
def last_level_cache_bytes() -> int:
    """The largest CPU cache of this machine, :data:`DEFAULT_CACHE_BYTES` where sysfs has none."""
    sizes = []
    for path in Path("/sys/devices/system/cpu/cpu0/cache").glob("index*/size"):
        try:
            sizes.append(cache_bytes(path.read_text()))
        except (OSError, ValueError, KeyError):
            continue
    return max(sizes, default=DEFAULT_CACHE_BYTES)


def mirrors_early(H) -> bool:
    """Whether the mirror lookups are planned and prefetched with the regular ones: when a
    table is larger than the last-level cache, where waiting for memory costs more than
    computing mirror indices that the lookup skip then leaves unused. Measured on a machine
    with a 480 MiB cache: early for ``pdb:7-8+reflect`` (a 519 MB table: 1.12x the nodes per
    second of late mirrors on Korf's 100), late for ``pdb:6-6-6-6+reflect`` (127.5 MB tables:
    1.07x on Korf & Felner's #44, and 1.07-1.10x with the zero-aware tables):
    docs/pdb-speed.md."""
    return bool(H.reflect) and max(table.nbytes for table in H.tables[:H.n_groups]) > last_level_cache_bytes()


class PdbSearch(NamedTuple):
    """What :func:`_contour` takes (:func:`pdb_start` makes it)."""

    tiles: np.ndarray     # int64[N] the board the search stands on, 0 = blank
    pos: np.ndarray       # int64[N] cell of each tile
    goal_pos: np.ndarray  # int64[N] goal cell of each tile
    lists: np.ndarray     # successor lists (:func:`solver.successors.successor_lists`)
    H: tuple              # the heuristic (:class:`solver.heuristics.KernelHeuristic`)
    addr: np.ndarray      # each group's table address (:func:`solver.memory.table_addresses`)
    early_mirrors: bool   # plan and prefetch the mirror lookups with the regular ones
    vals: np.ndarray      # int64[MAX_DEPTH + 1, groups] each depth's group values ...
    rvals: np.ndarray     # ... and reflected values
    sums: np.ndarray      # int64[MAX_DEPTH + 1] each depth's sum of group values ...
    rsums: np.ndarray     # ... and of reflected values
    ranks: np.ndarray     # int64[RANKS_LEN] the children's table indices ...
    rranks: np.ndarray    # ... and their mirrors' (with ``early_mirrors``)
    st_pos: np.ndarray    # uint64[MAX_DEPTH + 1] per depth, the position in the parent's list
    st_q: np.ndarray      # int64[MAX_DEPTH + 1] per depth, the automaton state
    path: np.ndarray      # int8[MAX_DEPTH] the moves to a goal found
    fsm: np.ndarray       # int32[S * 4] pruning automaton, read if ``use_fsm``
    use_fsm: bool
    g0: int               # the depth of the node the contour starts at (a split search's root; 0: the start)
    last: int             # the move that made it (-1: none)
    q0: int               # its automaton state


class PdbWalkSearch(NamedTuple):
    """What the contour with walking distance takes: a PDB search's context and walking distance's."""

    pdb: PdbSearch
    step: np.ndarray  # int64[N * 4] as :func:`solver.idastar_walk._idastar_walk` takes it
    row: np.uint64    # a link table's row length (2n)
    wv: np.ndarray    # int64[MAX_DEPTH + 1] each depth's vertical ...
    wh: np.ndarray    # ... and horizontal axis pattern


@inline_kernel
def _start_values(pos, H, reflected, values):
    """Each group's value for the board (``reflected``: of its mirror image) into
    ``values[:n_groups]``; their sum (once a search or root: ``H`` is read by field)."""
    total = np.int64(0)
    for g in range(H.n_groups):
        if H.zero_aware:
            r = group_index(pos, g, pos[0], H.group_tiles, H.group_k, H.refl_tile, H.refl_cell, reflected,
                            H.za_records, H.za_first, H.za_regions, H.za_binom)
        else:
            r = group_rank(pos, g, H.group_tiles, H.group_k, H.refl_tile, H.refl_cell, reflected)
        v = np.int64(H.tables[g][r])
        values[g] = v
        total += v
    return total


@inline_kernel
def _plan_zero_aware(lists, p, tiles, pos, b, tile_group, group_tiles, group_k, addr, refl_tile, refl_cell, ranks,
                     at, reflected, records, first, regions, binom):
    """:func:`solver.idastar.plan_children` for zero-aware tables: each child's index
    (:func:`solver.zeroaware.group_index`) with its blank on the moved tile's cell, in two
    passes: the children's keys, their sets' records prefetched, then the indices, their
    entries prefetched (the misses of each pass overlap)."""
    rec = data_address(records)
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
            key = group_key(pos, g, tgt, group_tiles, group_k, refl_tile, refl_cell, reflected, first, binom)
            pos[t] = tgt
            ranks[np.uint64(at + k)] = key
            prefetch(rec, (key >> KEY_RECORD) * 8)
        k += 1
    for c in range(k):
        t = np.uint64(tiles[np.uint64(target_of(lists[p + np.uint64(c)]))])
        g = tile_group[np.uint64(refl_tile[t])] if reflected else tile_group[t]
        if g >= 0:
            r = key_index(ranks[np.uint64(at + c)], records, regions[g])
            ranks[np.uint64(at + c)] = r
            prefetch(addr[np.uint64(g)], r)


@inline_kernel
def _plan_placements(lists, p, tiles, pos, b, tile_group, group_tiles, group_k, addr, refl_tile, refl_cell, ranks, at,
                     reflected, records, first, regions, binom):
    """:func:`solver.idastar.plan_children`, taking (and ignoring) what the zero-aware
    plan reads besides."""
    plan_children(lists, p, tiles, pos, b, tile_group, group_tiles, group_k, addr, refl_tile, refl_cell, ranks, at,
                  reflected)


@inline_kernel
def _placement_rank(pos, g, blank, group_tiles, group_k, refl_tile, refl_cell, reflected, records, first, regions,
                    binom):
    """:func:`solver.hstate.group_rank`, taking (and ignoring) what
    :func:`solver.zeroaware.group_index` reads besides."""
    return group_rank(pos, g, group_tiles, group_k, refl_tile, refl_cell, reflected)


@inline_kernel
def _zero_aware_arrays(H):
    """What the zero-aware lookups read besides the placement's arrays."""
    return H.za_records, H.za_first, H.za_regions, H.za_binom


@inline_kernel
def _no_arrays(ctx):
    """Scalars in the place of four arrays a kernel does not read (nothing to count references of)."""
    return 0, 0, 0, 0


@inline_kernel
def _walk_arrays(ctx):
    """What walking distance reads besides ``H``'s link tables (``ctx``: a :class:`PdbWalkSearch`)."""
    return ctx.step, ctx.row, ctx.wv, ctx.wh


@inline_kernel
def _pdb_of(ctx):
    """A :class:`PdbWalkSearch`'s database search."""
    return ctx.pdb


@inline_kernel
def _itself(search):
    """A :class:`PdbSearch`, as :func:`_pdb_of` gives it."""
    return search


def pdb_contour(zero_aware: bool, walk: bool = False):
    """The contour kernel for tables of one kind (placement-indexed, or zero-aware), alone or
    with walking distance beside them (``walk``: the max of one database and walking distance).

    The kind's lookups and the walking distance are picked here, before numba compiles
    anything, so each kernel holds no trace of the others (no flag tested per node, no extra
    arrays live across the loop): a flag read at run time made it 2.5-5x slower.
    """
    plan = _plan_zero_aware if zero_aware else _plan_placements
    mirror_index = group_index if zero_aware else _placement_rank
    extra_arrays = _zero_aware_arrays if zero_aware else _no_arrays
    search_of = _pdb_of if walk else _itself
    walk_arrays = _walk_arrays if walk else _no_arrays

    @inline_kernel
    def contour(ctx, bound, generated, expanded, check_at, limits, deadline):
        """One depth-first contour below the node at depth ``g0``, as
        :func:`solver.idastar.contour`, in the form :func:`solver.deepening.deepening`
        takes; ``ctx`` is a :class:`PdbSearch` (:func:`pdb_start`, or :func:`pdb_root` for a
        split search's root), or with ``walk`` a :class:`PdbWalkSearch`."""
        search = search_of(ctx)
        tiles = search.tiles
        pos = search.pos
        goal_pos = search.goal_pos
        lists = search.lists
        n_groups = search.H.n_groups
        tile_group = search.H.tile_group
        group_tiles = search.H.group_tiles
        group_k = search.H.group_k
        reflect = search.H.reflect
        refl_tile = search.H.refl_tile
        refl_cell = search.H.refl_cell
        wd_link_v = search.H.wd_link_v
        wd_link_h = search.H.wd_link_h
        addr = search.addr
        early_mirrors = search.early_mirrors
        vals = search.vals
        rvals = search.rvals
        sums = search.sums
        rsums = search.rsums
        ranks = search.ranks
        rranks = search.rranks
        st_pos = search.st_pos
        st_q = search.st_q
        path = search.path
        fsm = search.fsm
        use_fsm = search.use_fsm
        g0 = search.g0
        za_records, za_first, za_regions, za_binom = extra_arrays(search.H)
        step, row, wv, wh = walk_arrays(ctx)
        next_bound = np.int64(NO_BOUND)
        d = 0
        b = pos[0]
        q = search.q0
        p = list_start(b, search.last)
        plan(lists, p, tiles, pos, b, tile_group, group_tiles, group_k, addr, refl_tile, refl_cell, ranks, 0, False,
             za_records, za_first, za_regions, za_binom)
        if early_mirrors:
            plan(lists, p, tiles, pos, b, tile_group, group_tiles, group_k, addr, refl_tile, refl_cell, rranks, 0,
                 True, za_records, za_first, za_regions, za_binom)
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
            # unsigned indices below: numba adds no negative-index wraparound to their reads
            du = np.uint64(d)
            tgt = np.int64(target_of(code))
            t = np.uint64(tiles[np.uint64(tgt)])
            hc = np.int64(0)
            if walk:  # one link-table read; the board moves only for a child kept
                m = move_of(code)
                v2, h2 = wv[du], wh[du]
                k = np.uint64(step[t * np.uint64(4) + np.uint64(m)])
                if m == 0 or m == 3:  # U or D: the tile changes row
                    v2 = np.int64(wd_link_v[np.uint64(v2 >> WD_BITS) * row + k])
                else:
                    h2 = np.int64(wd_link_h[np.uint64(h2 >> WD_BITS) * row + k])
                hc = (v2 & WD_MASK) + (h2 & WD_MASK)
            else:
                slide(tiles, pos, b, tgt)
            f = g0 + d + 1 + hc
            g, v, h = -1, np.int64(0), sums[du]
            # walking distance leaves the table to decide unless it cut the child off with an
            # f no smaller than the least f above the bound met so far
            if not walk or f <= bound or f < next_bound:
                g = tile_group[t]
                if g >= 0:
                    v = byte_at(addr[np.uint64(g)], ranks[np.uint64(at)])
                    h += v - vals[du, np.uint64(g)]
                if not walk or h > hc:
                    hc = h
                    f = g0 + d + 1 + hc
            g2, w, rh = -1, np.int64(0), np.int64(0)
            if reflect and (f <= bound or f < next_bound):
                g2 = tile_group[np.uint64(refl_tile[t])]
                rh = rsums[du]
                if g2 >= 0:
                    if early_mirrors:
                        r = rranks[np.uint64(at)]
                    else:  # the child's blank is on tgt
                        if walk:
                            pos[t] = b  # the child's placement of the moved tile, on the board not moved
                        r = mirror_index(pos, g2, tgt, group_tiles, group_k, refl_tile, refl_cell, True, za_records,
                                         za_first, za_regions, za_binom)
                        if walk:
                            pos[t] = tgt
                    w = byte_at(addr[np.uint64(g2)], r)
                    rh += w - rvals[du, np.uint64(g2)]
                if rh > hc:
                    hc = rh
                    f = g0 + d + 1 + hc
            if f > bound:
                if f < next_bound:
                    next_bound = f
                if not walk:
                    slide(tiles, pos, tgt, b)
                continue
            if walk:
                slide(tiles, pos, b, tgt)
                wv[du + np.uint64(1)] = v2
                wh[du + np.uint64(1)] = h2
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
            plan(lists, p, tiles, pos, b, tile_group, group_tiles, group_k, addr, refl_tile, refl_cell, ranks,
                 d * RANKS_STRIDE, False, za_records, za_first, za_regions, za_binom)
            if early_mirrors:
                plan(lists, p, tiles, pos, b, tile_group, group_tiles, group_k, addr, refl_tile, refl_cell, rranks,
                     d * RANKS_STRIDE, True, za_records, za_first, za_regions, za_binom)
        return RUNNING, generated, expanded, next_bound, 0, check_at

    return contour


_contour = pdb_contour(False)
_contour_zero_aware = pdb_contour(True)
_contour_walk = pdb_contour(False, walk=True)
_deepen = deepening(_contour)
_deepen_zero_aware = deepening(_contour_zero_aware)
_deepen_walk = deepening(_contour_walk)


@kernel
def _idastar_pdb(tiles8, goal_pos, nbr, H, limits, fsm, use_fsm, early_mirrors):
    """IDA* with an additive PDB heuristic (``H.terms`` is the PDB sum alone), with parent
    or automaton pruning; arguments and returns as :func:`solver.idastar._idastar`.
    ``early_mirrors`` (with ``+reflect``): compute and prefetch the mirror lookups of a
    node's children with the regular ones (:func:`mirrors_early`)."""
    ctx, h0, bounds, iter_nodes = pdb_start(tiles8, goal_pos, nbr, H, fsm, use_fsm, early_mirrors)
    return _deepen(ctx, h0, limits, ctx.path, bounds, iter_nodes)


@kernel
def _idastar_pdb_zero_aware(tiles8, goal_pos, nbr, H, limits, fsm, use_fsm, early_mirrors):
    """:func:`_idastar_pdb` for zero-aware tables (``H.zero_aware``)."""
    ctx, h0, bounds, iter_nodes = pdb_start(tiles8, goal_pos, nbr, H, fsm, use_fsm, early_mirrors)
    return _deepen_zero_aware(ctx, h0, limits, ctx.path, bounds, iter_nodes)


@kernel
def _idastar_pdb_walk(tiles8, size, goal_pos, nbr, H, limits, fsm, use_fsm, early_mirrors, step, v0, h0):
    """IDA* with h = max(PDB sum (and its mirror with ``+reflect``), walking distance), with
    parent or automaton pruning; arguments as :func:`_idastar_pdb`, and ``size``, ``step``,
    ``v0``, ``h0`` as :func:`solver.idastar_walk._idastar_walk` takes them (the link tables
    are ``H``'s); returns as :func:`solver.idastar._idastar`."""
    pdb, h, bounds, iter_nodes = pdb_start(tiles8, goal_pos, nbr, H, fsm, use_fsm, early_mirrors)
    wv = np.zeros(MAX_DEPTH + 1, dtype=np.int64)
    wh = np.zeros(MAX_DEPTH + 1, dtype=np.int64)
    wv[0], wh[0] = v0, h0
    h = max(h, (v0 & WD_MASK) + (h0 & WD_MASK))
    ctx = PdbWalkSearch(pdb=pdb, step=step, row=np.uint64(2 * size), wv=wv, wh=wh)
    return _deepen_walk(ctx, h, limits, pdb.path, bounds, iter_nodes)


@inline_kernel
def pdb_start(tiles8, goal_pos, nbr, H, fsm, use_fsm, early_mirrors):
    """What a PDB search starts from: its :class:`PdbSearch`, h of the start (the larger of
    the sum and, with ``+reflect``, the mirror's sum) and the bounds and iteration arrays;
    arguments as :func:`_idastar_pdb`."""
    path, bounds, iter_nodes = outputs()
    ctx, h0 = pdb_root(pdb_context(tiles8.shape[0], goal_pos, nbr, H, fsm, use_fsm, early_mirrors, path), tiles8,
                       0, -1, 0)
    return ctx, h0, bounds, iter_nodes


@inline_kernel
def pdb_context(n, goal_pos, nbr, H, fsm, use_fsm, early_mirrors, path):
    """A :class:`PdbSearch` for boards of ``n`` cells, on no board yet (:func:`pdb_root`
    puts it on one); ``path`` receives the moves to a goal."""
    vals = np.zeros((MAX_DEPTH + 1, max(H.n_groups, 1)), dtype=np.int64)
    rvals = np.zeros((MAX_DEPTH + 1, max(H.n_groups, 1)), dtype=np.int64)
    early = early_mirrors and H.reflect  # out of the call: numba takes no control flow among keywords
    return PdbSearch(tiles=np.zeros(n, dtype=np.int64), pos=np.zeros(n, dtype=np.int64), goal_pos=goal_pos,
                     lists=successor_lists(nbr), H=H, addr=table_addresses(H.tables), early_mirrors=early, vals=vals,
                     rvals=rvals, sums=np.zeros(MAX_DEPTH + 1, dtype=np.int64),
                     rsums=np.zeros(MAX_DEPTH + 1, dtype=np.int64), ranks=np.zeros(RANKS_LEN, dtype=np.int64),
                     rranks=np.zeros(RANKS_LEN, dtype=np.int64), st_pos=np.zeros(MAX_DEPTH + 1, dtype=np.uint64),
                     st_q=np.zeros(MAX_DEPTH + 1, dtype=np.int64), path=path, fsm=fsm, use_fsm=use_fsm, g0=0,
                     last=-1, q0=0)


@inline_kernel
def pdb_root(ctx, tiles8, g0, last, q0):
    """``ctx`` put on the board ``tiles8`` (int8[N]), a node at depth ``g0`` made by move
    ``last`` (-1: none) in automaton state ``q0``: the :class:`PdbSearch` that searches below
    it (on ``ctx``'s arrays, rewritten) and its h (the larger of the sum and, with
    ``+reflect``, the mirror's sum)."""
    H = ctx.H
    for c in range(tiles8.shape[0]):
        ctx.tiles[c] = tiles8[c]
        ctx.pos[tiles8[c]] = c
    ctx.sums[0] = _start_values(ctx.pos, H, False, ctx.vals[0])
    h = ctx.sums[0]
    if H.reflect:
        ctx.rsums[0] = _start_values(ctx.pos, H, True, ctx.rvals[0])
        h = max(h, ctx.rsums[0])
    return PdbSearch(tiles=ctx.tiles, pos=ctx.pos, goal_pos=ctx.goal_pos, lists=ctx.lists, H=H, addr=ctx.addr,
                     early_mirrors=ctx.early_mirrors, vals=ctx.vals, rvals=ctx.rvals, sums=ctx.sums,
                     rsums=ctx.rsums, ranks=ctx.ranks, rranks=ctx.rranks, st_pos=ctx.st_pos, st_q=ctx.st_q,
                     path=ctx.path, fsm=ctx.fsm, use_fsm=ctx.use_fsm, g0=g0, last=last, q0=q0), h
