"""Solving many boards of one (algorithm, heuristic) at once, results as columns.

:func:`solve.solve` prepares its heuristic, limits and kernel for each board and returns
a :class:`~solve.SolveResult`; for the short solves of a sweep of 8-puzzles that Python
work took longer than the search. :func:`solve_boards` prepares once and then only calls
the kernel per board (the same kernels, calls and clock as :mod:`solver.search`, so every
figure is the one ``solve`` gives), collecting the outputs into columns. The packed A*
and IDA* with a per-tile heuristic run a whole batch in one compiled call
(:data:`ASTAR_BOARDS`, :func:`_idastar_tiles_boards`), timed per board inside it: a
sweep of short 8-puzzle solves spent about as long in the Python around each kernel call
(unboxing the heuristic's arrays, building the row) as in the search.

Boards the kernels do not take (unsolvable ones, the goal itself) are left to ``solve``:
:func:`kernel_boards` tells which.
"""

from __future__ import annotations

import time
from dataclasses import dataclass

import numpy as np
import pyarrow as pa

from .astar import (
    H_LINES,
    H_PARTS,
    H_PDB,
    H_PER_TILE,
    HMODE_NAMES,
    _astar_lines,
    _astar_parts,
    _astar_pdb,
    _astar_tiles,
)
from .ebf import _bisect, effective_branching_factor, round_digits
from .fsm import automaton as fsm_automaton, parse_pruning
from .geometry import MOVES
from .graphsearch import ASTAR, BFS, DFS
from .heuristics import HeuristicSpec, kernel_heuristic
from .idastar import _idastar_tiles_in, successor_lists, tile_deltas, tiles_workspace
from .jit import inline_kernel, kernel
from .limits import UNLIMITED, finished_late, monotonic_ns, thread_cpu_ns
from .search import (
    _WARM,
    _moves_text,
    graph_call,
    idastar_call,
    near_goal,
    packed_astar_args,
    packed_astar_serves,
    serves_tiles_kernel,
    tiles_kernel_args,
)
from .solve import (
    BYTES_PER_STATE,
    INFORMED,
    check_algorithm,
    check_budget,
    check_memory,
    check_time_limits,
    max_states,
    resolve_goal,
    solve_limits,
)
from .statetable import grow_rows
from .status import OUTCOMES, SOLVED

GRAPH_KINDS = {"astar": ASTAR, "bfs": BFS, "dfs": DFS}


def kernel_boards(boards: np.ndarray, goal: tuple[int, ...], size: int) -> np.ndarray:
    """``bool[k]``: the rows of ``boards`` (``int[k, N]``) that are solvable and not the goal.

    Parity as :func:`solver.board.is_solvable` decides it, for all rows at once: the
    inversions of the goal cells of the tiles, against the blank's taxicab distance.
    """
    goal_pos = np.empty(len(goal), dtype=np.int64)
    goal_pos[list(goal)] = np.arange(len(goal))
    cells = goal_pos[boards.astype(np.int64)]
    n = cells.shape[1]
    upper = np.triu(np.ones((n, n), dtype=bool), 1)
    inversions = ((cells[:, :, None] > cells[:, None, :]) & upper).sum(axis=(1, 2))
    blank = np.argmax(boards == 0, axis=1)
    target = goal_pos[0]
    distance = np.abs(blank // size - target // size) + np.abs(blank % size - target % size)
    at_goal = (boards == np.array(goal, dtype=boards.dtype)).all(axis=1)
    return (inversions % 2 == distance % 2) & ~at_goal


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


_astar_boards_tiles = _astar_boards_kernel(H_PER_TILE)
_astar_boards_lines = _astar_boards_kernel(H_LINES)
_astar_boards_pdb = _astar_boards_kernel(H_PDB)
_astar_boards_parts = _astar_boards_kernel(H_PARTS)
ASTAR_BOARDS = (_astar_boards_tiles, _astar_boards_lines, _astar_boards_pdb, _astar_boards_parts)  # by hmode


@kernel
def _idastar_tiles_boards(boards, goal_pos, nbr8, tile_cost, scale, limits, fsm, use_fsm):
    """:func:`solver.idastar._idastar_tiles` on each row of ``boards`` (as in
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


@dataclass
class Columns:
    """The figures of ``k`` solves as Arrow arrays of ``k`` entries (null where a figure
    does not apply): what :class:`~solve.SolveResult` holds, minus what is per sweep."""

    status: pa.Array
    status_reason: pa.Array
    cost: pa.Array
    moves: pa.Array
    nodes_generated: pa.Array
    nodes_expanded: pa.Array
    ebf: pa.Array
    h0: pa.Array
    seconds: pa.Array
    iterations: pa.Array  # JSON text (IDA*) or null
    max_depth: pa.Array
    cpu_seconds: pa.Array
    heuristic: str
    max_nodes: int | None
    time_limit: float | None
    max_memory: int | None
    pruning: str
    cpu_time_limit: float | None


FIGURES = {"status": pa.string(), "status_reason": pa.string(), "cost": pa.int64(), "moves": pa.string(),
           "nodes_generated": pa.int64(), "nodes_expanded": pa.int64(), "ebf": pa.float64(), "h0": pa.int64(),
           "seconds": pa.float64(), "iterations": pa.string(), "max_depth": pa.int64(),
           "cpu_seconds": pa.float64()}
_CODES = np.array(sorted(OUTCOMES))
_STATUS = pa.array([OUTCOMES[c][0] for c in _CODES], pa.string())
_REASON = pa.array([OUTCOMES[c][1] for c in _CODES], pa.string())
_LETTERS = np.frombuffer(MOVES.encode(), dtype=np.uint8)
_OPENER = np.frombuffer(b'{"bound":', dtype=np.uint8)
_MIDDLE = np.frombuffer(b',"nodes_generated":', dtype=np.uint8)


def text_array(data: np.ndarray, ends: np.ndarray, valid: np.ndarray | None = None) -> pa.Array:
    """Arrow strings ``data[ends[i - 1]:ends[i]]`` (UTF-8 bytes laid one after another),
    null where ``valid`` is False: no Python string per entry."""
    offsets = np.zeros(len(ends) + 1, dtype=np.int32)
    offsets[1:] = ends
    bitmap = None if valid is None else pa.py_buffer(np.packbits(valid, bitorder="little"))
    return pa.Array.from_buffers(pa.string(), len(ends), [bitmap, pa.py_buffer(offsets),
                                                          pa.py_buffer(np.ascontiguousarray(data, np.uint8))])


@inline_kernel
def _put_int(buf, at, value):
    """Write the decimal digits of ``value`` (>= 0) at ``buf[at]``; return the end."""
    n = 1
    v = value
    while v >= 10:
        v //= 10
        n += 1
    for i in range(n - 1, -1, -1):
        buf[at + i] = 48 + value % 10
        value //= 10
    return at + n


@inline_kernel
def _put(buf, at, piece):
    buf[at:at + piece.shape[0]] = piece
    return at + piece.shape[0]


@kernel
def _tiles_text(boards):
    """Each row of ``boards`` as the ``tiles`` column writes it (``"8 6 7 2 5 4 3 0 1"``):
    bytes one row after another, and where each ends."""
    k, n = boards.shape
    buf = np.empty(k * n * 3, dtype=np.uint8)
    ends = np.empty(k, dtype=np.int64)
    at = 0
    for i in range(k):
        for c in range(n):
            if c > 0:
                buf[at] = 32
                at += 1
            at = _put_int(buf, at, np.int64(boards[i, c]))
        ends[i] = at
    return buf[:at], ends


@kernel
def _iterations_text(bounds, nodes, iter_ends, opener, middle):
    """Each board's iterations as JSON text (``[{"bound":B,"nodes_generated":N},...]``):
    bytes one board after another, and where each ends."""
    k = iter_ends.shape[0]
    buf = np.empty(bounds.shape[0] * (opener.shape[0] + middle.shape[0] + 42) + 2 * k, dtype=np.uint8)
    ends = np.empty(k, dtype=np.int64)
    at, j = 0, 0
    for i in range(k):
        buf[at] = 91  # [
        at += 1
        first = True
        while j < iter_ends[i]:
            if not first:
                buf[at] = 44  # ,
                at += 1
            first = False
            at = _put(buf, at, opener)
            at = _put_int(buf, at, bounds[j])
            at = _put(buf, at, middle)
            at = _put_int(buf, at, nodes[j])
            buf[at] = 125  # }
            at += 1
            j += 1
        buf[at] = 93  # ]
        at += 1
        ends[i] = at
    return buf[:at], ends


def tiles_texts(boards: np.ndarray) -> pa.Array:
    """The ``tiles`` column of ``boards`` (``int[k, N]``)."""
    return text_array(*_tiles_text(np.ascontiguousarray(boards, dtype=np.int8)))


def _kernel_call(algorithm: str, size: int, goal: tuple[int, ...], H, limits, automaton):
    """(warm-up name, ``call(tiles8)``): the kernel :mod:`solver.search` runs for these."""
    if algorithm in GRAPH_KINDS:
        return graph_call(GRAPH_KINDS[algorithm], size, goal, H, limits, automaton)
    return idastar_call(size, goal, H, limits, automaton)


def solve_boards(boards: np.ndarray, size: int, goal: tuple[int, ...], algorithm: str,
                 heuristic: HeuristicSpec, tables: tuple = (), max_nodes: int | None = None,
                 time_limit: float | None = None, max_memory: int | None = None,
                 prune: str = "parent", cpu_time_limit: float | None = None) -> Columns:
    """Solve every row of ``boards`` (``int8[k, N]``, all passing :func:`kernel_boards`)
    as :func:`solve.solve` would, with the same options; the figures as columns."""
    goal = resolve_goal(goal, size)
    check_algorithm(algorithm)
    budget = check_budget(max_nodes, algorithm)
    time_limit, cpu_time_limit = check_time_limits(time_limit, cpu_time_limit)
    max_memory = check_memory(max_memory) if algorithm in BYTES_PER_STATE else None
    H = kernel_heuristic(heuristic, size, goal, tuple(tables))
    limits = solve_limits(budget, time_limit, cpu_time_limit, max_states(algorithm, max_memory))
    pruning = parse_pruning(prune, size)
    automaton = fsm_automaton(size, pruning.depth) if pruning.kind == "fsm" else None
    idastar = algorithm == "idastar"
    cols = Columns(*([] for _ in FIGURES), heuristic.name if algorithm in INFORMED else "none",
                   None if budget == UNLIMITED else budget, time_limit, max_memory, str(pruning), cpu_time_limit)
    boards = np.ascontiguousarray(boards, dtype=np.int8)
    if not idastar and packed_astar_serves(GRAPH_KINDS[algorithm], size, automaton):
        hmode, args = packed_astar_args(size, goal, H, limits)
        return _batched(cols, boards, ASTAR_BOARDS[hmode], args, goal, size)
    if idastar and serves_tiles_kernel(H):
        return _batched(cols, boards, _idastar_tiles_boards, tiles_kernel_args(size, goal, H, limits, automaton),
                        goal, size)
    name, call = _kernel_call(algorithm, size, goal, H, limits, automaton)
    if name not in _WARM:  # compile (or load) the kernel outside the clock, as search does
        call(near_goal(goal, size))
        _WARM.add(name)
    iterations = [np.zeros((2, 0), dtype=np.int64)]  # IDA*: (bounds, nodes) of each board
    for tiles in boards:
        start, cpu_start = time.perf_counter(), time.thread_time()
        out = call(tiles)
        cpu_seconds, seconds = time.thread_time() - cpu_start, time.perf_counter() - start
        out = (finished_late(out[0], int(seconds * 1e9), int(cpu_seconds * 1e9), limits), *out[1:])
        if idastar:
            code, path, cost, gen, exp, bounds, iter_nodes, n_iter, h0 = out
            iterations.append(np.stack([bounds[:n_iter], iter_nodes[:n_iter]]))
            cols.max_depth.append(None)
        else:
            code, path, cost, gen, exp, max_depth, h0 = out
            cols.iterations.append(None)
            cols.max_depth.append(int(max_depth))
        status, reason = OUTCOMES[int(code)]
        solved = code == SOLVED
        cols.status.append(status)
        cols.status_reason.append(reason)
        cols.nodes_generated.append(int(gen))
        cols.nodes_expanded.append(int(exp))
        cols.h0.append(int(h0))
        cols.seconds.append(seconds)
        cols.cpu_seconds.append(cpu_seconds)
        cols.cost.append(int(cost) if solved else None)
        cols.moves.append(_moves_text(path, int(cost)) if solved else None)
        cols.ebf.append(effective_branching_factor(int(gen), int(cost)) if solved else None)
    if idastar:
        ends = np.cumsum([piece.shape[1] for piece in iterations[1:]], dtype=np.int64)
        cols.iterations = _iterations_column(np.concatenate(iterations, axis=1), ends)
    for name, kind in FIGURES.items():
        if not isinstance(getattr(cols, name), pa.Array):
            setattr(cols, name, pa.array(getattr(cols, name), kind))
    return cols


def _iterations_column(iterations: np.ndarray, ends: np.ndarray) -> pa.Array:
    """The ``iterations`` column (JSON text, as :func:`jobs.schema.normalise_row` writes it)
    of boards whose (bound, nodes generated) pairs are the columns of ``iterations``, each
    board's ending at ``ends``."""
    return text_array(*_iterations_text(iterations[0], iterations[1], ends, _OPENER, _MIDDLE))


def _batched(cols: Columns, boards: np.ndarray, kernel, args: tuple, goal, size) -> Columns:
    """``cols`` filled by one call of a batch ``kernel`` (:data:`ASTAR_BOARDS` or
    :func:`_idastar_tiles_boards`) over ``boards``: Arrow arrays from the kernel's, no Python
    per board."""
    if kernel.__name__ not in _WARM:  # compile (or load) outside the clock, as search does
        kernel(near_goal(goal, size)[None, :], *args)
        _WARM.add(kernel.__name__)
    k = len(boards)
    if kernel in ASTAR_BOARDS:
        out, ebf, depths, moves = kernel(boards, *args)
        cols.max_depth, cols.iterations = pa.array(depths), pa.nulls(k, pa.string())
    else:
        out, ebf, moves, bounds, iter_nodes, iter_ends = kernel(boards, *args)
        cols.max_depth = pa.nulls(k, pa.int64())
        cols.iterations = _iterations_column(np.stack([bounds, iter_nodes]), iter_ends)
    codes, costs, gen, exp, h0, nanos, ends, cpu_nanos = out
    solved = codes == SOLVED
    outcome = pa.array(np.searchsorted(_CODES, codes))
    cols.status, cols.status_reason = _STATUS.take(outcome), _REASON.take(outcome)
    cols.cost = pa.array(costs, mask=~solved)
    cols.moves = text_array(_LETTERS[moves], ends, solved)
    cols.nodes_generated, cols.nodes_expanded, cols.h0 = pa.array(gen), pa.array(exp), pa.array(h0)
    cols.ebf = pa.array(round_digits(ebf), pa.float64(), mask=np.isnan(ebf))  # NaN: unsolved or cost 0
    cols.seconds, cols.cpu_seconds = pa.array(nanos * 1e-9), pa.array(cpu_nanos * 1e-9)
    return cols
