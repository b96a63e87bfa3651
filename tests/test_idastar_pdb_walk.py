"""The PDB and walking-distance IDA* kernel (solver/idastar_pdb.py's _idastar_pdb_walk) against the general
IDA* kernel: the same status, path, cost, node counts, iterations and h0 on every board, for
``max(pdb,walking-distance)`` in either order, with and without the reflected lookup, the
mirror lookups planned early or made when needed, parent and automaton pruning, under node
budgets and a time limit."""

import numpy as np
import pytest

from test_idastar_pdb import outputs_equal
from tilesweep.pdb_store import open_store, tables_for
from tilesweep.solver import Board, goal_tiles, parse_heuristic
from tilesweep.solver.fsm import automaton
from tilesweep.solver.generators import random_walk_instance, uniform_instance
from tilesweep.solver.geometry import neighbours64
from tilesweep.solver.heuristics import kernel_heuristic
from tilesweep.solver.idastar import _idastar
from tilesweep.solver.idastar_pdb import _idastar_pdb_walk
from tilesweep.solver.idastar_walk import walk_steps
from tilesweep.solver.kernels import NO_FSM, goal_positions
from tilesweep.solver.limits import UNLIMITED, make_limits
from tilesweep.solver.search import idastar_call
from tilesweep.solver.status import BUDGET_NODES, SOLVED, TIMEOUT
from tilesweep.solver.walking import start_patterns


@pytest.fixture(scope="module")
def store(tmp_path_factory):
    with open_store(tmp_path_factory.mktemp("pdb")) as opened:
        yield opened


def compare(size, goal, name, boards, store, budget=UNLIMITED, seconds=None, prune_depth=None) -> set:
    """Statuses met; asserts both kernels agree on every board."""
    spec = parse_heuristic(name, size, goal)
    H = kernel_heuristic(spec, size, goal, tables_for(spec, size, goal, store))
    limits = make_limits(budget) if seconds is None else make_limits(budget, seconds)
    fsm = automaton(size, prune_depth) if prune_depth else None
    assert idastar_call(size, goal, H, limits, fsm)[0] == "idastar-pdb-walk"
    table = NO_FSM if fsm is None else fsm.full
    goal_pos, nbr, step = goal_positions(goal), neighbours64(size), walk_steps(size, goal)
    statuses = set()
    for board in boards:
        tiles = np.array(board.tiles, dtype=np.int8)
        v0, h0 = start_patterns(board.tiles, goal, size)
        expected = _idastar(tiles, size, goal_pos, nbr, H, limits, table, fsm is not None)
        for early in (False, True):  # mirror lookups planned with the regular ones, or when needed
            got = _idastar_pdb_walk(tiles, size, goal_pos, nbr, H, limits, table, fsm is not None, early, step,
                                    v0, h0)
            if seconds is None:
                assert outputs_equal(got, expected), (name, board.tiles, budget, prune_depth, early)
            statuses.add(got[0])
    return statuses


@pytest.mark.parametrize("goal_name", ["blank-last", "blank-first"])
@pytest.mark.parametrize("name", ["max(pdb:4-4,walking-distance)", "max(walking-distance,pdb:5-3)",
                                  "max(pdb:4-4+reflect,walking-distance)", "max(walking-distance,pdb:5-3+reflect)",
                                  "max(pdb:1,2,3/4,5,6,7,8+reflect,walking-distance)"])
def test_8_puzzles(goal_name, name, store):
    goal = goal_tiles(goal_name, 3)
    rng = np.random.default_rng(sum(map(ord, name + goal_name)))
    boards = [b for b in (uniform_instance(3, goal, rng) for _ in range(150)) if b.tiles != goal]
    assert compare(3, goal, name, boards, store) == {SOLVED}
    assert compare(3, goal, name, boards[:40], store, prune_depth=12) == {SOLVED}
    assert BUDGET_NODES in compare(3, goal, name, boards[:40], store, budget=100)


@pytest.mark.parametrize("name", ["max(pdb:5-5-5,walking-distance)", "max(walking-distance,pdb:5-5-5+reflect)"])
def test_15_puzzle_walks(name, store):
    goal = goal_tiles("blank-first", 4)
    boards = [random_walk_instance(4, goal, 40, np.random.default_rng(seed)) for seed in range(10)]
    boards = [b for b in boards if b.tiles != goal]
    assert compare(4, goal, name, boards, store) == {SOLVED}
    assert compare(4, goal, name, boards, store, prune_depth=14) == {SOLVED}
    assert BUDGET_NODES in compare(4, goal, name, boards, store, budget=2000)


def test_15_puzzle_stops_at_its_time_limit(korf100, store):
    """Korf's #1 runs far longer than a millisecond under either pruning."""
    goal = goal_tiles("blank-first", 4)
    board = Board(korf100[1], 4)
    for depth in (None, 14):
        assert compare(4, goal, "max(pdb:5-5-5+reflect,walking-distance)", [board], store, seconds=0.001,
                       prune_depth=depth) == {TIMEOUT}
