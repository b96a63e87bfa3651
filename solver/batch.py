"""Solving many boards of one (algorithm, heuristic) at once, results as columns.

:func:`solve.solve` prepares its heuristic, limits and kernel for each board and returns
a :class:`~solve.SolveResult`; for the short solves of a sweep of 8-puzzles that Python
work took longer than the search. :func:`solve_boards` prepares once and then only calls
the kernel per board (the same kernels, calls and clock as :mod:`solver.search`, so every
figure is the one ``solve`` gives), collecting the outputs into columns. The packed A*
runs a whole batch in one compiled call (:func:`solver.astar._astar_boards`), timed per
board inside the kernel.

Boards the kernels do not take (unsolvable ones, the goal itself) are left to ``solve``:
:func:`kernel_boards` tells which.
"""

from __future__ import annotations

import time
from dataclasses import dataclass

import numpy as np

from .astar import _astar_boards
from .ebf import effective_branching_factor
from .fsm import automaton as fsm_automaton, parse_pruning
from .graphsearch import ASTAR, BFS, DFS
from .heuristics import HeuristicSpec, kernel_heuristic
from .limits import UNLIMITED, make_limits
from .search import (
    _WARM,
    _moves_text,
    _near_goal,
    graph_call,
    idastar_call,
    packed_astar_args,
    packed_astar_serves,
)
from .solve import (
    BYTES_PER_STATE,
    INFORMED,
    check_algorithm,
    check_budget,
    check_memory,
    check_time_limit,
    max_states,
    resolve_goal,
)
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


@dataclass
class Columns:
    """The figures of ``k`` solves, one entry per board (lists of Python values, ready
    for Arrow): what :class:`~solve.SolveResult` holds, minus what is per sweep."""

    status: list
    status_reason: list
    cost: list
    moves: list
    nodes_generated: list
    nodes_expanded: list
    ebf: list
    h0: list
    seconds: list
    iterations: list  # JSON text (IDA*) or None
    max_depth: list
    heuristic: str
    max_nodes: int | None
    time_limit: float | None
    max_memory: int | None
    pruning: str


def _kernel_call(algorithm: str, size: int, goal: tuple[int, ...], H, limits, automaton):
    """(warm-up name, ``call(tiles8)``): the kernel :mod:`solver.search` runs for these."""
    if algorithm in GRAPH_KINDS:
        return graph_call(GRAPH_KINDS[algorithm], size, goal, H, limits, automaton)
    return idastar_call(size, goal, H, limits, automaton)


def _iterations_json(bounds: np.ndarray, nodes: np.ndarray, n: int) -> str:
    """The ``iterations`` column's JSON text, as :func:`jobs.schema.normalise_row` writes it."""
    return "[" + ",".join(f'{{"bound":{b},"nodes_generated":{k}}}'
                          for b, k in zip(bounds[:n].tolist(), nodes[:n].tolist(), strict=True)) + "]"


def solve_boards(boards: np.ndarray, size: int, goal: tuple[int, ...], algorithm: str,
                 heuristic: HeuristicSpec, tables: tuple = (), max_nodes: int | None = None,
                 time_limit: float | None = None, max_memory: int | None = None,
                 prune: str = "parent") -> Columns:
    """Solve every row of ``boards`` (``int8[k, N]``, all passing :func:`kernel_boards`)
    as :func:`solve.solve` would, with the same options; the figures as columns."""
    goal = resolve_goal(goal, size)
    check_algorithm(algorithm)
    budget = check_budget(max_nodes, algorithm)
    time_limit = check_time_limit(time_limit)
    max_memory = check_memory(max_memory) if algorithm in BYTES_PER_STATE else None
    H = kernel_heuristic(heuristic, size, goal, tuple(tables))
    limits = make_limits(budget, time_limit, max_states(algorithm, max_memory))
    pruning = parse_pruning(prune, size)
    automaton = fsm_automaton(size, pruning.depth) if pruning.kind == "fsm" else None
    idastar = algorithm == "idastar"
    cols = Columns([], [], [], [], [], [], [], [], [], [], [],
                   heuristic.name if algorithm in INFORMED else "none",
                   None if budget == UNLIMITED else budget, time_limit, max_memory, str(pruning))
    boards = np.ascontiguousarray(boards, dtype=np.int8)
    if not idastar and packed_astar_serves(GRAPH_KINDS[algorithm], size, automaton):
        return _packed_astar_columns(cols, boards, packed_astar_args(size, goal, H, limits), goal, size)
    name, call = _kernel_call(algorithm, size, goal, H, limits, automaton)
    if name not in _WARM:  # compile (or load) the kernel outside the clock, as search does
        call(_near_goal(goal, size))
        _WARM.add(name)
    clock = time.perf_counter
    for tiles in boards:
        start = clock()
        out = call(tiles)
        seconds = clock() - start
        if idastar:
            code, path, cost, gen, exp, bounds, iter_nodes, n_iter, h0 = out
            cols.iterations.append(_iterations_json(bounds, iter_nodes, int(n_iter)))
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
        cols.cost.append(int(cost) if solved else None)
        cols.moves.append(_moves_text(path, int(cost)) if solved else None)
        cols.ebf.append(effective_branching_factor(int(gen), int(cost)) if solved else None)
    return cols


def _packed_astar_columns(cols: Columns, boards: np.ndarray, args: tuple, goal, size) -> Columns:
    """``cols`` filled by one :func:`solver.astar._astar_boards` call over ``boards``: no
    Python per board but turning the returned arrays into lists."""
    if "astar-boards" not in _WARM:  # compile (or load) outside the clock, as search does
        _astar_boards(_near_goal(goal, size)[None, :], *args)
        _WARM.add("astar-boards")
    codes, costs, gen, exp, depths, h0, ebf, nanos, moves, ends = _astar_boards(boards, *args)
    solved = (codes == SOLVED).tolist()
    letters = _moves_text(moves, len(moves))
    starts = [0, *ends.tolist()][:len(codes)]
    outcomes = [OUTCOMES[code] for code in codes.tolist()]
    cols.status, cols.status_reason = [o[0] for o in outcomes], [o[1] for o in outcomes]
    cols.cost = [c if ok else None for c, ok in zip(costs.tolist(), solved, strict=True)]
    cols.moves = [letters[a:b] if ok else None for a, b, ok in zip(starts, ends.tolist(), solved, strict=True)]
    cols.nodes_generated, cols.nodes_expanded, cols.h0 = gen.tolist(), exp.tolist(), h0.tolist()
    cols.max_depth, cols.iterations = depths.tolist(), [None] * len(codes)
    cols.ebf = [None if b != b else round(b, 9) for b in ebf.tolist()]  # NaN: unsolved or cost 0
    cols.seconds = (nanos * 1e-9).tolist()
    return cols
