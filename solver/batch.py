"""Solving many boards of one (algorithm, heuristic) at once, results as columns.

:func:`solve.solve` prepares its heuristic, limits and kernel for each board and returns
a :class:`~solve.SolveResult`; for the short solves of a sweep of 8-puzzles that Python
work took longer than the search. :func:`solve_boards` prepares once and then only calls
the kernel per board (the same kernels, calls and clock as :mod:`solver.search`, so every
figure is the one ``solve`` gives), collecting the outputs into columns. Both start from
:func:`solve.prepare` and take their kernel from the table of :mod:`solver.kernels`; the
kernels with a batch form (:mod:`solver.batch_kernels`) run a whole batch in one compiled
call, timed per board inside it.

Boards the kernels do not take (unsolvable ones, the goal itself) are left to ``solve``:
:func:`kernel_boards` tells which.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import pyarrow as pa

from .batch_kernels import ASTAR_BOARDS
from .ebf import effective_branching_factor, round_digits
from .geometry import MOVES
from .heuristics import HeuristicSpec
from .jit import inline_kernel, kernel
from .kernels import pick, pick_batch, warm
from .search import _moves_text, timed
from .solve import RequestFields, prepare
from .status import OUTCOMES, SOLVED


def solvable_rows(boards: np.ndarray, goal: tuple[int, ...], size: int) -> np.ndarray:
    """``bool[k]``: the rows of ``boards`` (``int[k, N]``) that can reach ``goal``.

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
    return inversions % 2 == distance % 2


def kernel_boards(boards: np.ndarray, goal: tuple[int, ...], size: int) -> np.ndarray:
    """``bool[k]``: the rows of ``boards`` (``int[k, N]``) that are solvable and not the goal."""
    at_goal = (boards == np.array(goal, dtype=boards.dtype)).all(axis=1)
    return solvable_rows(boards, goal, size) & ~at_goal


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
    request: RequestFields  # the same for every board


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


def solve_boards(boards: np.ndarray, size: int, goal: tuple[int, ...], algorithm: str,
                 heuristic: HeuristicSpec, tables: tuple = (), max_nodes: int | None = None,
                 time_limit: float | None = None, max_memory: int | None = None,
                 prune: str = "parent", cpu_time_limit: float | None = None, conventions: str | None = None) -> Columns:
    """Solve every row of ``boards`` (``int8[k, N]``, all passing :func:`kernel_boards`)
    as :func:`solve.solve` would, with the same options; the figures as columns."""
    p = prepare(size, goal, algorithm, heuristic, tables, max_nodes, time_limit, max_memory, prune, cpu_time_limit,
                conventions)
    x, idastar = p.inputs, algorithm == "idastar"
    cols = Columns(*([] for _ in FIGURES), p.request)
    boards = np.ascontiguousarray(boards, dtype=np.int8)
    if (batch := pick_batch(x)) is not None:
        return _batched(cols, boards, *batch, x.goal, size)
    name, call = pick(x)
    warm(name, call, x.goal, size)
    iterations = [np.zeros((2, 0), dtype=np.int64)]  # IDA*: (bounds, nodes) of each board
    for tiles in boards:
        out, seconds, cpu_seconds = timed(call, tiles, x.limits)
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
    """``cols`` filled by one call of a batch ``kernel`` (:mod:`solver.batch_kernels`) over
    ``boards``: Arrow arrays from the kernel's, no Python per board."""
    warm(kernel.__name__, lambda tiles: kernel(tiles[None, :], *args), goal, size)
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
