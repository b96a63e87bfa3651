"""The 24-puzzle: 5x5 pattern databases against the naive reference, the 5-5-5-5-4
partition admissible on random walks (against IDA* with Manhattan distance), and
``walk:K`` sweeps of 24-puzzles on the embedded cluster, every heuristic at the same cost."""

import numpy as np
import pandas as pd
import pytest

from naive_pdb import naive_table
from program import CLI
from tilesweep.pdb_store import build_table, open_store, tables_for
from tilesweep.pdb_store.symmetry import find_image
from tilesweep.solver import Board, goal_tiles, parse_heuristic, solve
from tilesweep.solver.heuristics import PARTITIONS, kernel_heuristic, partition_groups
from tilesweep.solver.hstate import h_many


@pytest.mark.parametrize("goal_name,group", [
    ("blank-first", (1, 5, 6)),     # tiles 1 and 5 wall the goal blank into cell 0
    ("blank-last", (12, 18, 24)),   # a diagonal line through the middle
])
def test_5x5_three_tile_patterns_equal_naive(goal_name, group):
    tiles = goal_tiles(goal_name, 5)
    np.testing.assert_array_equal(build_table(5, tiles, group), naive_table(5, tiles, group))


@pytest.mark.parametrize("goal", ["blank-first", "blank-last"])
@pytest.mark.parametrize("partition", list(PARTITIONS[5]))
def test_5x5_partitions_cover_every_tile_once(partition, goal):
    tiles = goal_tiles(goal, 5)
    groups = partition_groups(partition, 5, tiles)
    assert sorted(t for g in groups for t in g) == list(range(1, 25))
    assert [len(g) for g in groups] == [int(k) for k in partition.split("-")]


def _walk(goal, steps: int, rng) -> Board:
    """A board ``steps`` random moves from ``goal`` (never undoing the last)."""
    tiles, blank, last = list(goal), goal.index(0), -1
    for _ in range(steps):
        r, c = divmod(blank, 5)
        options = [(r + dr) * 5 + c + dc for dr, dc in ((-1, 0), (1, 0), (0, -1), (0, 1))
                   if 0 <= r + dr < 5 and 0 <= c + dc < 5 and (r + dr) * 5 + c + dc != last]
        cell = options[rng.integers(len(options))]
        tiles[blank], tiles[cell], last, blank = tiles[cell], 0, blank, cell
    return Board(tuple(tiles), 5)


@pytest.fixture(scope="module")
def store(tmp_path_factory):
    with open_store(tmp_path_factory.mktemp("pdb24")) as opened:
        yield opened


@pytest.mark.slow
def test_5_5_5_5_4_is_admissible_on_random_walks(store):
    goal, rng = goal_tiles("blank-first", 5), np.random.default_rng(24)
    boards = [_walk(goal, steps, rng) for steps in (4, 8, 12, 16, 20, 24) for _ in range(8)]
    states = np.array([b.tiles for b in boards], dtype=np.int64)
    h = {}
    for name in ("manhattan", "pdb:5-5-5-5-4", "pdb:5-5-5-5-4+reflect"):
        spec = parse_heuristic(name, 5, goal)
        h[name] = h_many(states, 5, kernel_heuristic(spec, 5, goal, tables_for(spec, 5, goal, store)))
    optimal = np.array([solve(b, goal, "idastar", "manhattan").cost for b in boards])
    assert (h["manhattan"] <= h["pdb:5-5-5-5-4"]).all()  # each group pays its tiles' distances
    assert (h["pdb:5-5-5-5-4"] <= h["pdb:5-5-5-5-4+reflect"]).all()
    assert (h["pdb:5-5-5-5-4+reflect"] <= optimal).all()  # admissible
    assert (h["pdb:5-5-5-5-4+reflect"] > h["manhattan"]).any()


@pytest.mark.cluster
def test_walk_sweep_of_24_puzzles_on_the_embedded_cluster(store, tmp_path):
    import subprocess

    heuristics = ["manhattan", "pdb:5-5-5-5-4", "pdb:5-5-5-5-4+reflect"]
    args = [*CLI, "sweep", "--size", "5", "--goal", "blank-first", "--instances", "walk:30",
            "--count", "12", "--algorithm", "idastar", "--workers", "2", "--chunk-size", "4",
            "--store", str(store.root), "--out", str(tmp_path), "--name", "w24"]
    for name in heuristics:
        args += ["--heuristic", name]
    proc = subprocess.run(args, capture_output=True, text=True, timeout=900)
    assert proc.returncode == 0, proc.stderr
    rows = pd.read_parquet(tmp_path / "w24" / "results")
    assert len(rows) == 36 and (rows["status"] == "solved").all() and (rows["size"] == 5).all()
    costs = rows.pivot(index="instance", columns="heuristic", values="cost")
    assert (costs.nunique(axis=1) == 1).all()  # every heuristic optimal
    nodes = rows.groupby("heuristic")["nodes_generated"].sum()
    assert nodes["pdb:5-5-5-5-4+reflect"] < nodes["manhattan"]


@pytest.mark.parametrize("goal_name", ["blank-first", "blank-last"])
def test_the_three_blocks_of_6_6_6_6_are_rotations_of_one_table(goal_name):
    goal = goal_tiles(goal_name, 5)
    a, b, c, d = partition_groups("6-6-6-6", 5, goal)
    assert find_image(5, goal, c, [a, b]).source == b
    assert find_image(5, goal, d, [a, b]).source == b
    assert find_image(5, goal, a, [b, c, d]) is None  # its tiles wall the blank in: no image


@pytest.mark.parametrize("goal_name,source,group", [
    ("blank-first", (3, 4, 8), (18, 19, 24)),   # a quarter turn
    ("blank-last", (1, 2, 6), (4, 5, 10)),      # a mirror: tile 4 stands for 2, 5 for 1
])
def test_an_image_table_equals_its_own_search(tmp_path, goal_name, source, group):
    goal = goal_tiles(goal_name, 5)
    with open_store(tmp_path) as opened:
        opened.build(5, goal, source)
        assert find_image(5, goal, group, [source]) is not None
        layers = []
        opened.build(5, goal, group, on_layer=layers.append)
        assert not layers  # read from the stored image, not searched
        np.testing.assert_array_equal(opened.table(5, goal, group), naive_table(5, goal, group))


def test_no_image_when_the_blank_regions_differ(tmp_path):
    goal = goal_tiles("blank-first", 5)
    # (18,19,23) is (1,5,6) turned half a turn, but only (1,5,6) walls the goal blank in
    assert find_image(5, goal, (18, 19, 23), [(1, 5, 6)]) is None
    with open_store(tmp_path) as opened:
        opened.build(5, goal, (1, 5, 6))
        layers = []
        opened.build(5, goal, (18, 19, 23), on_layer=layers.append)
        assert layers
        np.testing.assert_array_equal(opened.table(5, goal, (18, 19, 23)),
                                      build_table(5, goal, (18, 19, 23)))
