"""The packed A* (solver/astar.py) against the general A* kernel and the naive dict-and-heap
A* of tests/naive.py: same status, path, cost, node counts, depth and h0 on thousands of
boards (A* + Manhattan ties on f on almost every pop, so the tie-breaks are exercised),
under node and memory budgets too."""

import numpy as np
import pytest

import naive
from tilesweep.pdb_store import open_store, tables_for
from tilesweep.solver import goal_tiles
from tilesweep.solver.astar import H_LINES, H_PARTS, H_PDB, H_PER_TILE, astar_hmode
from tilesweep.solver.generators import random_walk_instance, uniform_instance
from tilesweep.solver.geometry import neighbours64
from tilesweep.solver.graphsearch import ASTAR, graph_search_kernel
from tilesweep.solver.heuristics import kernel_heuristic, parse_heuristic
from tilesweep.solver.kernels import NO_FSM, goal_positions
from tilesweep.solver.limits import UNLIMITED, make_limits
from tilesweep.solver.search import graph_call
from tilesweep.solver.status import BUDGET_MEMORY, BUDGET_NODES, SOLVED
from tilesweep.solver.warmup import types_of

GOALS = ("blank-last", "blank-first")


def boards(size, goal, count, seed):
    """``count`` boards: uniform random on 3×3, from 30-move random walks on 4×4."""
    out = []
    for i in range(count):
        rng = np.random.default_rng(np.random.SeedSequence([seed, i]))
        board = uniform_instance(3, goal, rng) if size == 3 else random_walk_instance(4, goal, 30, rng)
        if board.tiles != goal:
            out.append(np.array(board.tiles, dtype=np.int8))
    return out


@pytest.fixture(scope="module")
def store(tmp_path_factory):
    with open_store(tmp_path_factory.mktemp("pdb")) as opened:
        yield opened


def kernels(size, goal, name, limits, store=None):
    """(packed call, general call) for A* with heuristic ``name`` (tables from ``store``)."""
    spec = parse_heuristic(name, size, goal)
    H = kernel_heuristic(spec, size, goal, tables_for(spec, size, goal, store) if spec.groups else ())
    kind, packed = graph_call(ASTAR, size, goal, H, limits)
    assert kind.startswith("astar-packed")
    goal_pos, nbr = goal_positions(goal), neighbours64(size)
    return packed, lambda tiles: graph_search_kernel(H)(ASTAR, tiles, size, goal_pos, nbr, H, limits, NO_FSM, False)


def same(a, b):
    """Kernel outputs equal: status, path, cost, generated, expanded, max_depth, h0."""
    return a[0] == b[0] and a[1].tolist() == b[1].tolist() and a[2:] == b[2:]


@pytest.mark.parametrize("goal_name", GOALS)
@pytest.mark.parametrize("seed,size,name,count", [(1, 3, "manhattan", 1000), (2, 3, "misplaced", 60),
                                                  (3, 3, "euclidean", 200), (4, 4, "manhattan", 100),
                                                  (16, 3, "linear-conflict", 1000), (17, 4, "linear-conflict", 60)])
def test_packed_astar_equals_general_kernel(goal_name, seed, size, name, count):
    goal = goal_tiles(goal_name, size)
    packed, general = kernels(size, goal, name, make_limits(UNLIMITED))
    for tiles in boards(size, goal, count, seed):
        a, b = packed(tiles), general(tiles)
        assert a[0] == SOLVED and same(a, b), tiles.tolist()


@pytest.mark.parametrize("goal_name", GOALS)
@pytest.mark.parametrize("seed,name", [(11, "linear-conflict"), (12, "pdb:4-4"), (13, "pdb:5-3+reflect"),
                                       (14, "walking-distance"), (15, "max(pdb:4-4,walking-distance)"),
                                       (18, "max(pdb:4-4,pdb:5-3)")])
def test_packed_astar_equals_general_kernel_any_heuristic(goal_name, seed, name, store):
    """Heuristics set up per expanded node; the PDB sums are inconsistent (A* reopens)."""
    goal = goal_tiles(goal_name, 3)
    packed, general = kernels(3, goal, name, make_limits(UNLIMITED), store)
    for tiles in boards(3, goal, 300, seed):
        a, b = packed(tiles), general(tiles)
        assert a[0] == SOLVED and same(a, b), tiles.tolist()


@pytest.mark.parametrize("size", [3, 4])
def test_each_heuristic_takes_its_way_of_finding_h(size):
    """Per-tile sums from the slot; Manhattan + linear conflicts from the slot's tile sum and
    line values; pattern databases alone from their group values; anything else from the
    board's parts (so the tests above cover all four kernels)."""
    goal = goal_tiles("blank-last", size)
    pdb = "pdb:4-4" if size == 3 else "pdb:5-5-5"

    def hmode(name):
        spec, tables = types_of(parse_heuristic(name, size, goal), size)  # stand-in tables
        return astar_hmode(kernel_heuristic(spec, size, goal, tables))

    modes = {name: hmode(name) for name in ("manhattan", "misplaced", "euclidean", "linear-conflict",
                                           "walking-distance", "max(linear-conflict,walking-distance)", pdb,
                                           f"{pdb}+reflect", f"max({pdb},manhattan)", f"max({pdb},walking-distance)")}
    assert modes == {"manhattan": H_PER_TILE, "misplaced": H_PER_TILE, "euclidean": H_PER_TILE,
                     "linear-conflict": H_LINES, "walking-distance": H_PARTS,
                     "max(linear-conflict,walking-distance)": H_PARTS, pdb: H_PDB, f"{pdb}+reflect": H_PDB,
                     f"max({pdb},manhattan)": H_PARTS, f"max({pdb},walking-distance)": H_PARTS}


@pytest.mark.parametrize("goal_name", GOALS)
def test_packed_astar_budgets_equal_general_kernel(goal_name):
    """Node and memory budgets stop both kernels at the same node with the same status."""
    goal = goal_tiles(goal_name, 4)
    statuses = set()
    for tiles in boards(4, goal, 40, 9):
        for limits in (make_limits(1000), make_limits(UNLIMITED, None, 3000), make_limits(5000, None, 2048)):
            for name in ("manhattan", "linear-conflict"):
                packed, general = kernels(4, goal, name, limits)
                a, b = packed(tiles), general(tiles)
                assert same(a, b), (tiles.tolist(), limits.tolist(), name)
                statuses.add(a[0])
    assert {BUDGET_NODES, BUDGET_MEMORY, SOLVED} <= statuses


@pytest.mark.slow
@pytest.mark.parametrize("goal_name", GOALS)
def test_packed_astar_equals_naive_astar(goal_name):
    """2,000 random 8-puzzles and 40 15-puzzles, Manhattan; 40 8-puzzles with misplaced
    tiles (wide ties), against the naive A* with the same accounting and tie-breaks."""
    for seed, size, name, count in ((5, 3, "manhattan", 1000), (6, 3, "misplaced", 20), (7, 4, "manhattan", 20)):
        goal = goal_tiles(goal_name, size)
        packed, _ = kernels(size, goal, name, make_limits(UNLIMITED))
        for tiles in boards(size, goal, count, seed):
            status, path, cost, generated, expanded, _, _ = packed(tiles)
            expected = naive.astar_counts(tuple(tiles.tolist()), goal, naive.HEURISTICS[name])
            moves = "".join("ULRD"[m] for m in path.tolist())
            assert (status, cost, moves, generated, expanded) == (
                SOLVED, expected["cost"], expected["moves"], expected["generated"], expected["expanded"]), tiles
