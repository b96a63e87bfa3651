"""Heuristics: equal to the naive definitions, admissible, consistent, ordered.

The kernels' from-scratch value is read through ``solver.search.heuristic_of``; the
incremental value (updated per move inside the search) is checked in
``test_search.py`` by reproducing IDA*'s and A*'s node counts with naive searches that
recompute h from scratch at every node.
"""

import random

import pytest
from hypothesis import given, settings, strategies as st

import naive
from tilesweep.solver import Board, goal_tiles, solve
from tilesweep.solver.geometry import MOVES
from tilesweep.solver.heuristics import kernel_heuristic, parse_heuristic
from tilesweep.solver.search import heuristic_of

NAMES = ("manhattan", "linear-conflict", "misplaced", "euclidean")
GOALS = ("blank-last", "blank-first")


def kernel_h(size, goal):
    """name -> function(tiles) -> h, through the kernels' from-scratch evaluation."""
    out = {}
    for name in NAMES:
        H = kernel_heuristic(parse_heuristic(name, size, goal), size, goal)
        out[name] = lambda tiles, H=H: heuristic_of(Board(tuple(tiles), size), goal, H)
    return out


def check_states(states, goal, dist):
    """Every property of the four heuristics on ``states`` (8-puzzle, true distances ``dist``)."""
    hk = kernel_h(3, goal)
    values = {}  # state -> (manhattan, linear-conflict, misplaced, euclidean)

    def value(s):
        if s not in values:
            values[s] = tuple(hk[name](s) for name in NAMES)
        return values[s]

    for s in states:
        man, lc, mis, euc = v = value(s)
        for name, got in zip(NAMES, v, strict=True):
            assert got == naive.HEURISTICS[name](s, goal), (name, s, goal)
            assert got <= dist[s], f"{name} inadmissible on {s} for goal {goal}: {got} > {dist[s]}"
        assert euc == naive.euclidean_fixed(s, goal)
        assert mis <= man <= lc and mis <= euc <= man, (s, v)
        for _, nxt in naive.successors(s):
            for name, a, b in zip(NAMES, v, value(nxt), strict=True):
                assert abs(a - b) <= 1, f"{name} inconsistent: {s} {a} -> {nxt} {b}"
    assert value(goal) == (0, 0, 0, 0)


@pytest.mark.parametrize("goal_name", GOALS)
def test_heuristics_on_sampled_8_puzzle_states(goal_name):
    goal = goal_tiles(goal_name, 3)
    dist = naive.bfs_distances(goal)
    states = random.Random(goal_name).sample(sorted(dist), 2500) + [goal]
    check_states(states, goal, dist)


def test_heuristics_for_explicit_goal():
    goal = (1, 2, 0, 3, 4, 5, 6, 7, 8)
    dist = naive.bfs_distances(goal)
    states = random.Random(5).sample(sorted(dist), 800) + [goal]
    check_states(states, goal, dist)


@pytest.mark.slow
@pytest.mark.parametrize("goal_name", GOALS)
def test_heuristics_on_all_8_puzzle_states(goal_name):
    goal = goal_tiles(goal_name, 3)
    dist = naive.bfs_distances(goal)
    check_states(list(dist), goal, dist)


def test_h0_reported_for_unsolvable_and_solved():
    board = Board.parse("8 6 7 2 5 4 3 0 1")
    goal = goal_tiles("blank-last", 3)
    for name in NAMES:
        assert solve(board, "blank-last", "idastar", name).h0 == naive.HEURISTICS[name](board.tiles, goal)
    swapped = Board.parse("1 3 2 4 5 6 7 8 0")
    assert solve(swapped, "blank-last", "astar", "manhattan").h0 == 2


def test_known_values():
    goal = goal_tiles("blank-last", 3)
    hk = kernel_h(3, goal)
    # 3 2 1 in the top row: tiles 1 and 3 swap across tile 2 -> two conflicting pairs
    tiles = (3, 2, 1, 4, 5, 6, 7, 8, 0)
    assert hk["manhattan"](tiles) == 4
    assert hk["linear-conflict"](tiles) == 4 + 2 * 2  # 3 own tiles, longest run 1
    assert hk["misplaced"](tiles) == 2
    assert hk["euclidean"](tiles) == 4


def walk(tiles, size, moves):
    """Boards visited from ``tiles`` along the legal moves of ``moves``."""
    board = Board(tuple(tiles), size)
    out = [board]
    for m in moves:
        try:
            board = board.apply(m)
        except ValueError:
            continue
        out.append(board)
    return out


@settings(max_examples=60, deadline=None)
@given(st.sampled_from([4, 5]).flatmap(lambda n: st.tuples(st.just(n), st.permutations(range(n * n)))),
       st.sampled_from(GOALS), st.lists(st.sampled_from(MOVES), max_size=60))
def test_heuristics_on_large_boards_match_naive(size_tiles, goal_name, moves):
    size, tiles = size_tiles
    goal = goal_tiles(goal_name, size)
    hk = kernel_h(size, goal)
    previous = None
    for board in walk(tiles, size, moves):
        values = {name: hk[name](board.tiles) for name in NAMES}
        for name in NAMES:
            assert values[name] == naive.HEURISTICS[name](board.tiles, goal), (name, board)
        assert values["euclidean"] == naive.euclidean_fixed(board.tiles, goal)
        assert values["misplaced"] <= values["manhattan"] <= values["linear-conflict"]
        assert values["euclidean"] <= values["manhattan"]
        if previous is not None:
            for name in NAMES:
                assert abs(values[name] - previous[name]) <= 1, (name, board)
        previous = values
