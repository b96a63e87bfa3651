"""The PDB IDA* kernel (solver/idastar_pdb.py) against the general IDA* kernel: the same
status, path, cost, node counts, iterations and h0 on every board, with and without the
reflected lookup, parent and automaton pruning, and under node budgets. (Against a naive
IDA*: tests/test_pdb_idastar.py, which runs this kernel through ``solve``.)"""

import numpy as np
import pytest

from tilesweep.pdb_store import open_store, tables_for
from tilesweep.solver import goal_tiles, idastar_pdb, parse_heuristic
from tilesweep.solver.fsm import automaton
from tilesweep.solver.generators import random_walk_instance, uniform_instance
from tilesweep.solver.geometry import neighbours64
from tilesweep.solver.heuristics import kernel_heuristic
from tilesweep.solver.idastar import _idastar
from tilesweep.solver.idastar_pdb import _idastar_pdb, cache_bytes, last_level_cache_bytes, mirrors_early
from tilesweep.solver.kernels import NO_FSM, goal_positions
from tilesweep.solver.limits import UNLIMITED, make_limits
from tilesweep.solver.search import idastar_call
from tilesweep.solver.status import BUDGET_NODES, SOLVED


@pytest.fixture(scope="module")
def store(tmp_path_factory):
    with open_store(tmp_path_factory.mktemp("pdb")) as opened:
        yield opened


def outputs_equal(a, b) -> bool:
    status, path, cost, generated, expanded, bounds, nodes, n_iter, h0 = a
    return (status, cost, generated, expanded, n_iter, h0) == (b[0], b[2], b[3], b[4], b[7], b[8]) and \
        path[:cost].tolist() == b[1][:cost].tolist() and \
        bounds[:n_iter].tolist() == b[5][:n_iter].tolist() and nodes[:n_iter].tolist() == b[6][:n_iter].tolist()


def compare(size, goal, name, boards, store, budget=UNLIMITED, prune_depth=None) -> set:
    """Statuses met; asserts both kernels agree on every board."""
    spec = parse_heuristic(name, size, goal)
    H = kernel_heuristic(spec, size, goal, tables_for(spec, size, goal, store))
    limits = make_limits(budget)
    fsm = automaton(size, prune_depth) if prune_depth else None
    assert idastar_call(size, goal, H, limits, fsm)[0] == "idastar-pdb"
    table = NO_FSM if fsm is None else fsm.full
    goal_pos, nbr = goal_positions(goal), neighbours64(size)
    statuses = set()
    for board in boards:
        tiles = np.array(board.tiles, dtype=np.int8)
        expected = _idastar(tiles, size, goal_pos, nbr, H, limits, table, fsm is not None)
        for early in (False, True):  # mirror lookups planned with the regular ones, or when needed
            got = _idastar_pdb(tiles, goal_pos, nbr, H, limits, table, fsm is not None, early)
            assert outputs_equal(got, expected), (name, board.tiles, budget, prune_depth, early)
        statuses.add(got[0])
    return statuses


@pytest.mark.parametrize("goal_name", ["blank-last", "blank-first"])
@pytest.mark.parametrize("name", ["pdb:4-4", "pdb:5-3", "pdb:4-4+reflect", "pdb:5-3+reflect",
                                  "pdb:1,2,3/4,5,6,7,8+reflect"])
def test_8_puzzles(goal_name, name, store):
    goal = goal_tiles(goal_name, 3)
    rng = np.random.default_rng(sum(map(ord, name + goal_name)))
    boards = [b for b in (uniform_instance(3, goal, rng) for _ in range(150)) if b.tiles != goal]
    assert compare(3, goal, name, boards, store) == {SOLVED}
    assert compare(3, goal, name, boards[:40], store, prune_depth=12) == {SOLVED}
    assert BUDGET_NODES in compare(3, goal, name, boards[:40], store, budget=100)


@pytest.mark.parametrize("name", ["pdb:1,2,3/4,5,6/7,8,9/10,11,12/13,14,15",
                                  "pdb:1,2,3/4,5,6/7,8,9/10,11,12/13,14,15+reflect"])
def test_15_puzzle_walks(name, store):
    goal = goal_tiles("blank-first", 4)
    boards = [random_walk_instance(4, goal, 34, np.random.default_rng(seed)) for seed in range(8)]
    boards = [b for b in boards if b.tiles != goal]
    assert compare(4, goal, name, boards, store) == {SOLVED}
    assert compare(4, goal, name, boards, store, prune_depth=14) == {SOLVED}
    assert BUDGET_NODES in compare(4, goal, name, boards, store, budget=2000)


def test_cache_sizes_read_as_sysfs_writes_them():
    assert cache_bytes("491520K\n") == 480 << 20 and cache_bytes("32M") == 32 << 20 and cache_bytes("1024") == 1024
    assert last_level_cache_bytes() > 0


def test_mirrors_are_planned_early_when_a_table_outgrows_the_last_level_cache(store, monkeypatch):
    goal = goal_tiles("blank-first", 3)
    spec = parse_heuristic("pdb:4-4+reflect", 3, goal)
    H = kernel_heuristic(spec, 3, goal, tables_for(spec, 3, goal, store))
    biggest = max(table.nbytes for table in H.tables[:H.n_groups])
    monkeypatch.setattr(idastar_pdb, "last_level_cache_bytes", lambda: biggest)
    assert not mirrors_early(H)
    monkeypatch.setattr(idastar_pdb, "last_level_cache_bytes", lambda: biggest - 1)
    assert mirrors_early(H)
    plain = parse_heuristic("pdb:4-4", 3, goal)
    assert not mirrors_early(kernel_heuristic(plain, 3, goal, tables_for(plain, 3, goal, store)))
