"""The linear-conflict IDA* kernel (solver/idastar_lines.py: the per-tile contour with lines)
against the general IDA* kernel:
the same status, path, cost, node counts, iterations and h0 on every board, on 3x3, 4x4 and
5x5, both standard goals and an odd one, parent and automaton pruning, under node budgets
and time limits. (Its line steps against the keys recomputed from the board: below.)"""

import numpy as np
import pytest

from tilesweep.solver import Board, goal_tiles, parse_heuristic, solve
from tilesweep.solver.fsm import automaton
from tilesweep.solver.generators import random_walk_instance, uniform_instance
from tilesweep.solver.geometry import neighbours, neighbours64
from tilesweep.solver.heuristics import kernel_heuristic
from tilesweep.solver.hstate import line_key
from tilesweep.solver.idastar import _idastar
from tilesweep.solver.jit import kernel
from tilesweep.solver.kernels import NO_FSM, goal_positions
from tilesweep.solver.limits import UNLIMITED, make_limits
from tilesweep.solver.linesteps import (
    STEP_ACROSS,
    STEP_ALONG,
    STEP_FIELDS,
    line_steps,
    step_key,
    step_line,
    step_tiles,
)
from tilesweep.solver.search import idastar_call
from tilesweep.solver.status import BUDGET_NODES, SOLVED

KORF_1 = "14 13 15 7 11 12 9 5 6 0 2 1 4 8 10 3"


def outputs(out) -> tuple:
    status, path, cost, generated, expanded, bounds, nodes, n_iter, h0 = out
    return (int(status), int(cost), int(generated), int(expanded), int(n_iter), int(h0), path[:cost].tolist(),
            bounds[:n_iter].tolist(), nodes[:n_iter].tolist())


def compare(size, goal, boards, budget=UNLIMITED, prune_depth=None) -> set:
    """Statuses met; asserts the line kernel and the general kernel agree on every board."""
    H = kernel_heuristic(parse_heuristic("linear-conflict", size, goal), size, goal)
    limits = make_limits(budget)
    fsm = automaton(size, prune_depth) if prune_depth else None
    picked, call = idastar_call(size, goal, H, limits, fsm)
    assert picked == "idastar-lines"
    table = NO_FSM if fsm is None else fsm.full
    statuses = set()
    for board in boards:
        tiles = np.array(board.tiles, dtype=np.int8)
        expected = outputs(_idastar(tiles, size, goal_positions(goal), neighbours64(size), H, limits, table,
                                    fsm is not None))
        got = outputs(call(tiles))
        assert got == expected, (board.tiles, budget, prune_depth)
        statuses.add(got[0])
    return statuses


ODD_GOAL = (1, 2, 3, 4, 0, 5, 6, 7, 8)  # blank in the middle, rows and columns reordered by it


@pytest.mark.parametrize("goal", [goal_tiles("blank-last", 3), goal_tiles("blank-first", 3), ODD_GOAL])
def test_8_puzzles(goal):
    rng = np.random.default_rng(sum(goal[:4]))
    boards = [b for b in (uniform_instance(3, goal, rng) for _ in range(200)) if b.tiles != goal]
    assert compare(3, goal, boards) == {SOLVED}
    assert compare(3, goal, boards[:60], prune_depth=12) == {SOLVED}
    assert BUDGET_NODES in compare(3, goal, boards[:60], budget=200)


@pytest.mark.parametrize("goal_name", ["blank-first", "blank-last"])
def test_15_puzzle_walks(goal_name):
    goal = goal_tiles(goal_name, 4)
    boards = [random_walk_instance(4, goal, 50, np.random.default_rng(seed)) for seed in range(12)]
    boards = [b for b in boards if b.tiles != goal]
    assert compare(4, goal, boards) == {SOLVED}
    assert compare(4, goal, boards[:6], prune_depth=14) == {SOLVED}
    assert BUDGET_NODES in compare(4, goal, boards, budget=3000)


def test_24_puzzle_walks():
    goal = goal_tiles("blank-first", 5)
    boards = [random_walk_instance(5, goal, 40, np.random.default_rng(seed)) for seed in range(6)]
    boards = [b for b in boards if b.tiles != goal]
    assert compare(5, goal, boards) == {SOLVED}
    assert BUDGET_NODES in compare(5, goal, boards, budget=2000)


def test_korf_1_in_the_line_kernel_stops_at_its_time_limit():
    result = solve(Board.parse(KORF_1), "blank-first", "idastar", "linear-conflict", time_limit=0.0001)
    assert result.status == "timeout" and 0 < result.nodes_generated
    assert sum(i["nodes_generated"] for i in result.iterations) == result.nodes_generated


@kernel
def _steps(nbr8, size, tile_cost, lc_code):
    return line_steps(nbr8, size, tile_cost, lc_code)


@kernel
def _keys(tiles, size, lc_code):
    keys = np.zeros(2 * size, dtype=np.int64)
    for line in range(2 * size):
        keys[line] = line_key(tiles, line, size, lc_code)
    return keys


@pytest.mark.parametrize("size", [3, 4, 5])
def test_every_step_changes_the_keys_as_the_board_does(size):
    """Each (tile, blank, move) step: the Manhattan change and both line keys' changes are the
    board's after the move, every other key unchanged, and the line slid along keeps its
    conflicts."""
    goal = goal_tiles("blank-first", size)
    H = kernel_heuristic(parse_heuristic("linear-conflict", size, goal), size, goal)
    nbr = neighbours(size)
    steps = _steps(nbr, size, H.tile_cost, H.lc_code).reshape(-1, STEP_FIELDS)
    rng = np.random.default_rng(size)
    n = size * size
    for _ in range(40):
        tiles = rng.permutation(n).astype(np.int64)
        b = int(np.flatnonzero(tiles == 0)[0])
        for m in range(4):
            src = int(nbr[b, m])
            if src < 0:
                continue
            t = int(tiles[src])
            child = tiles.copy()
            child[b], child[src] = t, 0
            before, after = _keys(tiles, size, H.lc_code), _keys(child, size, H.lc_code)
            step = steps[t * n * 4 + b * 4 + m]
            across, along = step[STEP_ACROSS], step[STEP_ALONG]
            expected = before.copy()
            expected[step_line(across)] += step_key(across)
            expected[step_line(along)] += step_key(along)
            assert after.tolist() == expected.tolist()
            assert step_tiles(across) == H.tile_cost[t, b] - H.tile_cost[t, src]
            assert step_tiles(along) == 0
            along = step_line(along)
            assert H.lc_table[after[along]] == H.lc_table[before[along]]
