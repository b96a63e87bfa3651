"""Korf & Felner's (2002) 50 random 24-puzzles as the bundled source ``korf50-24``: every
board solvable, the published lengths consistent with the boards, and the sweep spec."""

import numpy as np
import pytest

from sweeps_local import local_sweep
from tilesweep.jobs.instances import make_instances
from tilesweep.jobs.published import published_figures
from tilesweep.jobs.sources import KORF50_24, read_instance_file
from tilesweep.jobs.spec import build_spec
from tilesweep.solver import goal_tiles, parse_heuristic
from tilesweep.solver.board import is_solvable
from tilesweep.solver.errors import InvalidOptionError
from tilesweep.solver.heuristics import kernel_heuristic
from tilesweep.solver.hstate import h_many

GOAL = goal_tiles("blank-first", 5)
# Korf & Taylor (1996), the first ten of the set
KORF_TAYLOR = {1: 95, 2: 96, 3: 97, 4: 98, 5: 100, 6: 101, 7: 104, 8: 108, 9: 113, 10: 114}


def test_every_board_is_a_distinct_solvable_24_puzzle():
    boards = read_instance_file(str(KORF50_24), 5)
    assert len(boards) == 50 and len(set(boards)) == 50
    assert all(is_solvable(b, GOAL, 5) for b in boards)
    assert boards[0] == (14, 5, 9, 2, 18, 8, 23, 19, 12, 17, 15, 0, 10, 20, 4, 6, 11, 21, 1, 7,
                         24, 3, 16, 22, 13)


def test_published_lengths_fit_the_boards():
    boards = np.array(read_instance_file(str(KORF50_24), 5), dtype=np.int64)
    lengths = {i: board.length for i, board in published_figures(KORF50_24).items()}
    assert sorted(lengths) == list(range(1, 51))
    cost = np.array([lengths[i] for i in range(1, 51)])
    assert cost.mean() == pytest.approx(100.78)  # the mean Korf & Felner give
    assert {i: lengths[i] for i in KORF_TAYLOR} == KORF_TAYLOR
    blank = np.argmax(boards == 0, axis=1)
    assert ((cost - (blank // 5 + blank % 5)) % 2 == 0).all()  # each move moves the blank one cell
    for name in ("manhattan", "linear-conflict"):
        h = h_many(boards, 5, kernel_heuristic(parse_heuristic(name, 5, GOAL), 5, GOAL))
        assert (h <= cost).all()


def test_the_source_fixes_size_goal_and_count(tmp_path):
    spec = build_spec({"out": str(tmp_path), "instances": "korf50-24"})[0]
    assert (spec.size, spec.goal, spec.count) == (5, "blank-first", 50)
    assert make_instances(spec)[37].tiles == read_instance_file(str(KORF50_24), 5)[37]
    for bad, quoted in (({"size": 4}, "size 4"), ({"count": 51}, "count 51"), ({"goal": "blank-last"}, "'blank-last'")):
        with pytest.raises(InvalidOptionError, match=quoted):
            build_spec({"out": str(tmp_path), "instances": "korf50-24", **bad})


def test_a_sweep_of_the_first_boards_under_a_node_budget(tmp_path):
    import pandas as pd

    folder = local_sweep(tmp_path, "k50", instances="korf50-24", count=2, algorithms=("idastar",),
                         heuristics=("manhattan",), max_nodes=5000)
    rows = pd.read_parquet(folder / "results").sort_values("instance")
    assert list(rows["status"]) == ["budget_exceeded"] * 2
    assert list(rows["size"]) == [5, 5] and list(rows["goal"]) == ["blank-first"] * 2
