"""Heuristic quality (``jobs/quality.py``, ``check-heuristic``'s distribution and h/h* lines):
every figure against a naive count over all 181,440 8-puzzle boards (tests/naive.py, which
shares no code with the package), the vectorised BFS against the naive one, optimal paths
against a naive replay, bad input refused in one line."""

import json
from collections import Counter

import numpy as np
import pytest
from typer.testing import CliRunner

import naive
from sweeps_local import local_sweep
from tilesweep.cli import app
from tilesweep.jobs.check import check_heuristic
from tilesweep.jobs.quality import (
    agreement,
    distribution,
    exact_distances,
    path_boards,
    random_boards,
    sampled_distribution,
    solved_paths,
)
from tilesweep.jobs.results import load_results
from tilesweep.solver.board import goal_tiles

RUNNER = CliRunner()
GOAL = goal_tiles("blank-last", 3)


@pytest.fixture(scope="module")
def every_board():
    """The naive BFS: {board: distance} of every 8-puzzle board."""
    return naive.bfs_distances(GOAL)


@pytest.fixture(scope="module")
def small_sweep(tmp_path_factory):
    return local_sweep(tmp_path_factory.mktemp("sweeps"), "paths", size=3, count=30, seed=5,
                       algorithms=("idastar",), heuristics=("manhattan",), chunk_size=10)


@pytest.mark.slow  # the naive BFS of every board, twice
@pytest.mark.parametrize("goal_name", ["blank-last", "blank-first"])
def test_the_vectorised_bfs_finds_every_board_at_the_naive_bfs_distance(goal_name):
    goal = goal_tiles(goal_name, 3)
    boards, d = exact_distances(3, goal)
    found = {tuple(b): int(x) for b, x in zip(boards.tolist(), d)}
    assert len(found) == len(boards) == 181_440
    assert found == naive.bfs_distances(goal)
    assert (np.diff(d) >= 0).all()  # in the order found, layer by layer


@pytest.mark.slow  # the naive heuristic of every board
@pytest.mark.parametrize("name", ["manhattan", "linear-conflict", "misplaced"])
def test_the_distribution_and_h_against_h_star_equal_a_naive_count_over_every_board(name, every_board):
    h_of = naive.HEURISTICS[name]
    naive_h = {board: h_of(board, GOAL) for board in every_board}
    check = check_heuristic(name, 3, GOAL)
    counts = Counter(naive_h.values())
    assert dict(zip(check.distribution.values, check.distribution.counts)) == counts
    assert check.distribution.boards == 181_440
    assert check.distribution.mean == pytest.approx(sum(naive_h.values()) / 181_440, rel=1e-12)
    ratios = [naive_h[b] / d for b, d in every_board.items() if d > 0]
    assert check.mean_ratio == pytest.approx(sum(ratios) / len(ratios), rel=1e-12)
    exact = sum(naive_h[b] == d for b, d in every_board.items())
    assert check.exact_share == exact / 181_440
    assert check.distribution.shares().sum() == pytest.approx(1)


def test_agreement_by_hand():
    found = agreement(np.array([0, 2, 3, 5]), np.array([0, 4, 3, 4]))
    assert (found.boards, found.overestimates) == (4, 1)
    assert found.mean_ratio == pytest.approx((0.5 + 1 + 1.25) / 3)
    assert found.exact_share == 0.5
    assert distribution(np.array([3, 1, 3])).values == (1, 3)
    assert distribution(np.array([3, 1, 3])).counts == (1, 2)


def test_each_board_of_a_path_is_the_naive_replay_with_the_cost_left(small_sweep, every_board):
    rows = load_results(small_sweep)
    paths, solved = solved_paths(small_sweep, 3, GOAL)
    assert solved == rows["tiles"].nunique() == 30
    expected = []
    for tiles, moves in zip(rows["tiles"].drop_duplicates(), rows.drop_duplicates("tiles")["moves"]):
        start = tuple(int(t) for t in tiles.split())
        expected += [(naive.replay(start, moves[:k]), len(moves) - k) for k in range(len(moves) + 1)]
    found = [(tuple(b), int(d)) for b, d in zip(paths.boards.tolist(), paths.distances)]
    assert sorted(found) == sorted(expected)
    assert all(every_board[board] == d for board, d in found)  # the rows' paths are optimal: h* is exact
    assert paths.start.sum() == 30


@pytest.mark.parametrize("moves, message", [
    ("D", "moves 'D': move 1 leaves the board"),
    ("L", "moves 'L' do not lead to the goal 1 2 3 4 5 6 7 8 0"),
    ("X", "moves column: a letter not in 'ULRD'"),
])
def test_a_path_that_cannot_be_replayed_is_refused_naming_it(moves, message):
    start = np.array([[1, 2, 3, 4, 5, 6, 7, 0, 8]], dtype=np.int8)
    if moves == "L":
        start = np.array([GOAL], dtype=np.int8)
    with pytest.raises(ValueError, match=f"^{message}$".replace("(", r"\(").replace(")", r"\)")):
        path_boards(start, [moves], 3, GOAL)


@pytest.mark.parametrize("size", [3, 4, 5])
def test_random_boards_are_solvable_seeded_and_fix_every_blank_position(size):
    goal = goal_tiles("blank-last", size)
    boards = random_boards(size, goal, 3000, np.random.default_rng(7))
    assert all(naive.solvable(tuple(b), "blank-last") for b in boards[:500].tolist())
    assert (np.sort(boards, axis=1) == np.arange(size * size)).all()
    assert (boards == random_boards(size, goal, 3000, np.random.default_rng(7))).all()
    assert {0, 1} <= set(np.argmax(boards == 0, axis=1).tolist())  # the swap's special cases were met


@pytest.mark.parametrize("size, goal_kind, exact", [(3, "blank-last", 14.0), (4, "blank-first", 37.0),
                                                    (5, "blank-first", 76.0)])
def test_a_large_sample_has_the_exact_mean_manhattan_distance(size, goal_kind, exact):
    """400,000 uniform boards (seeded): the mean Manhattan distance within 0.05 of its exact
    expectation (standard error 0.005 to 0.01). A tile is on each cell with the same
    probability, so its expected distance along one axis is the mean of |r - a| over the
    rows r; summed over every cell of the board but the blank's goal cell: 14 on 3x3 (the
    BFS's mean over every board too), 37 on 4x4, 76 on 5x5 with the blank's goal in a corner."""
    goal = goal_tiles(goal_kind, size)
    sampled = sampled_distribution("manhattan", size, goal, (), 400_000, 1)
    assert sampled.boards == 400_000 and abs(sampled.mean - exact) < 0.05
    assert "seed 1" in sampled.method


def test_a_sample_is_the_distribution_of_the_seeded_boards():
    from tilesweep.jobs.quality import kernel_of
    from tilesweep.solver.search import heuristic_values

    again = random_boards(3, GOAL, 1000, np.random.default_rng(1))
    assert sampled_distribution("manhattan", 3, GOAL, (), 1000, 1).counts == distribution(
        heuristic_values(again, 3, kernel_of("manhattan", 3, GOAL))).counts


def test_the_command_prints_h_against_h_star_and_the_distribution():
    result = RUNNER.invoke(app, ["check-heuristic", "linear-conflict"])
    assert result.exit_code == 0, result.output
    check = check_heuristic("linear-conflict", 3, GOAL)
    assert f"h / h*      mean {check.mean_ratio:.4f} (boards with h* > 0); h = h* on {check.exact_share:.2%}" \
        in result.output
    assert f"h values    over the boards checked: mean {check.mean_h:.4f}" in result.output
    assert result.output.count("\n  h = ") == len(check.distribution.values)


def test_the_command_checks_a_sweeps_paths(small_sweep, every_board):
    result = RUNNER.invoke(app, ["check-heuristic", "manhattan", "--sweep", str(small_sweep), "--format", "json"])
    assert result.exit_code == 0, result.output
    found = json.loads(result.output)
    paths, _ = solved_paths(small_sweep, 3, GOAL)
    h = [naive.manhattan(tuple(b), GOAL) for b in paths.boards.tolist()]
    ratios = [x / d for x, d in zip(h, paths.distances) if d > 0]
    assert found["boards"] == len(paths.boards) and found["mean_ratio"] == pytest.approx(np.mean(ratios))
    starts = [x == d for x, d, s in zip(h, paths.distances, paths.start) if s]
    assert found["starts"]["boards"] == 30 and found["starts"]["exact_share"] == pytest.approx(np.mean(starts))
    text = RUNNER.invoke(app, ["check-heuristic", "manhattan", "--sweep", str(small_sweep)]).output
    assert "the optimal paths of 30 solved instances of" in text and "starts      mean" in text


def test_states_alone_on_a_15_puzzle_prints_the_distribution():
    result = RUNNER.invoke(app, ["check-heuristic", "manhattan", "--size", "4", "--states", "5000", "--seed", "2"])
    assert result.exit_code == 0, result.output
    assert "h values    over 5,000 uniform random permutations" in result.output
    assert "seed 2: mean" in result.output and "admissible" not in result.output


@pytest.mark.parametrize("args, line", [
    (["--sweep", "/nonexistent/sweep"], "/nonexistent/sweep"),
    (["--size", "4", "--sweep", "SWEEP"], "hold no solved 4x4 rows with goal 'blank-last' (solved rows there: "
                                          "3x3 blank-last); expected a sweep of that size and goal (--size, --goal)"),
    (["--states", "0"], "count 0 is too small"),
])
def test_bad_input_is_one_line_and_exit_2(args, line, small_sweep):
    args = [str(small_sweep) if a == "SWEEP" else a for a in args]
    result = RUNNER.invoke(app, ["check-heuristic", "manhattan", *args])
    assert result.exit_code == 2, result.output
    lines = result.output.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith("error: ") and line in lines[0]
