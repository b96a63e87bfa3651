"""The batch kernels: one compiled call solves many boards, each timed inside it.

A sweep of short 8-puzzle solves spent about as long in the Python around each kernel call
(unboxing the heuristic's arrays, building the row) as in the search; the packed A*
(:data:`ASTAR_BOARDS`) and IDA* with a per-tile heuristic (:func:`_idastar_tiles_boards`)
run a whole batch in one call instead. :mod:`solver.kernels` says which request runs in
which; :mod:`solver.batch` turns their outputs into columns.
"""

import numpy as np

from .astar import (
    H_LINES,
    H_PDB,
    H_PER_TILE,
    HMODE_NAMES,
    _astar_lines,
    _astar_parts,
    _astar_pdb,
    _astar_tiles,
)
from .ebf import _bisect
from .idastar_tiles import _idastar_tiles_in, tiles_workspace
from .jit import inline_kernel, kernel
from .limits import finished_late, monotonic_ns, thread_cpu_ns
from .statetable import grow_rows
from .status import SOLVED
from .successors import successor_lists, tile_deltas


@inline_kernel
def _record(i, code, path, cost, gen, exp, h0, nanos, cpu_nanos, out, moves, used):
    """Store board ``i``'s figures in ``out`` (int64 rows: code, cost, generated, expanded,
    h0, wall nanoseconds, end of its path in ``moves``, thread CPU nanoseconds); append a
    solved path to ``moves`` (grown as needed); return (moves, used)."""
    out[0, i], out[2, i], out[3, i], out[4, i], out[5, i], out[7, i] = code, gen, exp, h0, nanos, cpu_nanos
    if code == SOLVED:
        out[1, i] = cost
        while used + cost > moves.shape[0]:
            moves = grow_rows(moves, used)
        for m in range(cost):  # not a slice copy, whose shape check compiles an error message
            moves[used + m] = path[m]
        used += cost
    out[6, i] = used
    return moves, used


@inline_kernel
def _ebf(out, i):
    """The unrounded effective branching factor of board ``i`` (NaN unless solved with cost > 0)."""
    if out[0, i] == SOLVED and out[1, i] > 0:
        return _bisect(float(out[2, i]), out[1, i])
    return np.nan


def _astar_boards_kernel(hmode: int):
    """The batch kernel over the packed A* kernel of ``hmode`` (a constant of the closure:
    numba keeps the one call it makes)."""

    def boards_kernel(boards, size, goal_key, nbr8, H, lists, delta, hcols, limits):
        """:func:`solver.astar._astar_kernel`'s kernel on each row of ``boards`` (``int8[k, N]``,
        C-contiguous, solvable, not the goal), the other arguments as there; each board under
        ``limits``.

        Returns
        -------
        out : int64[8, k]     per board: code, cost (0 unless solved), nodes generated and
                              expanded, h0, monotonic nanoseconds of its search, where its
                              path ends in ``moves`` (it starts where the previous one ends),
                              and the thread CPU nanoseconds of its search
        ebf : float64[k]      unrounded effective branching factor (NaN: unsolved or cost 0)
        max_depth : int64[k]  as the A* kernel returns it
        moves : int8[total]   the solved boards' paths, one after another
        """
        k = boards.shape[0]
        out, ebf, depths = np.zeros((8, k), dtype=np.int64), np.empty(k), np.zeros(k, dtype=np.int64)
        moves, used = np.zeros(32 * k + 1, dtype=np.int8), 0
        for i in range(k):
            start, cpu_start = monotonic_ns(), thread_cpu_ns()
            if hmode == H_PER_TILE:
                result = _astar_tiles(boards[i], size, goal_key, nbr8, H, lists, delta, hcols, limits)
            elif hmode == H_LINES:
                result = _astar_lines(boards[i], size, goal_key, nbr8, H, lists, delta, hcols, limits)
            elif hmode == H_PDB:
                result = _astar_pdb(boards[i], size, goal_key, nbr8, H, lists, delta, hcols, limits)
            else:
                result = _astar_parts(boards[i], size, goal_key, nbr8, H, lists, delta, hcols, limits)
            code, path, cost, gen, exp, depths[i], h0 = result
            cpu = thread_cpu_ns() - cpu_start
            nanos = monotonic_ns() - start
            code = finished_late(code, nanos, cpu, limits)
            moves, used = _record(i, code, path, cost, gen, exp, h0, nanos, cpu, out, moves, used)
            ebf[i] = _ebf(out, i)
        return out, ebf, depths, moves[:used]

    boards_kernel.__name__ = boards_kernel.__qualname__ = f"_astar_boards_{HMODE_NAMES[hmode]}"
    return kernel(boards_kernel)


ASTAR_BOARDS = tuple(_astar_boards_kernel(hmode) for hmode in range(len(HMODE_NAMES)))  # by hmode


@kernel
def _idastar_tiles_boards(boards, goal_pos, nbr8, tile_cost, scale, limits, fsm, use_fsm):
    """:func:`solver.idastar_tiles._idastar_tiles` on each row of ``boards`` (as in
    :data:`ASTAR_BOARDS`), the other arguments as there.

    Returns
    -------
    out, ebf, moves       as :data:`ASTAR_BOARDS`
    bounds, iter_nodes : int64[total]  every board's iterations (bound, nodes generated),
                          one board after another
    iter_ends : int64[k]  where each board's iterations end in them
    """
    k = boards.shape[0]
    out, ebf = np.zeros((8, k), dtype=np.int64), np.empty(k)
    moves, used = np.zeros(32 * k + 1, dtype=np.int8), 0
    all_bounds, all_nodes = np.zeros(8 * k + 1, dtype=np.int64), np.zeros(8 * k + 1, dtype=np.int64)
    iter_ends, n_used = np.zeros(k, dtype=np.int64), 0
    # made once for the batch: made per board, inside the timed solve, they took 5-6 % of
    # an 8-puzzle's search seconds
    lists, delta, work = successor_lists(nbr8), tile_deltas(nbr8, tile_cost), tiles_workspace()
    for i in range(k):
        start, cpu_start = monotonic_ns(), thread_cpu_ns()
        code, path, cost, gen, exp, bounds, iter_nodes, n_iter, h0 = _idastar_tiles_in(
            boards[i], goal_pos, lists, delta, tile_cost, scale, limits, fsm, use_fsm, work)
        cpu = thread_cpu_ns() - cpu_start
        nanos = monotonic_ns() - start
        code = finished_late(code, nanos, cpu, limits)
        moves, used = _record(i, code, path, cost, gen, exp, h0, nanos, cpu, out, moves, used)
        ebf[i] = _ebf(out, i)
        while n_used + n_iter > all_bounds.shape[0]:
            all_bounds, all_nodes = grow_rows(all_bounds, n_used), grow_rows(all_nodes, n_used)
        all_bounds[n_used:n_used + n_iter] = bounds[:n_iter]
        all_nodes[n_used:n_used + n_iter] = iter_nodes[:n_iter]
        n_used += n_iter
        iter_ends[i] = n_used
    return out, ebf, moves[:used], all_bounds[:n_used], all_nodes[:n_used], iter_ends
