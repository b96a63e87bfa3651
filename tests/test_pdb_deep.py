"""``pdb verify --deep``: the rules of pdb_store/deep.py hold on built tables and catch damage."""

from itertools import combinations

import numpy as np
import pytest

from naive_pdb import naive_table
from tilesweep.pdb_store import build_table
from tilesweep.pdb_store.deep import check_entry, first_bad_entry
from tilesweep.solver.board import goal_tiles
from tilesweep.solver.heuristics import PARTITIONS, partition_groups

GOALS = ("blank-last", "blank-first")
SNAIL = (1, 2, 3, 8, 0, 4, 7, 6, 5)  # blank in the centre


def _tables_3x3():
    for goal in GOALS:
        tiles = goal_tiles(goal, 3)
        for partition in PARTITIONS[3]:
            for group in partition_groups(partition, 3, tiles):
                yield tiles, group
    yield SNAIL, (1, 2, 3, 8)
    yield SNAIL, (2, 4, 6, 8)
    yield pytest.param(SNAIL, (1, 2, 3, 4, 5, 6, 7), marks=pytest.mark.slow)  # the naive table: 3 s


@pytest.mark.parametrize("goal,group", list(_tables_3x3()))
def test_3x3_tables_keep_the_rules(goal, group):
    table = build_table(3, goal, group)
    assert first_bad_entry(table, 3, goal, group) is None
    assert first_bad_entry(naive_table(3, goal, group), 3, goal, group) is None


@pytest.mark.parametrize("size,group", [(4, (1, 2, 3)), (4, (5, 10, 15)), (4, (1, 2, 3, 6, 7)), (5, (1, 2)),
                                        (5, (7, 13, 19))])
def test_4x4_and_5x5_tables_keep_the_rules(size, group):
    for goal in GOALS:
        tiles = goal_tiles(goal, size)
        assert first_bad_entry(build_table(size, tiles, group), size, tiles, group) is None


@pytest.mark.slow
@pytest.mark.parametrize("k", range(1, 8))
def test_every_3x3_group_keeps_the_rules(k):
    for goal in (goal_tiles("blank-last", 3), SNAIL):
        for group in combinations(range(1, 9), k):
            assert first_bad_entry(build_table(3, goal, group), 3, goal, group) is None, group


@pytest.mark.slow
@pytest.mark.parametrize("partition", ["5-5-5", "6-6-3"])
def test_4x4_partitions_keep_the_rules(partition):
    tiles = goal_tiles("blank-first", 4)
    for group in partition_groups(partition, 4, tiles):
        assert first_bad_entry(build_table(4, tiles, group), 4, tiles, group) is None, group


@pytest.mark.parametrize("goal,group,sample", [
    (goal_tiles("blank-first", 3), (1, 2, 3, 4), 60),
    (SNAIL, (1, 2, 3, 4, 5, 6, 7), 30),
    pytest.param(goal_tiles("blank-first", 3), (1, 2, 3, 4), 600, marks=pytest.mark.slow),
    pytest.param(goal_tiles("blank-first", 3), (1, 2, 3, 4), None, marks=pytest.mark.exhaustive),
])
def test_entries_changed_by_one_are_refused_at_their_index(goal, group, sample):
    table = build_table(3, goal, group)
    ranks = np.flatnonzero(table != 255)
    if sample is not None:  # a seeded sample of the entries; every entry with --exhaustive
        ranks = np.random.default_rng(sample).choice(ranks, sample, replace=False)
    for rank in ranks:
        for delta in (1, -1):
            if int(table[rank]) + delta < 0:
                continue
            damaged = table.copy()
            damaged[rank] = int(table[rank]) + delta
            own = check_entry(damaged, 3, goal, group, int(rank))
            assert own is not None and own.rule in (1, 2), (rank, delta)  # goal, or parity
            first = first_bad_entry(damaged, 3, goal, group)
            assert first is not None and first.rank <= rank


def test_goal_not_zero_is_reported_first():
    goal, group = goal_tiles("blank-last", 3), (1, 2, 3)
    table = build_table(3, goal, group)
    goal_rank = int(np.flatnonzero(table == 0)[0])
    table[goal_rank] = 2
    bad = first_bad_entry(table, 3, goal, group)
    assert bad.rank == goal_rank and bad.rule == 1 and bad.cells == (0, 1, 2)
    assert "the goal placement must hold 0" in bad.describe(group)


def test_unreached_value_where_a_placement_is_reachable_is_refused():
    goal, group = goal_tiles("blank-last", 3), (1, 2, 3, 4)
    table = build_table(3, goal, group)
    rank = int(np.argmax(table))
    table[rank] = 255
    bad = check_entry(table, 3, goal, group, rank)
    assert bad is not None and bad.rule == 4 and bad.neighbour is not None
    assert table[bad.neighbour] < 254
    assert first_bad_entry(table, 3, goal, group).rank <= rank


def test_a_description_names_index_placement_and_value():
    goal, group = goal_tiles("blank-last", 3), (1, 2)
    table = build_table(3, goal, group)
    table[5] += 1
    bad = first_bad_entry(table, 3, goal, group)
    assert bad.rank == 5 and bad.cells == (0, 6) and bad.rule == 2
    assert bad.describe(group).startswith(f"entry 5 (tiles 1,2 on cells 0,6) holds {table[5]}:")
