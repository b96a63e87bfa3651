"""``max(...)`` of several pattern databases: IDA* and A* node counts equal those of a plain
search whose h is recomputed at every node as the largest of the databases' sums (each
database's tables built naively on the 8-puzzle), and h is never below any part's.

The kernels read one table entry per database lookup per move and skip the later lookups
of a child that the earlier ones already cut off; neither may change a count.
"""

import numpy as np
import pytest

import naive
from naive_pdb import database_h, naive_table
from tilesweep.pdb_store import open_store, tables_for
from tilesweep.solver import goal_tiles, parse_heuristic, solve
from tilesweep.solver.errors import InvalidOptionError
from tilesweep.solver.generators import random_walk_instance, uniform_instance


@pytest.fixture(scope="module")
def store(tmp_path_factory):
    with open_store(tmp_path_factory.mktemp("pdb")) as opened:
        yield opened


def parts_h(names, size, goal, table_of):
    """The h of each database named, its tables from ``table_of(group)``."""
    out = []
    for name in names:
        spec = parse_heuristic(name, size, goal)
        out.append(database_h(size, goal, spec.groups, [table_of(g) for g in spec.groups], spec.reflect))
    return out


def check_search(board, goal, name, parts, tables, algorithm):
    def h(tiles, goal):
        return max(part(tiles, goal) for part in parts)

    got = solve(board, goal, algorithm, name, tables)
    assert got.h0 == h(board.tiles, goal)
    if algorithm == "idastar":
        expected = naive.idastar(board.tiles, goal, h)
        assert [(i["bound"], i["nodes_generated"]) for i in got.iterations] == expected["iterations"]
    else:
        expected = naive.astar_counts(board.tiles, goal, h)
    assert (got.cost, got.moves) == (expected["cost"], expected["moves"]), board.tiles
    assert (got.nodes_generated, got.nodes_expanded) == (expected["generated"], expected["expanded"]), board.tiles


@pytest.mark.parametrize("algorithm", ["idastar", "astar"])
@pytest.mark.parametrize("databases", [("pdb:4-4", "pdb:5-3"), ("pdb:4-4+reflect", "pdb:1,2,3/4,5,6,7,8")])
def test_8_puzzle_counts_equal_naive(databases, algorithm, store):
    goal = goal_tiles("blank-last", 3)
    name = f"max({','.join(databases)})"
    tables = tables_for(parse_heuristic(name, 3, goal), 3, goal, store)
    parts = parts_h(databases, 3, goal, lambda group: naive_table(3, goal, group))
    rng = np.random.default_rng(7)
    boards = [uniform_instance(3, goal, rng) for _ in range(8)]
    # each database is the larger on some board: a lookup dropped or skipped wrongly would show
    for i in range(len(parts)):
        assert any(parts[i](b.tiles, goal) > max(p(b.tiles, goal) for p in parts[:i] + parts[i + 1:])
                   for b in boards)
    for board in boards:
        check_search(board, goal, name, parts, tables, algorithm)


def test_15_puzzle_walks_three_lookups_and_a_built_in(store):
    """Two 5-5-5 partitions, one reflected, beside Manhattan distance (which a database sum
    never falls below here, so the counts are the databases')."""
    goal = goal_tiles("blank-first", 4)
    databases = ("pdb:1,2,3,4,5/6,7,8,9,10/11,12,13,14,15+reflect", "pdb:5-5-5")
    name = f"max({','.join(databases)},manhattan)"
    spec = parse_heuristic(name, 4, goal)
    assert len(spec.lookups) == 3
    tables = tables_for(spec, 4, goal, store)
    by_group = dict(zip(spec.groups, tables))
    parts = parts_h(databases, 4, goal, by_group.__getitem__) + [naive.manhattan]
    for seed in range(3):
        check_search(random_walk_instance(4, goal, 30, np.random.default_rng(seed)), goal, name, parts, tables,
                     "idastar")


def test_too_many_lookups_is_one_line():
    goal = goal_tiles("blank-first", 4)
    with pytest.raises(InvalidOptionError, match=r"6 lookups .* at most 8 groups and 4 lookups"):
        parse_heuristic("max(pdb:1,2/3,4+reflect,pdb:5,6+reflect,pdb:7,8+reflect)", 4, goal)
