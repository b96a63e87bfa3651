"""A sweep's instances: the compiled generator gives NumPy's boards, index for index.

GOLDEN was printed by the generators as they were before instances were compiled
(tilesweep at commit fc62727: ``uniform_instance`` / ``random_walk_instance`` of
``tilesweep.solver.generators`` with ``np.random.default_rng(SeedSequence([seed, index]))``),
so these boards are the ones every sweep so far has solved.
"""

import numpy as np
import pytest

from tilesweep.jobs.instances import instance_rng, make_instances, seeded_boards
from tilesweep.jobs.spec import build_spec
from tilesweep.jobs.work import chunk_jobs
from tilesweep.solver.board import goal_tiles
from tilesweep.solver.generators import random_walk_instance, uniform_instance

GOLDEN = [  # (source, size, goal, seed, index, tiles)
    ("uniform", 3, "blank-last", 0, 0, "5 4 2 6 3 8 7 0 1"),
    ("uniform", 3, "blank-last", 0, 1, "3 1 6 7 8 0 4 2 5"),
    ("uniform", 3, "blank-last", 0, 2, "2 8 1 0 5 6 7 4 3"),
    ("uniform", 3, "blank-last", 0, 999, "0 8 5 2 7 4 3 6 1"),
    ("uniform", 3, "blank-last", 0, 123456, "2 5 1 0 3 7 4 6 8"),
    ("uniform", 3, "blank-last", 0, 999999, "2 0 7 3 4 5 8 6 1"),
    ("uniform", 3, "blank-last", 0, 9999999, "0 6 2 3 5 4 1 7 8"),
    ("uniform", 3, "blank-first", 7, 0, "7 0 8 1 3 6 2 4 5"),
    ("uniform", 3, "blank-first", 7, 5, "1 5 2 7 8 4 3 0 6"),
    ("uniform", 3, "blank-first", 7, 4294967299, "5 6 2 4 7 0 8 3 1"),
    ("uniform", 4, "blank-first", 2, 0, "7 10 6 14 2 0 13 15 12 9 11 5 3 4 8 1"),
    ("uniform", 4, "blank-first", 2, 1, "3 0 12 10 2 6 8 13 1 11 4 15 14 5 9 7"),
    ("uniform", 4, "blank-first", 2, 77, "10 9 2 8 12 15 5 1 4 11 0 13 3 7 14 6"),
    ("uniform", 4, "blank-first", 2, 54321, "10 7 2 14 8 15 6 13 9 5 3 11 0 1 4 12"),
    ("uniform", 5, "blank-last", 1099511627781, 0, "7 19 18 3 8 24 2 13 17 21 10 9 16 12 1 20 23 5 6 0 14 4 22 15 11"),
    ("uniform", 5, "blank-last", 1099511627781, 3, "7 5 16 1 8 17 23 15 19 21 4 14 18 10 0 2 22 20 24 11 3 13 9 12 6"),
    ("walk:40", 4, "blank-first", 2, 0, "5 1 4 3 10 12 9 7 13 2 11 15 8 14 6 0"),
    ("walk:40", 4, "blank-first", 2, 1, "2 10 8 3 9 5 4 7 6 12 11 15 1 0 13 14"),
    ("walk:40", 4, "blank-first", 2, 999, "1 2 3 7 4 15 5 6 8 12 10 11 13 14 9 0"),
    ("walk:7", 3, "blank-last", 11, 0, "1 5 2 4 3 6 7 0 8"),
    ("walk:7", 3, "blank-last", 11, 4, "1 6 2 4 3 0 7 5 8"),
    ("walk:7", 3, "blank-last", 11, 31337, "1 2 3 0 7 6 5 4 8"),
    ("walk:30", 5, "blank-last", 3, 0, "3 1 7 5 10 2 13 8 15 20 11 6 12 4 0 16 17 18 9 14 21 22 23 19 24"),
    ("walk:30", 5, "blank-last", 3, 9, "1 2 3 5 10 11 6 7 4 15 16 13 18 9 19 12 14 8 0 20 21 22 17 24 23"),
]


@pytest.mark.parametrize("source, size, goal, seed, index, tiles", GOLDEN)
def test_golden_boards(source, size, goal, seed, index, tiles):
    board = seeded_boards(source, seed, size, goal_tiles(goal, size), index, index + 1)[0]
    assert " ".join(map(str, board)) == tiles


def test_golden_boards_through_a_sweep_plan(tmp_path):
    """The planned chunks (index ranges) and make_instances give the golden boards."""
    golden = {i: t for s, n, g, seed, i, t in GOLDEN if (s, n, g, seed) == ("uniform", 3, "blank-last", 0)}
    spec = build_spec({"out": str(tmp_path), "count": 1000, "chunk_size": 7})[0]
    planned = {i: " ".join(map(str, t)) for job in chunk_jobs(spec) for i, t in job.instances}
    assert len(planned) == 1000 and all(planned[i] == t for i, t in golden.items() if i < 1000)
    assert [b.text() for b in make_instances(spec)] == [planned[i] for i in range(1000)]


def reference(source, size, goal, seed, index):
    """The board NumPy's generators give (the definition the compiled one follows)."""
    rng = instance_rng(seed, index)
    if source == "uniform":
        return uniform_instance(size, goal, rng).tiles
    return random_walk_instance(size, goal, int(source[5:]), rng).tiles


@pytest.mark.parametrize("source", ["uniform", "walk:0", "walk:1", "walk:13", "walk:60"])
@pytest.mark.parametrize("size, goal, seed, first", [
    (3, "blank-last", 0, 0), (3, "blank-first", 123, 5_000_000), (4, "blank-first", 2**32 + 1, 2**32 - 500),
    (5, "blank-last", 2**70 + 9, 77)])
def test_compiled_boards_match_numpy(source, size, goal, seed, first):
    goal_t = goal_tiles(goal, size)
    count = 1000
    boards = seeded_boards(source, seed, size, goal_t, first, first + count)
    assert boards.shape == (count, size * size) and boards.dtype == np.int8
    expected = [reference(source, size, goal_t, seed, first + k) for k in range(count)]
    assert [tuple(b) for b in boards.tolist()] == expected
