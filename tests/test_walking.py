"""Walking distance, walking-distance+id and max(...): tables, values against a naive BFS,
admissibility, consistency, the kernels' per-move updates, and the refused combinations."""

import random

import numpy as np
import pytest
from typer.testing import CliRunner

import naive
import naive_walking
from tilesweep.cli import app
from tilesweep.solver import Board, InvalidOptionError, UnknownNameError, goal_tiles, solve
from tilesweep.solver.generators import random_walk_instance
from tilesweep.solver.heuristics import kernel_heuristic, parse_heuristic
from tilesweep.solver.hstate import h_many
from tilesweep.solver.walking import walk_table, walking_distance

GOALS = ("blank-last", "blank-first")


def kernel_values(name, size, goal, boards):
    """The kernels' from-scratch h of each board (int8 rows)."""
    H = kernel_heuristic(parse_heuristic(name, size, goal), size, goal)
    return h_many(np.asarray(boards, dtype=np.int8), size, H)


@pytest.mark.parametrize("size, count, largest", [(3, 105, 14), (4, 24_964, 35)])
@pytest.mark.parametrize("goal_name", GOALS)
def test_pattern_counts(size, count, largest, goal_name):
    goal = goal_tiles(goal_name, size)
    blank_row, blank_col = divmod(goal.index(0), size)
    for line in (blank_row, blank_col):
        table = walk_table(size, line)
        assert (len(table.codes), int(table.dist.max())) == (count, largest)
        assert len(np.unique(table.codes)) == count
    if size == 3:  # the naive BFS over row abstractions finds the same space
        assert naive_walking.pattern_count(size, goal) == (count, largest)


def test_4x4_pattern_count_naive():
    assert naive_walking.pattern_count(4, goal_tiles("blank-last", 4)) == (24_964, 35)


@pytest.mark.parametrize("goal_name, count", [
    pytest.param("blank-last", 4, marks=pytest.mark.slow), ("blank-first", 2),
    pytest.param("blank-last", 40, marks=pytest.mark.slow), pytest.param("blank-first", 40, marks=pytest.mark.slow)])
def test_equals_naive_bfs_on_random_15_puzzles(goal_name, count):
    goal = goal_tiles(goal_name, 4)
    rng = random.Random(f"{goal_name}{count}")
    boards = [tuple(rng.sample(range(16), 16)) for _ in range(count)]
    expected = [naive_walking.walking_distance(b, goal) for b in boards]
    assert [walking_distance(b, goal, 4) for b in boards] == expected
    assert kernel_values("walking-distance", 4, goal, boards).tolist() == expected
    for b, wd in zip(boards, expected, strict=True):
        assert wd >= naive.manhattan(b, goal), b


@pytest.mark.parametrize("size, goal_name", [(3, "blank-last"), (4, "blank-first"),
                                             pytest.param(4, "blank-last", marks=pytest.mark.slow)])
def test_walking_inversion_distance_equals_naive(size, goal_name):
    """walking-distance+id from scratch equals the naive per-axis max(WD, ID) (inversions
    counted pair by pair, their distance by a BFS over counts), is at least WD and changes
    by at most 1 per move along random walks."""
    goal = goal_tiles(goal_name, size)
    rng = random.Random(f"id{size}{goal_name}")
    boards = []
    while len(boards) < 30:
        b = tuple(rng.sample(range(size * size), size * size))
        if size == 4 or naive.solvable(b, goal_name):  # 3x3: an unsolvable board has odd inversions
            boards.append(b)
    expected = [naive_walking.walking_inversion_distance(b, goal, by_table=True) for b in boards]
    assert kernel_values("walking-distance+id", size, goal, boards).tolist() == expected
    assert kernel_values("max(walking-distance+id,manhattan)", size, goal, boards).tolist() == expected
    wd = kernel_values("walking-distance", size, goal, boards)
    assert (np.array(expected) >= wd).all() and (np.array(expected) > wd).any()
    walk = [random_walk_instance(size, goal, 60, np.random.default_rng(seed)).tiles for seed in range(3)]
    for start in walk:
        states = [start]
        for _, nxt in naive.successors(start):
            states += [nxt, *(s for _, s in naive.successors(nxt))]
        values = kernel_values("walking-distance+id", size, goal, states).tolist()
        assert values[0] == naive_walking.walking_inversion_distance(start, goal, by_table=True)
        for s, v in zip(states, values, strict=True):
            assert all(abs(v - values[states.index(n)]) <= 1 for _, n in naive.successors(s) if n in states)


@pytest.mark.slow  # every 8-puzzle state and its moves, in Python (3 s a goal)
@pytest.mark.parametrize("goal_name", GOALS)
def test_admissible_consistent_on_all_8_puzzle_states(goal_name):
    """walking-distance and walking-distance+id: Manhattan <= WD <= WD+ID <= the true
    distance, and each changes by at most 1 per move, on every state."""
    goal = goal_tiles(goal_name, 3)
    dist = naive.bfs_distances(goal)
    states = sorted(dist)
    assert len(states) == 181_440
    wd = dict(zip(states, kernel_values("walking-distance", 3, goal, states).tolist(), strict=True))
    wid = dict(zip(states, kernel_values("walking-distance+id", 3, goal, states).tolist(), strict=True))
    assert wd[goal] == wid[goal] == 0
    for s in states:
        assert naive.manhattan(s, goal) <= wd[s] <= wid[s] <= dist[s], s
        for _, nxt in naive.successors(s):
            assert abs(wd[s] - wd[nxt]) <= 1 and abs(wid[s] - wid[nxt]) <= 1, (s, nxt)
    assert sum(wid[s] > wd[s] for s in states) > 0
    sample = random.Random(1).sample(states, 300)
    assert [wd[s] for s in sample] == [naive_walking.walking_distance(s, goal) for s in sample]
    assert [wd[s] for s in sample] == [naive_walking.walking_distance_by_table(s, goal) for s in sample]
    assert [wid[s] for s in sample] == [naive_walking.walking_inversion_distance(s, goal) for s in sample]


@pytest.mark.parametrize("goal_name", GOALS)
def test_max_is_the_maximum_of_its_parts(goal_name):
    goal = goal_tiles(goal_name, 3)
    states = random.Random(goal_name).sample(sorted(naive.bfs_distances(goal)), 2000)
    lc = kernel_values("linear-conflict", 3, goal, states)
    wd = kernel_values("walking-distance", 3, goal, states)
    man = kernel_values("manhattan", 3, goal, states)
    both = kernel_values("max(linear-conflict,walking-distance)", 3, goal, states)
    assert both.tolist() == np.maximum(lc, wd).tolist()
    assert kernel_values("max(manhattan,walking-distance)", 3, goal, states).tolist() == wd.tolist()
    assert kernel_values("max(manhattan,linear-conflict)", 3, goal, states).tolist() == lc.tolist()
    assert (both >= man).all()


def memo(h):
    cache = {}

    def value(s, goal):
        if s not in cache:
            cache[s] = h(s, goal)
        return cache[s]
    return value


NAIVE = {
    "walking-distance": memo(naive_walking.walking_distance_by_table),
    "max(linear-conflict,walking-distance)": memo(
        lambda s, g: max(naive.linear_conflict(s, g), naive_walking.walking_distance_by_table(s, g))),
    "walking-distance+id": memo(lambda s, g: naive_walking.walking_inversion_distance(s, g, by_table=True)),
    "max(linear-conflict,walking-distance+id)": memo(
        lambda s, g: max(naive.linear_conflict(s, g), naive_walking.walking_inversion_distance(s, g, by_table=True))),
}


@pytest.mark.parametrize("name", sorted(NAIVE))
@pytest.mark.parametrize("size, goal_name, seed, steps", [
    (3, "blank-last", 1, 40), (3, "blank-first", 2, 40), (3, "blank-last", 3, 60),
    (4, "blank-first", 4, 30), (4, "blank-last", 5, 36),
    pytest.param(4, "blank-first", 6, 40, marks=pytest.mark.slow)])  # the deepest: seconds of naive h a case
def test_incremental_updates_reproduce_naive_searches(name, size, goal_name, seed, steps):
    """Any drift of the per-move update changes IDA*'s and A*'s node counts, which the
    naive searches reproduce with h recomputed at every node."""
    goal = goal_tiles(goal_name, size)
    board = random_walk_instance(size, goal, steps, np.random.default_rng(seed))
    expected = naive.idastar(board.tiles, goal, NAIVE[name])
    got = solve(board, goal_name, "idastar", name)
    assert got.h0 == NAIVE[name](board.tiles, goal)
    assert (got.cost, got.moves, got.nodes_generated, got.nodes_expanded) == (
        expected["cost"], expected["moves"], expected["generated"], expected["expanded"])
    expected = naive.astar_counts(board.tiles, goal, NAIVE[name])
    astar = solve(board, goal_name, "astar", name)
    assert (astar.cost, astar.nodes_generated, astar.nodes_expanded) == (
        expected["cost"], expected["generated"], expected["expanded"])


def test_korf_79_and_fast_instances(korf100):
    goal = goal_tiles("blank-first", 4)
    for number, cost in {79: 42, 9: 46, 55: 41}.items():
        board = Board(korf100[number], 4)
        for name in ("walking-distance", "max(linear-conflict,walking-distance)"):
            result = solve(board, goal, "idastar", name)
            assert result.cost == cost and board.apply(result.moves) == Board(goal, 4), (number, name)


@pytest.mark.parametrize("name, error", [
    ("pdb:7-8+walking-distance", InvalidOptionError), ("walking-distance+pdb:7-8", InvalidOptionError),
    ("linear-conflict+walking-distance", InvalidOptionError),
    ("max(pdb:5-5-5+reflect,pdb:6-6-3+reflect,pdb:7-8)", InvalidOptionError),
    ("max(walking-distance)", InvalidOptionError), ("max(euclidean,manhattan)", InvalidOptionError),
    ("max(max(manhattan,misplaced),walking-distance)", InvalidOptionError),
    ("max(walking-distance,walking-distance)", InvalidOptionError), ("max(manhattan,bogus)", UnknownNameError),
    ("max(walking-distance,walking-distance+id)", InvalidOptionError), ("walking-distance+id+id", InvalidOptionError),
    ("walking-distance+id+reflect", InvalidOptionError)])
def test_refused_combinations(name, error):
    with pytest.raises(error, match="heuristic"):
        parse_heuristic(name, 4, goal_tiles("blank-first", 4))


@pytest.mark.parametrize("name", ["walking-distance", "walking-distance+id"])
def test_walking_distance_refused_for_5x5(name):
    with pytest.raises(UnknownNameError, match="sizes 3, 4"):
        parse_heuristic(name, 5, goal_tiles("blank-last", 5))


def test_max_with_explicit_groups_parses():
    spec = parse_heuristic("max(pdb:1,2,3,4/5,6,7,8,walking-distance)", 3, goal_tiles("blank-last", 3))
    assert spec.groups == ((1, 2, 3, 4), (5, 6, 7, 8)) and spec.bases == ("pdb", "walking-distance")


def test_cli_refuses_a_sum_with_one_line():
    result = CliRunner().invoke(app, ["solve", "123456708", "-H", "pdb:4-4+walking-distance"])
    assert result.exit_code == 2
    lines = result.stderr.strip().splitlines()
    assert len(lines) == 1 and "'pdb:4-4+walking-distance'" in lines[0] and "max(" in lines[0]
