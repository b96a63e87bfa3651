"""Calls the kernels and turns their raw outputs into a :class:`SolveResult`."""

from __future__ import annotations

import time

import numpy as np

from .ebf import effective_branching_factor
from .geometry import MOVES
from .heuristics import PluginHeuristic
from .hstate import h_many
from .kernels import GRAPH_KINDS, KernelInputs, pick, warm
from .limits import finished_late
from .plugin_kernels import plugin_kernels
from .plugins import board_error
from .status import SOLVED, outcome
from .zeroaware import zero_aware_h_many


def heuristic_of(board, goal, H) -> int:
    """h of ``board``."""
    h = int(_built_in_values(board.array()[None, :], board.size, H.base if isinstance(H, PluginHeuristic) else H)[0])
    if isinstance(H, PluginHeuristic):
        return max(h, int(H.plug(board.array().astype(np.int64), H.goal)))
    return h


def heuristic_values(boards: np.ndarray, size: int, H) -> np.ndarray:
    """h of each row of ``boards`` (int8[M, N]): int64[M]. A plugin that raises or returns
    a negative h on one of them is :class:`~.plugins.PluginError` naming it and the board,
    as a search refuses it (a negative value is never clamped to 0 here)."""
    if isinstance(H, PluginHeuristic):
        return np.maximum(_built_in_values(boards, size, H.base), _plugin_values(boards, H))
    return _built_in_values(boards, size, H)


def _built_in_values(boards: np.ndarray, size: int, H) -> np.ndarray:
    """h of each row of ``boards`` by the built-in parts ``H`` (zero-aware tables have a
    kernel of their own: :func:`~.zeroaware.zero_aware_h_many`)."""
    return zero_aware_h_many(boards, H) if H.zero_aware else h_many(boards, size, H)


def _plugin_values(boards: np.ndarray, H: PluginHeuristic) -> np.ndarray:
    try:
        values = plugin_kernels(H.plugins).plugin_values(boards, H.goal)
        if values.min(initial=0) >= 0:
            return values
    except Exception:  # noqa: BLE001, S110 - the user's code raised inside the kernel: board_error finds where
        pass
    raise board_error([name for name, _ in H.plugins], boards, H.goal)


_MOVE_LETTERS = bytes.maketrans(bytes(range(len(MOVES))), MOVES.encode())


def _moves_text(path: np.ndarray, cost: int) -> str:
    return path[:cost].tobytes().translate(_MOVE_LETTERS).decode()


def _finish(result, code, path, cost, generated, expanded, h0, seconds, cpu_seconds):
    result.status, result.status_reason = outcome(code)
    result.nodes_generated = int(generated)
    result.nodes_expanded = int(expanded)
    result.h0 = int(h0)
    result.seconds, result.cpu_seconds = seconds, cpu_seconds
    if result.status == "solved":
        result.cost = int(cost)
        result.moves = _moves_text(path, int(cost))
        result.ebf = effective_branching_factor(result.nodes_generated, result.cost)
    return result


def timed(call, tiles: np.ndarray, limits: np.ndarray) -> tuple[tuple, float, float]:
    """``call(tiles)``'s outputs (its code LATE if it solved after the time limit of
    ``limits``), its wall seconds and its thread CPU seconds."""
    # The CPU clock (~0.7 us a read) is read outside the wall clock (~0.07 us): ``seconds``
    # is the kernel call's alone.
    cpu_start = time.thread_time()
    start = time.perf_counter()
    out = call(tiles)
    seconds = time.perf_counter() - start
    cpu = time.thread_time() - cpu_start
    return (finished_late(out[0], int(seconds * 1e9), int(cpu * 1e9), limits), *out[1:]), seconds, cpu


def _solved_at_start(result, h0):
    """The start is the goal: cost 0, the root generated, nothing expanded."""
    result.iterations = [{"bound": h0, "nodes_generated": 1}] if result.algorithm == "idastar" else None
    result.max_depth = None if result.algorithm == "idastar" else 0
    return _finish(result, SOLVED, np.zeros(0, np.int8), 0, 1, 0, h0, 0.0, 0.0)


def idastar_call(size, goal, H, limits, automaton=None):
    """The IDA* kernel call for ``H`` and its warm-up name (:func:`solver.kernels.pick`);
    it prunes with ``automaton`` (:mod:`solver.fsm`) when given one."""
    return pick(KernelInputs("idastar", size, tuple(goal), H, limits, automaton))


def graph_call(kind, size, goal, H, limits, automaton=None):
    """The call of the A*/BFS/DFS kernel (``kind``, :mod:`solver.graphsearch`) and its warm-up
    name (:func:`solver.kernels.pick`). ``automaton``: :mod:`solver.fsm`, or None."""
    algorithm = next(name for name, k in GRAPH_KINDS.items() if k == kind)
    return pick(KernelInputs(algorithm, size, tuple(goal), H, limits, automaton))


def _run_kernel(x: KernelInputs, board, result):
    """Run the kernel :func:`solver.kernels.pick` gives (compiled before the clocks start)."""
    name, call = pick(x)
    warm(name, call, x.goal, board.size)
    out, seconds, cpu = timed(call, board.array(), x.limits)
    if x.algorithm == "idastar":
        status, path, cost, gen, exp, bounds, iter_nodes, n_iter, h0 = out
        result.iterations = [{"bound": b, "nodes_generated": k}
                             for b, k in zip(bounds[:n_iter].tolist(), iter_nodes[:n_iter].tolist(), strict=True)]
    else:
        status, path, cost, gen, exp, max_depth, h0 = out
        result.max_depth = int(max_depth)
    return _finish(result, status, path, cost, gen, exp, h0, seconds, cpu)


def run(algorithm, board, goal, H, limits, result, automaton=None, runner=None):
    """Run ``algorithm`` under ``limits`` (:func:`solver.limits.make_limits`); fill ``result``.

    ``automaton`` (:mod:`solver.fsm`) replaces parent pruning when given; ``runner``
    replaces the algorithm's runner (a split IDA*, :mod:`solver.splitsearch`)."""
    return run_inputs(KernelInputs(algorithm, board.size, tuple(goal), H, limits, automaton), board, result, runner)


def run_inputs(x: KernelInputs, board, result, runner=None):
    """:func:`run` for a request's checked inputs (:func:`solver.solve.prepare`)."""
    if board.tiles == x.goal and x.conventions.is_korf:  # other conventions may count the goal's pop
        return _solved_at_start(result, heuristic_of(board, x.goal, x.H))
    if runner is not None:
        return runner(board, x.goal, x.H, x.limits, result, x.automaton)
    return _run_kernel(x, board, result)
