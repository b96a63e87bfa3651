"""``check-heuristic``: every 8-puzzle board against its exact distance (BFS from the goal)."""

import subprocess

import numpy as np
import pytest

from program import CLI
from test_plugins import EXAMPLE
from tilesweep.jobs.check import check_heuristic, check_sample, exact_distances
from tilesweep.jobs.plugins import load_files
from tilesweep.solver import Board, solve
from tilesweep.solver.board import goal_tiles
from tilesweep.solver.generators import uniform_instance

GOAL = goal_tiles("blank-last", 3)


@pytest.fixture(scope="module")
def exact():
    return exact_distances(3, GOAL)


@pytest.mark.slow  # the IDA* solves compile their kernel on a fresh cache
def test_the_bfs_reaches_every_board_of_the_goals_parity_at_its_optimal_cost(exact):
    boards, d = exact
    assert len(boards) == 181_440 and d.max() == 31 and d.min() == 0
    for i in (0, 1000, 90_000, int(d.argmax())):
        assert solve(Board(tuple(boards[i].tolist()), 3), GOAL, "idastar", "manhattan").cost == d[i]


def test_manhattan_is_admissible_and_consistent():
    manhattan = check_heuristic("manhattan", 3, GOAL)
    assert manhattan.admissible and manhattan.consistent and manhattan.mean_h < manhattan.mean_distance
    assert manhattan.moves == 2 * 241_920  # each move seen from both of its boards


@pytest.mark.slow  # compiles the plugin's kernel
def test_twice_manhattan_is_caught_and_the_command_exits_1():
    load_files([EXAMPLE])
    twice = check_heuristic("plugin:twice-manhattan", 3, GOAL)
    assert not twice.admissible and not twice.consistent
    assert all(h > d for _, h, d in twice.worst_overestimates) and len(twice.worst_overestimates) == 5
    out = subprocess.run([*CLI, "check-heuristic", "plugin:twice-manhattan", "--plugin", str(EXAMPLE)],
                         capture_output=True, text=True, timeout=600)
    assert out.returncode == 1, out.stderr
    assert f"admissible  no: {twice.overestimates:,} boards" in out.stdout
    assert "overestimate  " in out.stdout


def test_a_15_puzzle_is_refused_in_one_line():
    out = subprocess.run([*CLI, "check-heuristic", "manhattan", "--size", "4"], capture_output=True, text=True,
                         timeout=300)
    assert out.returncode == 2 and out.stderr.strip().splitlines() == [
        "error: size 4: check-heuristic compares with exact distances on the 8-puzzle only; expected --size 3, "
        "or --sample N boards solved optimally"]


def test_a_sample_matches_the_exact_check_on_its_boards(exact):
    """On the 8-puzzle the sample's distances (IDA* with the reference) are the BFS's."""
    sample = check_sample("manhattan", 3, GOAL, (), 30, 4, "linear-conflict", ())
    assert sample.admissible and sample.consistent and sample.boards == 30 and sample.moves >= 60
    boards, d = exact
    where = {bytes(b): i for i, b in enumerate(boards)}
    rng = np.random.default_rng(4)
    drawn = [uniform_instance(3, GOAL, rng) for _ in range(30)]
    exact_mean = np.mean([d[where[bytes(np.array(b.tiles, dtype=np.int8))]] for b in drawn])
    assert sample.mean_distance == pytest.approx(exact_mean)


@pytest.mark.slow  # compiles the plugin's kernel and builds pdb:5-5-5 (a 15-puzzle reference)
def test_twice_manhattan_on_a_15_puzzle_sample_exits_1_naming_boards(tmp_path):
    out = subprocess.run([*CLI, "check-heuristic", "plugin:twice-manhattan", "--plugin", str(EXAMPLE), "--size", "4",
                          "--goal", "blank-first", "--sample", "3", "--seed", "1", "--reference", "pdb:5-5-5",
                          "--store", str(tmp_path)], capture_output=True, text=True, timeout=900)
    assert out.returncode == 1, out.stderr
    assert "3 uniform random boards (seed 1), their optimal costs by IDA* with pdb:5-5-5" in out.stdout
    assert "admissible  no: 3 boards" in out.stdout
    assert out.stdout.count("overestimate  ") == 3


@pytest.mark.slow  # compiles the plugin's kernel
def test_a_sweep_checks_its_heuristics_first_and_an_inadmissible_one_stops_it(tmp_path):
    out = subprocess.run([*CLI, "sweep", "--size", "3", "--count", "4", "--plugin", str(EXAMPLE), "--heuristic",
                          "manhattan", "--heuristic", "plugin:twice-manhattan", "--check-heuristics", "--workers", "1",
                          "--out", str(tmp_path / "sweeps"), "--name", "checked"],
                         capture_output=True, text=True, timeout=600)
    assert out.returncode == 1, out.stderr
    assert "heuristic   manhattan\n" in out.stderr and "admissible  no: 157,176 boards" in out.stderr
    assert out.stderr.strip().splitlines()[-1] == (
        "error: heuristic 'plugin:twice-manhattan' overestimates the distance of 157,176 of 181,440 boards "
        "checked; its costs would not be optimal: the sweep does not start")
    assert not (tmp_path / "sweeps" / "checked").exists()
