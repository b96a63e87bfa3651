"""IDA* with reflected pattern databases: node counts, iteration by iteration, equal to a
plain recursive IDA* whose h is recomputed from naively built tables at every node.

The kernel skips the mirror lookup of a child that the regular sum already cuts off at
or beyond the least f above the bound met so far (Korf & Felner's trick), and computes
every child's table index before reading any: neither may change a count. The boards
are chosen where the mirror sum often exceeds the regular one, so a wrong skip would
show.
"""

import numpy as np
import pytest

import naive
from naive_pdb import database_h, naive_table
from naive_walking import walking_distance_by_table
from test_splitsearch import check_split
from tilesweep.pdb_store import open_store, tables_for
from tilesweep.solver import goal_tiles, parse_heuristic, solve
from tilesweep.solver.generators import random_walk_instance, uniform_instance

WALK = 26  # moves of the 15-puzzle walks: a few thousand nodes for the naive search


@pytest.fixture(scope="module")
def store(tmp_path_factory):
    with open_store(tmp_path_factory.mktemp("pdb")) as opened:
        yield opened


def naive_pdb_h(size, goal, groups, reflect):
    """h(tiles, goal): :func:`naive_pdb.database_h` over the groups' naive tables."""
    return database_h(size, goal, groups, [naive_table(size, goal, group) for group in groups], reflect)


def check_counts(board, goal, name, h, tables):
    expected = naive.idastar(board.tiles, goal, h)
    got = solve(board, goal, "idastar", name, tables)
    assert got.h0 == h(board.tiles, goal)
    assert (got.cost, got.moves) == (expected["cost"], expected["moves"]), board.tiles
    assert (got.nodes_generated, got.nodes_expanded) == (expected["generated"], expected["expanded"]), board.tiles
    assert [(i["bound"], i["nodes_generated"]) for i in got.iterations] == expected["iterations"]


def mirror_wins(h_plain, h_reflect, boards, goal) -> int:
    """Boards whose h the mirror raises: the test must include some."""
    return sum(h_reflect(b.tiles, goal) > h_plain(b.tiles, goal) for b in boards)


@pytest.mark.parametrize("goal_name", ["blank-first", "blank-last"])
@pytest.mark.parametrize("name", ["pdb:4-4+reflect", "pdb:5-3+reflect", "pdb:1,2,3/4,5,6,7,8+reflect",
                                  "max(pdb:5-3+reflect,walking-distance)", "max(pdb:4-4+reflect,linear-conflict)"])
def test_8_puzzle_counts_equal_naive(goal_name, name, store):
    goal = goal_tiles(goal_name, 3)
    spec = parse_heuristic(name, 3, goal)
    tables = tables_for(spec, 3, goal, store)
    pdb_h = naive_pdb_h(3, goal, spec.groups, True)
    others = {"walking-distance": walking_distance_by_table, "linear-conflict": naive.linear_conflict}
    parts = [pdb_h] + [others[b] for b in spec.bases if b in others]

    def h(tiles, goal):
        return max(part(tiles, goal) for part in parts)

    rng = np.random.default_rng(sum(map(ord, name + goal_name)))
    boards = [uniform_instance(3, goal, rng) for _ in range(12)]
    assert mirror_wins(naive_pdb_h(3, goal, spec.groups, False), pdb_h, boards, goal) > 0
    for board in boards:
        if board.tiles != goal:
            check_counts(board, goal, name, h, tables)


def test_15_puzzle_walks_counts_equal_naive(store):
    """Five 3-tile groups (quick to build naively) with the reflection on 15-puzzle walks."""
    goal = goal_tiles("blank-first", 4)
    name = "pdb:1,2,3/4,5,6/7,8,9/10,11,12/13,14,15+reflect"
    spec = parse_heuristic(name, 4, goal)
    tables = tables_for(spec, 4, goal, store)
    h = naive_pdb_h(4, goal, spec.groups, True)
    boards = [random_walk_instance(4, goal, WALK, np.random.default_rng(seed)) for seed in range(4)]
    assert mirror_wins(naive_pdb_h(4, goal, spec.groups, False), h, boards, goal) > 0
    for board in boards:
        check_counts(board, goal, name, h, tables)


def test_split_search_counts_with_reflection(store):
    """Parallel IDA*'s subtree kernel runs the same contour: serial counts per iteration."""
    goal = goal_tiles("blank-first", 4)
    name = "pdb:1,2,3/4,5,6/7,8,9/10,11,12/13,14,15+reflect"
    tables = tables_for(parse_heuristic(name, 4, goal), 4, goal, store)
    board = random_walk_instance(4, goal, 40, np.random.default_rng(9))
    check_split(board, "blank-first", name, depth=6, tables=tables)
