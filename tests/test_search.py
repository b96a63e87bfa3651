"""Search: optimal costs against a naive BFS, exact node accounting against naive searches,
replay of every path, unsolvable and budget cases, IDA* iterations."""

import random

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings, strategies as st

import naive
from tilesweep.solver import ALGORITHMS, Board, InvalidOptionError, SolveResult, goal_tiles, search, solve
from tilesweep.solver.generators import random_walk_instance
from tilesweep.solver.heuristics import kernel_heuristic, parse_heuristic
from tilesweep.solver.limits import make_limits

GOALS = ("blank-last", "blank-first")
NAMES = ("manhattan", "linear-conflict", "misplaced", "euclidean")
# states per (goal, algorithm, heuristic) in the fast tier; misplaced is the slow one
SAMPLE = {"manhattan": 400, "linear-conflict": 400, "euclidean": 250, "misplaced": 60}


def sample_states(goal, k, seed):
    """``k`` distinct states drawn uniformly from those that reach ``goal``."""
    return random.Random(repr(seed)).sample(sorted(naive.bfs_distances(goal)), k)


def check_solved(result, board, goal, cost=None):
    """A solved result whose moves replay to ``goal`` with length == cost."""
    assert result.status == "solved", result
    assert len(result.moves) == result.cost
    assert naive.replay(board.tiles, result.moves) == tuple(goal)
    assert board.apply(result.moves).tiles == tuple(goal)
    if cost is not None:
        assert result.cost == cost, (board.text(), result.algorithm, result.heuristic)


@pytest.mark.parametrize("goal_name", GOALS)
@pytest.mark.parametrize("algorithm", ["astar", "idastar"])
@pytest.mark.parametrize("name", NAMES)
def test_informed_costs_equal_naive_bfs(goal_name, algorithm, name):
    goal = goal_tiles(goal_name, 3)
    dist = naive.bfs_distances(goal)
    for tiles in sample_states(goal, SAMPLE[name], (goal_name, name)):
        board = Board(tiles, 3)
        result = solve(board, goal_name, algorithm, name)
        check_solved(result, board, goal, dist[tiles])
        assert result.h0 == naive.HEURISTICS[name](tiles, goal)
        assert result.heuristic == name and result.goal == goal_name
        assert result.nodes_generated >= result.cost + 1
        assert result.nodes_expanded >= result.cost


@pytest.mark.parametrize("goal_name", GOALS)
def test_bfs_costs_equal_naive_bfs(goal_name):
    goal = goal_tiles(goal_name, 3)
    dist = naive.bfs_distances(goal)
    states = sample_states(goal, 25, goal_name)
    rng = np.random.default_rng(1)
    states += [random_walk_instance(3, goal, int(rng.integers(0, 16)), rng).tiles for _ in range(500)]
    for tiles in states:
        board = Board(tiles, 3)
        result = solve(board, goal_name, "bfs")
        check_solved(result, board, goal, dist[tiles])
        assert result.heuristic == "none"


@pytest.mark.parametrize("goal_name", GOALS)
def test_dfs_paths_replay(goal_name):
    goal = goal_tiles(goal_name, 3)
    dist = naive.bfs_distances(goal)
    for tiles in sample_states(goal, 4, goal_name):
        board = Board(tiles, 3)
        result = solve(board, goal_name, "dfs")
        check_solved(result, board, goal)
        assert result.cost >= dist[tiles] and (result.cost - dist[tiles]) % 2 == 0
        assert result.max_depth >= result.cost


def test_explicit_goal_costs():
    goal = (1, 2, 0, 3, 4, 5, 6, 7, 8)
    dist = naive.bfs_distances(goal)
    for tiles in sample_states(goal, 150, "explicit"):
        board = Board(tiles, 3)
        for algorithm in ("astar", "idastar"):
            check_solved(solve(board, goal, algorithm, "linear-conflict"), board, goal, dist[tiles])


# --- exact node accounting against naive searches that recompute h at every node ----------


@pytest.mark.parametrize("goal_name", GOALS)
@pytest.mark.parametrize("name", ["manhattan", "linear-conflict", "euclidean", "misplaced"])
def test_idastar_counts_equal_naive_idastar(goal_name, name):
    goal = goal_tiles(goal_name, 3)
    dist = naive.bfs_distances(goal)
    states = [s for s in sample_states(goal, 600, (name, 1)) if dist[s] <= 20][:25]
    for tiles in states:
        expected = naive.idastar(tiles, goal, naive.HEURISTICS[name])
        got = solve(Board(tiles, 3), goal_name, "idastar", name)
        assert (got.cost, got.moves) == (expected["cost"], expected["moves"]), tiles
        assert got.nodes_generated == expected["generated"], tiles
        assert got.nodes_expanded == expected["expanded"], tiles
        assert [(i["bound"], i["nodes_generated"]) for i in got.iterations] == expected["iterations"]


@pytest.mark.parametrize("goal_name", GOALS)
@pytest.mark.parametrize("name", ["manhattan", "linear-conflict", "euclidean"])
def test_astar_counts_equal_naive_astar(goal_name, name):
    goal = goal_tiles(goal_name, 3)
    for tiles in sample_states(goal, 15, (name, 2)):
        expected = naive.astar_counts(tiles, goal, naive.HEURISTICS[name])
        got = solve(Board(tiles, 3), goal_name, "astar", name)
        assert got.cost == expected["cost"] and got.moves == expected["moves"], tiles
        assert (got.nodes_generated, got.nodes_expanded) == (expected["generated"], expected["expanded"]), tiles


@pytest.mark.parametrize("goal_name", GOALS)
def test_bfs_counts_equal_naive_bfs(goal_name):
    goal = goal_tiles(goal_name, 3)
    dist = naive.bfs_distances(goal)
    for tiles in [s for s in sample_states(goal, 400, "bfs-counts") if dist[s] <= 16][:10]:
        expected = naive.bfs_counts(tiles, goal)
        got = solve(Board(tiles, 3), goal_name, "bfs")
        assert (got.cost, got.nodes_generated, got.nodes_expanded) == (
            expected["cost"], expected["generated"], expected["expanded"]), tiles


@settings(max_examples=25, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.sampled_from(GOALS), st.sampled_from(["manhattan", "linear-conflict", "euclidean"]),
       st.integers(0, 2**32 - 1), st.integers(10, 34))
def test_15_puzzle_incremental_h_reproduces_naive_searches(goal_name, name, seed, steps):
    """On the 15-puzzle the kernels update h per move; any drift from the from-scratch
    value changes the IDA* node counts, which the naive search recomputes at every node."""
    goal = goal_tiles(goal_name, 4)
    board = random_walk_instance(4, goal, steps, np.random.default_rng(seed))
    h = naive.HEURISTICS[name]
    expected = naive.idastar(board.tiles, goal, h)
    got = solve(board, goal_name, "idastar", name)
    assert got.h0 == h(board.tiles, goal)
    assert (got.cost, got.moves, got.nodes_generated, got.nodes_expanded) == (
        expected["cost"], expected["moves"], expected["generated"], expected["expanded"])
    astar = solve(board, goal_name, "astar", name)
    expected = naive.astar_counts(board.tiles, goal, h)
    assert (astar.cost, astar.nodes_generated, astar.nodes_expanded) == (
        expected["cost"], expected["generated"], expected["expanded"])
    check_solved(astar, board, goal, got.cost)
    check_solved(got, board, goal)


@settings(max_examples=15, deadline=None)
@given(st.sampled_from(GOALS), st.integers(0, 2**32 - 1), st.integers(0, 14))
def test_algorithms_agree_on_15_puzzle_walks(goal_name, seed, steps):
    """A*, IDA* and BFS agree with a naive A* (DFS is not meant for the 15-puzzle: it
    exhausts its default budget, see test_dfs_paths_replay for the 8-puzzle)."""
    goal = goal_tiles(goal_name, 4)
    board = random_walk_instance(4, goal, steps, np.random.default_rng(seed))
    cost = naive.astar(board.tiles, goal)
    for algorithm in ("astar", "idastar", "bfs"):
        check_solved(solve(board, goal_name, algorithm, "manhattan"), board, goal, cost)


# --- special cases --------------------------------------------------------------------------


@pytest.mark.parametrize("algorithm", ALGORITHMS)
@pytest.mark.parametrize("size, goal_name", [(3, "blank-last"), (3, "blank-first"), (4, "blank-last"),
                                             (4, "blank-first"), (5, "blank-last")])
def test_goal_state(algorithm, size, goal_name):
    board = Board.goal(size, goal_name)
    result = solve(board, goal_name, algorithm, "manhattan")
    assert (result.status, result.cost, result.moves, result.nodes_generated) == ("solved", 0, "", 1)
    assert result.nodes_expanded == 0
    assert result.ebf is None and result.h0 == 0


@pytest.mark.parametrize("algorithm", ALGORITHMS)
@pytest.mark.parametrize("text", ["1 2 3 4 5 6 7 8 9 10 11 12 13 15 14 0", "1 3 2 4 5 6 7 8 0"])
def test_unsolvable(algorithm, text):
    board = Board.parse(text)
    result = solve(board, "blank-last", algorithm, "manhattan")
    assert result.status == "unsolvable"
    assert result.nodes_generated == 0 and result.nodes_expanded == 0
    assert result.cost is None and result.moves is None and result.ebf is None


def test_idastar_iterations_on_2_3_1():
    result = solve(Board.parse("2 3 1 4 5 6 7 8 0"), "blank-last", "idastar", "manhattan")
    assert [it["bound"] for it in result.iterations] == [4, 6, 8, 10, 12, 14, 16]
    assert result.cost == 16 and len(result.moves) == 16
    assert sum(it["nodes_generated"] for it in result.iterations) == result.nodes_generated
    expected = naive.idastar((2, 3, 1, 4, 5, 6, 7, 8, 0), goal_tiles("blank-last", 3))
    assert [(i["bound"], i["nodes_generated"]) for i in result.iterations] == expected["iterations"]


HARD_15 = "14 13 15 7 11 12 9 5 6 0 2 1 4 8 10 3"  # Korf #1, 57 moves, blank-first


@pytest.mark.parametrize("algorithm", ALGORITHMS)
@pytest.mark.parametrize("budget", [1, 2, 7, 1000, 25_000])
def test_budget_exceeded(algorithm, budget):
    result = solve(Board.parse(HARD_15), "blank-first", algorithm, "manhattan", max_nodes=budget)
    assert result.status == "budget_exceeded", result
    assert result.nodes_generated <= budget
    assert result.cost is None and result.moves is None


@pytest.mark.parametrize("algorithm", ALGORITHMS)
def test_budget_large_enough_solves(algorithm):
    board = Board.parse("8 6 7 2 5 4 3 0 1")
    full = solve(board, "blank-last", algorithm, "manhattan")
    again = solve(board, "blank-last", algorithm, "manhattan", max_nodes=full.nodes_generated)
    assert again.status == "solved" and again.nodes_generated == full.nodes_generated
    if full.nodes_generated > 1:
        short = solve(board, "blank-last", algorithm, "manhattan", max_nodes=full.nodes_generated - 1)
        assert short.status == "budget_exceeded"
        assert short.nodes_generated <= full.nodes_generated - 1


@pytest.mark.parametrize("bad", [0, -1, -100, 1.5, "10", True])
def test_invalid_budget_rejected(bad):
    with pytest.raises(InvalidOptionError):
        solve(Board.parse("8 6 7 2 5 4 3 0 1"), "blank-last", "idastar", "manhattan", max_nodes=bad)


def test_hardest_8_puzzle_states():
    goal = goal_tiles("blank-last", 3)
    dist = naive.bfs_distances(goal)
    hardest = [s for s, d in dist.items() if d == 31]
    assert sorted(hardest) == [(6, 4, 7, 8, 5, 0, 3, 2, 1), (8, 6, 7, 2, 5, 4, 3, 0, 1)]
    for tiles in hardest:
        for algorithm in ("astar", "idastar", "bfs"):
            check_solved(solve(Board(tiles, 3), goal, algorithm, "linear-conflict"), Board(tiles, 3), goal, 31)


def test_result_is_deterministic():
    board = Board.parse("8 6 7 2 5 4 3 0 1")
    for algorithm in ALGORITHMS:
        a = solve(board, "blank-last", algorithm, "linear-conflict").to_dict()
        b = solve(board, "blank-last", algorithm, "linear-conflict").to_dict()
        for timing in ("seconds", "cpu_seconds"):
            a.pop(timing), b.pop(timing)
        assert a == b


# --- slow tier: every 8-puzzle state -------------------------------------------------------


@pytest.mark.slow
@pytest.mark.parametrize("goal_name", GOALS)
def test_all_8_puzzle_states_idastar(goal_name):
    """Every state, through ``search.run`` with one prebuilt heuristic (the fastest path);
    replay is checked on thousands of states in the fast tier and costs Python time here."""
    goal = goal_tiles(goal_name, 3)
    H = kernel_heuristic(parse_heuristic("manhattan", 3, goal), 3, goal)
    for tiles, d in naive.bfs_distances(goal).items():
        board = Board(tiles, 3)
        result = SolveResult(board.text(), 3, goal_name, "idastar", "manhattan", "")
        search.run("idastar", board, goal, H, make_limits(1 << 40), result)
        assert result.status == "solved" and result.cost == d == len(result.moves), tiles
