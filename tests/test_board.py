"""Boards: parsing, round trips, replay, parity, generators, EBF."""

import random

import numpy as np
import pytest
from hypothesis import given, settings, strategies as st

import naive
from tilesweep.solver import Board, InvalidBoardError, effective_branching_factor, goal_tiles, is_solvable
from tilesweep.solver.board import parse_tiles
from tilesweep.solver.ebf import round_digits
from tilesweep.solver.generators import random_walk_instance, uniform_instance
from tilesweep.solver.geometry import MOVES

EIGHT = (8, 6, 7, 2, 5, 4, 3, 0, 1)


# --- parsing ------------------------------------------------------------------------------


@pytest.mark.parametrize("text", ["8 6 7 2 5 4 3 0 1", "8,6,7,2,5,4,3,0,1", "867254301",
                                  "  8, 6 ,7 2,5 4 3 0 1 ", "8\t6\n7 2 5 4 3 0 1"])
def test_parse_forms(text):
    board = Board.parse(text)
    assert board.tiles == EIGHT
    assert board.size == 3


@pytest.mark.parametrize("size", [3, 4, 5])
def test_size_inferred_from_count(size):
    tiles = list(range(size * size))
    random.Random(size).shuffle(tiles)
    board = Board.parse(" ".join(map(str, tiles)))
    assert board.size == size
    assert board.tiles == tuple(tiles)
    assert Board.parse(",".join(map(str, tiles)), size).size == size


@pytest.mark.parametrize("text, size, quoted", [
    ("1 2 3 4 5 6 7 8", None, "1 2 3 4 5 6 7 8"),           # wrong count
    ("1 1 2 3 4 5 6 7 8", None, "1 1 2 3 4 5 6 7 8"),        # duplicate
    ("1 2 3 4 5 6 7 8 a", None, "a"),                        # letter
    ("1 2 3 4 5 6 7 8 -1", None, "-1"),                      # negative
    ("1 2 3 4 5 6 7 8 9", None, "1 2 3 4 5 6 7 8 9"),        # out of range
    ("", None, "''"),                                        # empty
    ("   ", None, "'   '"),                                  # blank
    ("1 2 3 4 5 6 7 8 0", 4, "1 2 3 4 5 6 7 8 0"),           # size mismatch
    ("1 2 3 4 5 6 7 8 0", 6, "6"),                           # unsupported size
])
def test_parse_rejects_and_quotes(text, size, quoted):
    with pytest.raises(InvalidBoardError) as err:
        Board.parse(text, size)
    assert quoted in str(err.value)
    assert isinstance(err.value, ValueError)


def test_parse_names_every_problem():
    with pytest.raises(InvalidBoardError) as err:
        parse_tiles("1 1 2 3 4 5 6 x 99", 3)
    message = str(err.value)
    assert "'x'" in message and "99" in message and "duplicated: 1" in message


@pytest.mark.parametrize("size", [3, 4, 5])
def test_round_trip_text_and_repr(size):
    rng = random.Random(size)
    for _ in range(20):
        tiles = list(range(size * size))
        rng.shuffle(tiles)
        board = Board(tuple(tiles), size)
        assert Board.parse(board.text()) == board
        assert eval(repr(board), {"Board": Board}) == board


def test_str_is_a_grid():
    text = str(Board.parse("1 2 3 4 5 6 7 8 0"))
    assert text.splitlines() == ["1 2 3", "4 5 6", "7 8 ."]


def test_goals():
    assert goal_tiles("blank-last", 3) == (1, 2, 3, 4, 5, 6, 7, 8, 0)
    assert goal_tiles("blank-first", 4) == tuple(range(16))
    assert goal_tiles("1 2 0 3 4 5 6 7 8", 3) == (1, 2, 0, 3, 4, 5, 6, 7, 8)
    with pytest.raises(InvalidBoardError, match="'blank-middle'"):
        goal_tiles("blank-middle", 3)


# --- replay -------------------------------------------------------------------------------


def test_apply_matches_naive_replay():
    rng = random.Random(7)
    for size in (3, 4, 5):
        board = Board.goal(size)
        for _ in range(200):
            m = rng.choice(MOVES)
            try:
                expected = naive.replay(board.tiles, m)
            except ValueError:
                with pytest.raises(InvalidBoardError):
                    board.apply(m)
                continue
            board = board.apply(m)
            assert board.tiles == expected


def test_apply_rejects_bad_moves():
    goal = Board.goal(3)
    with pytest.raises(InvalidBoardError, match="'D'"):
        goal.apply("D")  # blank in the bottom-right corner
    with pytest.raises(InvalidBoardError, match="'X'"):
        goal.apply("UX")
    assert goal.apply("") == goal
    assert goal.apply("UD") == goal


# --- parity -------------------------------------------------------------------------------


def test_parity_matches_textbook_on_all_8_puzzle_permutations():
    rng = random.Random(3)
    for goal in ("blank-last", "blank-first"):
        reachable = naive.bfs_distances(naive.goal_of(goal, 3))
        assert len(reachable) == 181_440
        for _ in range(3000):
            tiles = list(range(9))
            rng.shuffle(tiles)
            tiles = tuple(tiles)
            expected = tiles in reachable
            assert naive.solvable(tiles, goal) == expected
            assert is_solvable(tiles, goal_tiles(goal, 3), 3) == expected


@pytest.mark.parametrize("size", [4, 5])
@pytest.mark.parametrize("goal", ["blank-last", "blank-first"])
def test_parity_matches_textbook_rule(size, goal):
    rng = random.Random(size)
    goal_t = goal_tiles(goal, size)
    for _ in range(2000):
        tiles = list(range(size * size))
        rng.shuffle(tiles)
        assert is_solvable(tiles, goal_t, size) == naive.solvable(tuple(tiles), goal), tiles


def test_sam_loyd_and_swapped_8_puzzle_unsolvable():
    loyd = Board.parse("1 2 3 4 5 6 7 8 9 10 11 12 13 15 14 0")
    assert not is_solvable(loyd.tiles, goal_tiles("blank-last", 4), 4)
    assert not is_solvable((1, 3, 2, 4, 5, 6, 7, 8, 0), goal_tiles("blank-last", 3), 3)


goals_by_size = st.sampled_from([3, 4, 5]).flatmap(lambda n: st.tuples(
    st.just(n), st.one_of(st.sampled_from(["blank-last", "blank-first"]),
                          st.permutations(range(n * n)).map(tuple))))


@settings(max_examples=150, deadline=None)
@given(goals_by_size, st.lists(st.sampled_from(MOVES), max_size=80), st.data())
def test_parity_invariant_under_walks(size_goal, moves, data):
    size, goal = size_goal
    goal_t = goal if isinstance(goal, tuple) else goal_tiles(goal, size)
    board = Board(goal_t, size)
    for m in moves:
        try:
            board = board.apply(m)
        except InvalidBoardError:
            continue
        assert is_solvable(board.tiles, goal_t, size)
    # swapping two non-blank tiles always flips solvability
    cells = [i for i, t in enumerate(board.tiles) if t]
    a, b = data.draw(st.lists(st.sampled_from(cells), min_size=2, max_size=2, unique=True))
    swapped = list(board.tiles)
    swapped[a], swapped[b] = swapped[b], swapped[a]
    assert not is_solvable(swapped, goal_t, size)


# --- generators ---------------------------------------------------------------------------


@pytest.mark.parametrize("goal", ["blank-last", "blank-first"])
def test_uniform_generator_solvable_and_spread(goal):
    rng = np.random.default_rng(11)
    goal_t = goal_tiles(goal, 3)
    reachable = naive.bfs_distances(goal_t)
    seen, blank_cells, depths = set(), [0] * 9, []
    for _ in range(4000):
        board = uniform_instance(3, goal_t, rng)
        assert board.tiles in reachable
        seen.add(board.tiles)
        blank_cells[board.blank] += 1
        depths.append(reachable[board.tiles])
    assert len(seen) > 3900  # ~40 collisions expected among 181,440 states
    assert min(blank_cells) > 300  # every blank cell ~444 times
    mean_depth = sum(depths) / len(depths)
    assert 21.0 < mean_depth < 22.5  # the true mean of the 8-puzzle is 21.97


@pytest.mark.parametrize("size", [3, 4, 5])
def test_uniform_generator_sizes_and_seeds(size):
    goal_t = goal_tiles("blank-last", size)
    a = [uniform_instance(size, goal_t, np.random.default_rng(5)) for _ in range(3)]
    b = [uniform_instance(size, goal_t, np.random.default_rng(5)) for _ in range(3)]
    assert a == b
    rng = np.random.default_rng(6)
    for _ in range(300):
        board = uniform_instance(size, goal_t, rng)
        assert sorted(board.tiles) == list(range(size * size))
        assert naive.solvable(board.tiles, "blank-last")


@pytest.mark.parametrize("size", [3, 4, 5])
def test_random_walk_never_undoes_last_move(size):
    goal_t = goal_tiles("blank-first", size)
    for seed in range(30):
        steps = 1 + seed
        # replay the generator's choices one step at a time: each prefix is a walk
        walk = [random_walk_instance(size, goal_t, k, np.random.default_rng(seed)).tiles
                for k in range(steps + 1)]
        assert walk[0] == goal_t
        for k in range(1, steps + 1):
            assert walk[k] in dict(naive.successors(walk[k - 1])).values()  # one legal move
            if k >= 2:
                assert walk[k] != walk[k - 2], f"seed {seed}: step {k} undid step {k - 1}"


def test_random_walk_depth_bounded_by_steps():
    goal_t = goal_tiles("blank-last", 3)
    dist = naive.bfs_distances(goal_t)
    rng = np.random.default_rng(2)
    for steps in range(0, 25):
        board = random_walk_instance(3, goal_t, steps, rng)
        assert dist[board.tiles] <= steps
        assert dist[board.tiles] % 2 == steps % 2


# --- EBF ----------------------------------------------------------------------------------


def test_ebf():
    assert effective_branching_factor(121, 4) == 3.0
    assert effective_branching_factor(1 + 2 + 4 + 8, 3) == 2.0
    assert effective_branching_factor(5, 4) == 1.0
    assert effective_branching_factor(1, 0) is None
    assert effective_branching_factor(100, 0) is None
    b = effective_branching_factor(24015, 31)
    assert abs(sum(b ** i for i in range(32)) - 24015) < 1e-3


def test_round_digits_equals_python_round_on_every_value():
    rng = np.random.default_rng(7)
    plain = rng.uniform(1.0, 4.0, 200_000)
    # values a hair from a half in the 10th decimal place: the ones rint can get wrong
    halves = np.round(rng.uniform(1.0, 4.0, 20_000), 9) + np.array([5e-10, -5e-10, 4.9999e-10, 5.0001e-10] * 5_000)
    for values in (plain, halves, np.array([0.0, 1.0, 3.0, 2.5e-10, 1.0000000005, 2.9999999995])):
        assert round_digits(values).tolist() == [round(float(v), 9) for v in values]
