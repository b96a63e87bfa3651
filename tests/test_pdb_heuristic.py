"""Pattern databases as heuristics: admissible over every 8-puzzle state, A* and IDA*
optimal with them, and the 15-puzzle partitions solving Korf instances optimally.

A table entry is the minimum over blank positions (Korf & Felner 2002), which keeps the
sum admissible but not consistent: one move can change h by more than 1. A* stays
optimal because it reopens a closed board reached by a shorter path; the states where
h jumps are solved here on purpose.
"""

import numpy as np
import pytest

from naive_pdb import true_distances
from tilesweep.pdb_store import open_store, tables_for
from tilesweep.solver import Board, goal_tiles, parse_heuristic, solve
from tilesweep.solver.geometry import neighbours
from tilesweep.solver.heuristics import kernel_heuristic
from tilesweep.solver.hstate import h_many

PDB_3X3 = ["pdb:4-4", "pdb:5-3", "pdb:4-4+reflect", "pdb:5-3+reflect", "pdb:1,2,3/4,5,6,7,8+reflect"]


@pytest.fixture(scope="module")
def store(tmp_path_factory):
    with open_store(tmp_path_factory.mktemp("pdb")) as opened:
        yield opened


@pytest.fixture(scope="module", params=["blank-last", "blank-first"])
def space(request):
    goal = goal_tiles(request.param, 3)
    states, dist = true_distances(goal)
    return goal, states, dist


def values(name, goal, states, store):
    spec = parse_heuristic(name, 3, goal)
    return h_many(states, 3, kernel_heuristic(spec, 3, goal, tables_for(spec, 3, goal, store)))


def neighbour_states(states):
    """For each state, one neighbour (the blank's first legal move) as an int8 array."""
    table = neighbours(3)
    first_move = np.array([next(c for c in cells if c >= 0) for cells in table])
    rows = np.arange(len(states))
    blank = np.argmax(states == 0, axis=1)
    target = first_move[blank]
    out = states.copy()
    out[rows, blank], out[rows, target] = states[rows, target], 0
    return out


@pytest.mark.parametrize("name", PDB_3X3)
def test_admissible_and_above_manhattan_on_every_state(name, space, store):
    goal, states, dist = space
    h = values(name, goal, states, store)
    assert (h <= dist).all(), f"{name} overestimates {int((h > dist).sum())} states"
    assert h[dist == 0].tolist() == [0]
    if "4-4" in name or "5-3" in name:
        assert (h >= values("manhattan", goal, states, store)).all()
    if name.endswith("+reflect"):
        plain = values(name[: -len("+reflect")], goal, states, store)
        assert (h >= plain).all() and (h > plain).any()


@pytest.mark.parametrize("name", PDB_3X3)
@pytest.mark.parametrize("algorithm", ["astar", "idastar"])
def test_search_with_pdb_returns_true_distance(name, algorithm, space, store):
    goal, states, dist = space
    tables = tables_for(parse_heuristic(name, 3, goal), 3, goal, store)
    rng = np.random.default_rng(7)
    for i in rng.choice(len(states), 400, replace=False):
        board = Board(tuple(int(t) for t in states[i]), 3)
        result = solve(board, goal, algorithm, name, tables)
        assert result.cost == dist[i]
        assert board.apply(result.moves).tiles == goal


@pytest.mark.parametrize("name", ["pdb:4-4", "pdb:5-3+reflect"])
def test_astar_optimal_where_h_jumps(name, space, store):
    """Solve the states next to which h changes by more than one move's worth."""
    goal, states, dist = space
    h = values(name, goal, states, store)
    jumps = np.flatnonzero(np.abs(h - values(name, goal, neighbour_states(states), store)) > 1)
    assert len(jumps) > 0
    tables = tables_for(parse_heuristic(name, 3, goal), 3, goal, store)
    for i in jumps[:: max(1, len(jumps) // 300)]:
        result = solve(Board(tuple(int(t) for t in states[i]), 3), goal, "astar", name, tables)
        assert result.cost == dist[i]


@pytest.mark.slow
def test_korf_instances_with_6_6_3_reflect(korf100, store):
    """The 6-6-3 tables build in seconds; a few Korf instances must come out optimal."""
    goal = goal_tiles("blank-first", 4)
    spec = parse_heuristic("pdb:6-6-3+reflect", 4, goal)
    tables = tables_for(spec, 4, goal, store)
    known = {79: 42, 97: 44, 12: 45, 1: 57}  # Korf (1985), Table 1
    for number, cost in known.items():
        board = Board(korf100[number], 4)
        result = solve(board, goal, "idastar", spec, tables)
        manhattan = solve(board, goal, "idastar", "manhattan", max_nodes=50_000_000)
        assert result.cost == cost
        assert result.nodes_generated < manhattan.nodes_generated


def test_tables_read_through_their_addresses_give_every_entry(tmp_path):
    """The kernels read tables by address (memory.byte_at): every entry of an in-memory
    and of a memory-mapped read-only table, values above 127 included, as numpy reads it;
    a prefetch of any entry is harmless."""
    from numba import njit

    from tilesweep.solver.memory import byte_at, prefetch, table_addresses

    @njit
    def read_all(tables, g):
        addr = table_addresses(tables)
        out = np.empty(tables[g].shape[0], dtype=np.int64)
        for i in range(out.shape[0]):
            prefetch(addr[g], i)
            out[i] = byte_at(addr[g], np.uint64(i) if i % 2 else i)
        return out

    rng = np.random.default_rng(7)
    memory = rng.integers(0, 256, 10_007, dtype=np.uint8)
    np.save(tmp_path / "t.npy", rng.integers(0, 256, 4099, dtype=np.uint8))
    mapped = np.load(tmp_path / "t.npy", mmap_mode="r")
    views = []
    for table in (memory, mapped):
        view = table.view()
        view.flags.writeable = False  # as kernel_heuristic hands tables to the kernels
        views.append(view)
    tables = (views[0], views[1])
    assert read_all(tables, 0).tolist() == memory.astype(np.int64).tolist()
    assert read_all(tables, 1).tolist() == np.asarray(mapped).astype(np.int64).tolist()
