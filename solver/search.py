"""Calls the kernels and turns their raw outputs into a :class:`SolveResult`."""

from __future__ import annotations

import time
from functools import lru_cache

import numpy as np

from .astar import ASTAR_KERNELS, astar_hmode, astar_tables
from .ebf import effective_branching_factor
from .geometry import MOVES, neighbours, neighbours64
from .graphsearch import ASTAR, BFS, DFS, _graph_search, _graph_search_plugin
from .heuristics import PluginHeuristic
from .hstate import HS_LEN, TERM_ID, TERM_LC, TERM_PDB, TERM_TILES, TERM_WD, h_init, h_many
from .idastar import _idastar, _idastar_plugin, _idastar_tiles
from .idastar_lines import _idastar_lines
from .idastar_pdb import _idastar_pdb, mirrors_early
from .idastar_pdb_walk import _idastar_pdb_walk
from .idastar_plugin import _idastar_plugin_only, no_step
from .idastar_walk import _idastar_walk, walk_steps
from .limits import finished_late
from .plugins import plugin_values
from .status import SOLVED, outcome
from .walking import start_patterns


@lru_cache(maxsize=64)
def goal_positions(goal: tuple[int, ...]) -> np.ndarray:
    """``int64[N]``: the cell of each tile of ``goal`` (cached: a sweep has one goal)."""
    pos = positions(goal)
    pos.flags.writeable = False
    return pos


def packed_goal(goal: tuple[int, ...]) -> np.uint64:
    """``goal`` packed 4 bits a cell, as :mod:`solver.astar` keys boards (up to 16 cells)."""
    return np.uint64(sum(t << (4 * c) for c, t in enumerate(goal)))


def positions(tiles: tuple[int, ...]) -> np.ndarray:
    """``int64[N]``: the cell of each tile."""
    pos = np.empty(len(tiles), dtype=np.int64)
    pos[list(tiles)] = np.arange(len(tiles))
    return pos


def heuristic_of(board, goal, H) -> int:
    """h of ``board``."""
    tiles = board.array().astype(np.int64)
    pos = positions(board.tiles)
    if isinstance(H, PluginHeuristic):
        return max(int(h_init(tiles, pos, board.size, H.base, np.zeros((1, HS_LEN), dtype=np.int64), 0)),
                   int(H.plug(tiles, H.goal)))
    return int(h_init(tiles, pos, board.size, H, np.zeros((1, HS_LEN), dtype=np.int64), 0))


def heuristic_values(boards: np.ndarray, size: int, H) -> np.ndarray:
    """h of each row of ``boards`` (int8[M, N]): int64[M]."""
    if isinstance(H, PluginHeuristic):
        return np.maximum(h_many(boards, size, H.base), plugin_values(boards, H.goal, H.plug))
    return h_many(boards, size, H)


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


def near_goal(goal: tuple[int, ...], size: int) -> np.ndarray:
    """A board one move from ``goal``: what kernels are warmed (compiled) on."""
    tiles = list(goal)
    blank = tiles.index(0)
    target = int(next(c for c in neighbours(size)[blank] if c >= 0))
    tiles[blank], tiles[target] = tiles[target], 0
    return np.array(tiles, dtype=np.int8)


_WARM: set[str] = set()


def _timed(call, board, goal, kernel: str, limits):
    """``call(tiles)`` on ``board`` (its code LATE if it solved after the time limit of
    ``limits``), its wall seconds and its thread CPU seconds; the first time ``kernel`` runs
    in this process it is first run on a board next to the goal, so compiling it (or
    loading it from numba's cache) stays out of the clocks."""
    if kernel not in _WARM:
        call(near_goal(goal, board.size))
        _WARM.add(kernel)
    start, cpu_start = time.perf_counter(), time.thread_time()
    out = call(board.array())
    cpu = time.thread_time() - cpu_start
    seconds = time.perf_counter() - start
    return (finished_late(out[0], int(seconds * 1e9), int(cpu * 1e9), limits), *out[1:]), seconds, cpu


def _solved_at_start(result, h0):
    """The start is the goal: cost 0, the root generated, nothing expanded."""
    result.iterations = [{"bound": h0, "nodes_generated": 1}] if result.algorithm == "idastar" else None
    result.max_depth = None if result.algorithm == "idastar" else 0
    return _finish(result, SOLVED, np.zeros(0, np.int8), 0, 1, 0, h0, 0.0, 0.0)


_NO_FSM = np.zeros(4, dtype=np.int32)
_NO_FSM.flags.writeable = False


def serves_tiles_kernel(H) -> bool:
    """Whether IDA* runs ``H`` in the per-tile kernel: a per-tile heuristic, either pruning."""
    return not isinstance(H, PluginHeuristic) and H.n_terms == 1 and H.terms[0] == TERM_TILES


def serves_pdb_walk_kernel(H) -> bool:
    """Whether IDA* runs ``H`` in :mod:`solver.idastar_pdb_walk`: the max of one pattern
    database (with or without ``+reflect``) and walking distance."""
    return H.n_terms == 2 and sorted(H.terms[:2].tolist()) == [TERM_PDB, TERM_WD] and H.n_lookups == 1 + H.reflect


def tiles_kernel_args(size, goal, H, limits, automaton=None) -> tuple:
    """The arguments after the board of :func:`solver.idastar._idastar_tiles` (and of the
    batch kernel over it) for a per-tile ``H``."""
    fsm = None if automaton is None else automaton.full
    return (goal_positions(goal), neighbours(size), H.tile_cost, H.scale, limits,
            _NO_FSM if fsm is None else fsm, fsm is not None)


def idastar_call(size, goal, H, limits, automaton=None):
    """The IDA* kernel call for ``H`` and its warm-up name: the per-tile kernel for a
    per-tile heuristic, the line kernel for linear conflicts, the walking-distance kernel for
    walking distance alone (with or without ``+id``), the PDB kernel for pattern databases
    alone, the PDB and walking-distance kernel for the max of one database and walking
    distance, else the general one; each prunes with ``automaton`` (:mod:`solver.fsm`) when
    given one."""
    goal_pos = goal_positions(goal)
    nbr = neighbours(size)
    fsm = None if automaton is None else automaton.full
    use_fsm = fsm is not None
    table = fsm if use_fsm else _NO_FSM
    if isinstance(H, PluginHeuristic) and H.alone:
        step = H.step or no_step
        return f"idastar-plugin-only-{H.key}", lambda tiles: _idastar_plugin_only(
            tiles, goal_pos, neighbours64(size), limits, table, use_fsm, H.plug, step, H.step is not None)
    if isinstance(H, PluginHeuristic):
        return f"idastar-plugin-{H.key}", lambda tiles: _idastar_plugin(
            tiles, size, goal_pos, neighbours64(size), H.base, limits, table, use_fsm, H.plug)
    if serves_tiles_kernel(H):
        args = tiles_kernel_args(size, goal, H, limits, automaton)
        return "idastar-tiles", lambda tiles: _idastar_tiles(tiles, *args)
    if H.n_terms == 1 and H.terms[0] == TERM_TILES | TERM_LC:
        return "idastar-lines", lambda tiles: _idastar_lines(tiles, size, goal_pos, nbr, H.tile_cost, H.lc_code,
                                                             H.lc_table, limits, table, use_fsm)
    if H.n_terms == 1 and H.terms[0] & ~TERM_ID == TERM_WD:
        step = walk_steps(size, goal)
        use_id = bool(H.terms[0] & TERM_ID)

        def call(tiles):
            v0, h0 = start_patterns(tiles.tolist(), goal, size)
            return _idastar_walk(tiles, size, goal_pos, nbr, step, H.wd_link_v, H.wd_link_h,
                                 v0, h0, table, use_fsm, limits, H.lc_code, use_id)
        return "idastar-walk", call
    nbr64 = neighbours64(size)
    if H.n_terms == 1 and H.terms[0] == TERM_PDB and H.n_lookups == 1 + H.reflect:  # one database
        early = mirrors_early(H)
        return "idastar-pdb", lambda tiles: _idastar_pdb(tiles, goal_pos, nbr64, H, limits, table, use_fsm, early)
    if serves_pdb_walk_kernel(H):
        early, step = mirrors_early(H), walk_steps(size, goal)

        def call_pdb_walk(tiles):
            v0, h0 = start_patterns(tiles.tolist(), goal, size)
            return _idastar_pdb_walk(tiles, size, goal_pos, nbr64, H, limits, table, use_fsm, early, step, v0, h0)
        return "idastar-pdb-walk", call_pdb_walk
    return "idastar", lambda tiles: _idastar(tiles, size, goal_pos, nbr64, H, limits, table, use_fsm)


def packed_astar_serves(kind, size, automaton) -> bool:
    """Whether the packed A* of :mod:`solver.astar` runs this search: A* with parent
    pruning (no ``automaton``) on 3×3 and 4×4."""
    return kind == ASTAR and size <= 4 and automaton is None


def packed_astar_args(size, goal, H, limits) -> tuple[int, tuple]:
    """How the packed A* finds h for ``H`` (:func:`solver.astar.astar_hmode`, which picks
    its kernel and batch kernel) and the arguments after the board(s) of both."""
    goal_key, nbr8 = packed_goal(goal), neighbours(size)
    lists, delta, hcols = astar_tables(nbr8, H.tile_cost, H.scale, hmode := astar_hmode(H))
    return hmode, (size, goal_key, nbr8, H, lists, delta, hcols, limits)


def graph_call(kind, size, goal, H, limits, automaton=None):
    """The call of the A*/BFS/DFS kernel (``kind``) and its warm-up name: the packed A* of
    :mod:`solver.astar` for A* with parent pruning on 3×3 and 4×4, else the general one.
    ``automaton``: :mod:`solver.fsm`, or None."""
    goal_pos, nbr = goal_positions(goal), neighbours64(size)
    table = _NO_FSM if automaton is None else automaton.strict
    if isinstance(H, PluginHeuristic):
        return f"graph-plugin-{H.key}", lambda tiles: _graph_search_plugin(
            kind, tiles, size, goal_pos, nbr, H.base, limits, table, automaton is not None, H.plug)
    if packed_astar_serves(kind, size, automaton):
        hmode, args = packed_astar_args(size, goal, H, limits)
        return f"astar-packed-{hmode}", lambda tiles: ASTAR_KERNELS[hmode](tiles, *args)
    return "graph", lambda tiles: _graph_search(kind, tiles, size, goal_pos, nbr, H, limits, table,
                                                automaton is not None)


def run_idastar(board, goal, H, limits, result, automaton=None):
    name, call = idastar_call(board.size, goal, H, limits, automaton)
    (status, path, cost, gen, exp, bounds, iter_nodes, n_iter, h0), seconds, cpu = _timed(call, board, goal, name,
                                                                                           limits)
    result.iterations = [{"bound": b, "nodes_generated": k}
                         for b, k in zip(bounds[:n_iter].tolist(), iter_nodes[:n_iter].tolist(), strict=True)]
    return _finish(result, status, path, cost, gen, exp, h0, seconds, cpu)


def _graph_runner(kind):
    def run_graph(board, goal, H, limits, result, automaton=None):
        name, call = graph_call(kind, board.size, goal, H, limits, automaton)
        (status, path, cost, gen, exp, max_depth, h0), seconds, cpu = _timed(call, board, goal, name, limits)
        result.max_depth = int(max_depth)
        return _finish(result, status, path, cost, gen, exp, h0, seconds, cpu)
    return run_graph


RUNNERS = {"idastar": run_idastar, "astar": _graph_runner(ASTAR), "bfs": _graph_runner(BFS),
           "dfs": _graph_runner(DFS)}


def run(algorithm, board, goal, H, limits, result, automaton=None, runner=None):
    """Run ``algorithm`` under ``limits`` (:func:`solver.limits.make_limits`); fill ``result``.

    ``automaton`` (:mod:`solver.fsm`) replaces parent pruning when given; ``runner``
    replaces the algorithm's runner (a split IDA*, :mod:`solver.splitsearch`)."""
    if board.tiles == tuple(goal):
        return _solved_at_start(result, heuristic_of(board, goal, H))
    return (runner or RUNNERS[algorithm])(board, goal, H, limits, result, automaton)
