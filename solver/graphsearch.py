"""A*, breadth-first and depth-first graph search as numba kernels.

All three keep one node per distinct board (:mod:`solver.statetable`) and share the
accounting of DESIGN.md: the root counts as generated; each child created after parent
pruning counts as generated, even when it is already known; a node counts as expanded
when its children are generated.

* A* (Hart, Nilsson & Raphael 1968): f = g + h; the goal test is made when a node is
  taken from the open list. Ties on f go to the larger g, then to the earlier
  insertion. A child reached by a shorter path than the best known gets that g and is
  pushed again (a closed board is reopened); stale heap entries are skipped on pop, so
  the result is optimal for any admissible heuristic, consistent or not.
* BFS: FIFO order; the goal test is made when a child is generated (optimal for unit
  costs).
* DFS: the graph DFS of classic course solvers: a LIFO stack, children pushed in
  reverse so ``U`` is tried first, boards seen before are not pushed again; the goal
  test is made when a child is generated. Not optimal: it reports the path it found.
"""

import numpy as np

from .hstate import HS_LEN, PARTS_LEN, child_h, h_init, placed, slide, wd_step
from .idastar import goal_board, no_plugin
from .jit import inline_kernel, kernel
from .limits import LIMIT_STATES, limit_hit, next_check, start_counts
from .memory import table_addresses
from .statetable import EMPTY, find_board, grow_rows, node_store, rebuild_index, trace_path, unpack, with_room
from .status import BAD_HEURISTIC, BUDGET_MEMORY, EXHAUSTED, RUNNING, SOLVED, TOO_DEEP
from .successors import is_goal

ASTAR, BFS, DFS = 0, 1, 2
MAX_G = 1023  # the most moves a path may have: A*'s heap key holds g in 10 bits
_SEQ_BITS = 42


@inline_kernel
def _heap_push(keys, nodes, size, key, node):
    """Push onto the binary min-heap; return the (possibly regrown) arrays."""
    if size == keys.shape[0]:
        keys = grow_rows(keys, size)
        nodes = grow_rows(nodes, size)
    i = size
    while i > 0:
        up = (i - 1) >> 1
        if keys[up] <= key:
            break
        keys[i] = keys[up]
        nodes[i] = nodes[up]
        i = up
    keys[i] = key
    nodes[i] = node
    return keys, nodes


@inline_kernel
def _heap_pop(keys, nodes, size):
    """Remove the minimum of a heap of ``size`` items; return (key, node)."""
    top_key, top_node = keys[0], nodes[0]
    size -= 1
    key, node = keys[size], nodes[size]
    i = 0
    while True:
        child = 2 * i + 1
        if child >= size:
            break
        if child + 1 < size and keys[child + 1] < keys[child]:
            child += 1
        if keys[child] >= key:
            break
        keys[i] = keys[child]
        nodes[i] = nodes[child]
        i = child
    keys[i] = key
    nodes[i] = node
    return top_key, top_node


@inline_kernel
def _priority(f, g, seq):
    """Heap key: f ascending, then g descending, then insertion order."""
    return (np.int64(f) << 52) | (np.int64(MAX_G - g) << _SEQ_BITS) | np.int64(seq)


@kernel
def _graph_search(kind, tiles8, size, goal_pos, nbr, H, limits, fsm, use_fsm):
    """Run A* (``kind`` 0), BFS (1) or DFS (2) from ``tiles8``, for a heuristic without
    pattern databases (:func:`graph_search_kernel` picks this or :func:`_graph_search_pdb`).

    Parameters
    ----------
    kind : int            ASTAR, BFS or DFS
    tiles8 : int8[N]      start board (solvable)
    size : int            board width
    goal_pos : int64[N]   goal cell of each tile
    nbr : int64[N, 4]     neighbour table
    H : KernelHeuristic   heuristic (A* only uses it; h0 is reported for all)
    fsm : int32[S * 4]    pruning automaton (:mod:`solver.fsm`, the strict table), read
                          if ``use_fsm`` in place of parent pruning
    limits : int64[LIMITS_LEN]  node budget, time limit and the most boards the node
                          store may hold (:mod:`solver.limits`); the store doubles, so it
                          stops (``BUDGET_MEMORY``) before a doubling would exceed that

    Returns
    -------
    status : int64        a code of :mod:`solver.status`
    path : int8[cost]     the moves found
    cost, generated, expanded, max_depth, h0 : int64
    """
    return graph_search(kind, tiles8, size, goal_pos, nbr, H, limits, fsm, use_fsm, no_plugin, False, False)


@kernel
def _graph_search_pdb(kind, tiles8, size, goal_pos, nbr, H, limits, fsm, use_fsm):
    """:func:`_graph_search` for a heuristic with pattern databases."""
    return graph_search(kind, tiles8, size, goal_pos, nbr, H, limits, fsm, use_fsm, no_plugin, False, True)


def graph_search_kernel(H):
    """The kernel of :func:`_graph_search` for ``H``: the one without the pattern-database
    code when ``H`` has none (that code, never run, made the search 5-10 % slower)."""
    return _graph_search_pdb if H.n_groups > 0 else _graph_search


@inline_kernel
def graph_search(kind, tiles8, size, goal_pos, nbr, H, limits, fsm, use_fsm, plug, use_plug, with_pdb):
    """The search of :func:`_graph_search`; with ``use_plug`` A* also calls ``plug``; the
    pattern-database code is compiled in only ``with_pdb`` (a constant of the caller)."""
    # Unpacked once: read at their use in the loop, H's fields ran A* on 1,000 8-puzzles at
    # 2.4-2.7 M nodes/s against 3.1 (benchmarks/solver_speed.py --korf, 2026-12-07).
    tile_cost = H.tile_cost
    scale = H.scale
    use_lc = H.use_lc
    lc_code = H.lc_code
    lc_table = H.lc_table
    n_groups = H.n_groups if with_pdb else 0
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
    tiles, pos = placed(tiles8)
    rows = np.zeros((1, HS_LEN), dtype=np.int64)
    parts = np.zeros(PARTS_LEN, dtype=np.int64)
    h0 = h_init(tiles, pos, size, H, rows, 0)
    goal = goal_board(goal_pos)
    empty_path = np.zeros(0, dtype=np.int8)
    if use_plug:
        hp = plug(tiles, goal)
        if hp < 0:
            return BAD_HEURISTIC, empty_path, 0, 1, 0, 0, h0
        h0 = max(h0, hp)
    if is_goal(tiles, goal_pos):
        return SOLVED, empty_path, 0, 1, 0, 0, h0

    keys, gs, parents, moves, slots = node_store(tiles)
    qs = np.zeros(keys.shape[0], dtype=np.int32)  # automaton state of each node's path
    count, max_depth = 1, 0  # boards stored, the largest g among them
    heap_keys = np.zeros(keys.shape[0], dtype=np.int64)   # A*: priorities; DFS: unused
    frontier = np.zeros(keys.shape[0], dtype=np.int64)    # A*: heap nodes; DFS: the stack
    frontier_len = 0
    if kind == ASTAR:
        heap_keys, frontier = _heap_push(heap_keys, frontier, 0, _priority(h0, 0, 0), 0)
        frontier_len = 1
    elif kind == DFS:
        frontier[0] = 0
        frontier_len = 1
    head = 0  # BFS: the next node to expand, in creation order
    generated, expanded, deadline, check_at = start_counts(limits)
    seq = 1
    children = np.zeros(4, dtype=np.int64)
    while True:
        # take the next node to expand
        if kind == ASTAR:
            if frontier_len == 0:
                break
            key, node = _heap_pop(heap_keys, frontier, frontier_len)
            frontier_len -= 1
            if MAX_G - ((key >> _SEQ_BITS) & MAX_G) != gs[node]:
                continue  # stale: a shorter path to this board was pushed later
        elif kind == BFS:
            if head == count:
                break
            node = head
            head += 1
        else:
            if frontier_len == 0:
                break
            frontier_len -= 1
            node = frontier[frontier_len]
        unpack(keys[node, 0], keys[node, 1], tiles, pos)
        g = gs[node]
        if kind == ASTAR and is_goal(tiles, goal_pos):
            path = np.zeros(g, dtype=np.int8)
            trace_path(parents, moves, node, path)
            return SOLVED, path, g, generated, expanded, max_depth, h0
        if kind == ASTAR and g + 1 > MAX_G:  # the heap key holds g in 10 bits
            return TOO_DEEP, empty_path, 0, generated, expanded, max_depth, h0
        expanded += 1
        if kind == ASTAR:
            h_init(tiles, pos, size, H, rows, 0)
        blank = pos[0]
        n_children = 0
        for m in range(4):
            nq = 0
            if use_fsm:
                nq = fsm[qs[node] * 4 + m]
                if nq < 0:
                    continue  # a shorter path reaches the child: not generated
            elif m == 3 - moves[node]:
                continue  # parent pruning
            tgt = nbr[blank, m]
            if tgt < 0:
                continue
            if generated >= check_at:
                hit = limit_hit(generated, limits, deadline)
                if hit != RUNNING:
                    return hit, empty_path, 0, generated, expanded, max_depth, h0
                check_at = next_check(generated, limits)
            generated += 1
            t = tiles[tgt]
            slide(tiles, pos, blank, tgt)
            hc = 0
            if kind == ASTAR:
                w = wd_step(rows[0], size, t, blank, tgt, goal_row, goal_col, wd_link_v, wd_link_h,
                            parts) if use_wd else 0
                hc = child_h(tiles, pos, size, t, blank, tgt, rows, 0, tile_cost, scale, use_lc,
                             lc_code, lc_table, n_groups, group_tiles, group_k, n_lookups, lookup_group, lookup_refl,
                             addr, refl_tile, refl_cell, w, terms, n_terms,
                             parts)
                if use_plug:
                    hp = plug(tiles, goal)
                    if hp < 0:
                        return BAD_HEURISTIC, empty_path, 0, generated, expanded, max_depth, h0
                    hc = max(hc, hp)
            k1, k2, slot, known = find_board(slots, keys, tiles)
            if known == EMPTY or (kind == ASTAR and gs[known] > g + 1):
                if known == EMPTY:
                    if count == keys.shape[0]:
                        if 2 * count > limits[LIMIT_STATES]:
                            return BUDGET_MEMORY, empty_path, 0, generated, expanded, max_depth, h0
                        keys, gs, parents, moves, qs = with_room(count, keys, gs, parents, moves, qs)
                    known = count
                    count += 1
                    keys[known, 0], keys[known, 1] = k1, k2
                    slots[slot] = known
                gs[known] = g + 1
                parents[known] = node
                moves[known] = m
                qs[known] = nq
                if g + 1 > max_depth:
                    max_depth = g + 1
                if kind == ASTAR:
                    heap_keys, frontier = _heap_push(heap_keys, frontier, frontier_len,
                                                     _priority(g + 1 + hc, g + 1, seq), known)
                    frontier_len += 1
                    seq += 1
                else:
                    children[n_children] = known
                    n_children += 1
                    if is_goal(tiles, goal_pos):
                        path = np.zeros(g + 1, dtype=np.int8)
                        trace_path(parents, moves, known, path)
                        return SOLVED, path, g + 1, generated, expanded, max_depth, h0
            slide(tiles, pos, tgt, blank)
        if kind == DFS:
            for i in range(n_children - 1, -1, -1):  # U ends on top of the stack
                if frontier_len == frontier.shape[0]:
                    frontier = grow_rows(frontier, frontier_len)
                frontier[frontier_len] = children[i]
                frontier_len += 1
        if 2 * count > slots.shape[0]:
            slots = rebuild_index(keys, count, 4 * slots.shape[0])
    return EXHAUSTED, empty_path, 0, generated, expanded, max_depth, h0
