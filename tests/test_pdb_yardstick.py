"""The C yardstick of the pattern-database kernel (benchmarks/c_idastar_pdb.c) searches the
same tree as tilesweep: the same cost, nodes generated and nodes expanded on every board,
in both its forms, with and without the mirror lookup, with parent and automaton pruning,
on the 15- and the 24-puzzle. A ratio of speeds between the two means something only then.
"""

import importlib.util
import shutil
from pathlib import Path

import numpy as np
import pytest

from tilesweep.pdb_store import open_store, tables_for
from tilesweep.solver import goal_tiles, parse_heuristic
from tilesweep.solver.generators import random_walk_instance

pytestmark = [pytest.mark.slow, pytest.mark.skipif(shutil.which("gcc") is None, reason="needs gcc")]


@pytest.fixture(scope="module")
def yardstick():
    path = Path(__file__).parents[1] / "benchmarks" / "pdb_yardstick.py"
    module_spec = importlib.util.spec_from_file_location("pdb_yardstick", path)
    module = importlib.util.module_from_spec(module_spec)
    module_spec.loader.exec_module(module)
    return module


@pytest.fixture(scope="module")
def store(tmp_path_factory):
    with open_store(tmp_path_factory.mktemp("pdb")) as opened:
        for size, partition in ((4, "pdb:5-5-5"), (5, "pdb:5-5-5-5-4")):
            goal = goal_tiles("blank-first", size)
            tables_for(parse_heuristic(partition, size, goal), size, goal, opened)
        yield opened


def walks(size: int, steps: int, count: int, seed: int) -> list[tuple[int, ...]]:
    goal, rng = goal_tiles("blank-first", size), np.random.default_rng(seed)
    return [random_walk_instance(size, goal, steps, rng).tiles for _ in range(count)]


@pytest.mark.parametrize("prune", ["parent", "fsm"])
@pytest.mark.parametrize(("size", "heuristic", "steps"), [(4, "pdb:5-5-5", 50), (4, "pdb:5-5-5+reflect", 60),
                                                          (5, "pdb:5-5-5-5-4", 50), (5, "pdb:5-5-5-5-4+reflect", 60)])
def test_the_c_program_counts_the_nodes_tilesweep_counts(yardstick, store, size, heuristic, steps, prune):
    boards = walks(size, steps, 4, seed=size * 100 + steps)
    runs = yardstick.counts(size, heuristic, prune, boards, store)
    assert list(runs) == ["C plain", "C prefetch", "tilesweep"]
    ours = runs["tilesweep"]
    assert all(cost > 0 for cost, _, _ in ours) and sum(generated for _, generated, _ in ours) > 10_000
    assert runs["C plain"] == ours
    assert runs["C prefetch"] == ours
