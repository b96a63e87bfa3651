"""Zero-aware pattern databases (an entry per placement and blank region): the index, the
values against a naive search over (placement, blank cell), the place in the store, and the
PDB IDA* kernel reading them (admissible, optimal, node counts equal to a naive IDA*)."""

import itertools
import json

import numpy as np
import pytest

import naive
from naive_pdb import adjacent, naive_states
from test_pdb_cli import invoke
from tilesweep.jobs.quality import exact_distances
from tilesweep.pdb_store import open_store, tables_for
from tilesweep.pdb_store.build import build_table
from tilesweep.pdb_store.zeroaware import build_zero_aware_table, first_bad_state, order_first, sets_first
from tilesweep.solver import Board, goal_tiles, parse_heuristic, solve
from tilesweep.solver.errors import InvalidOptionError
from tilesweep.solver.generators import random_walk_instance, uniform_instance
from tilesweep.solver.heuristics import ZERO_AWARE, kernel_heuristic
from tilesweep.solver.ranking import rank_placement
from tilesweep.solver.search import heuristic_values
from tilesweep.solver.zeroaware import (
    binomials,
    flood_geometry,
    offsets_for,
    zero_aware_count,
    zero_aware_index,
    zero_aware_parts,
)


@pytest.fixture(scope="module")
def store(tmp_path_factory):
    with open_store(tmp_path_factory.mktemp("za")) as opened:
        yield opened


def naive_regions(cells, size):
    """The blank regions of a placement: sets of free cells connected through free cells."""
    free = set(range(size * size)) - set(cells)
    regions = []
    while free:
        region, todo = set(), [min(free)]
        while todo:
            c = todo.pop()
            if c in region:
                continue
            region.add(c)
            todo += [d for d in adjacent(c, size) if d in free and d not in region]
        regions.append(region)
        free -= region
    return regions


def index(size, cells, blank):
    k = len(cells)
    return int(zero_aware_index(np.array(cells, dtype=np.int64), blank, offsets_for(size, k),
                                binomials(size * size), flood_geometry(size)))


@pytest.mark.parametrize("size,k", [(3, 1), (3, 2), (3, 3), (3, 4), (4, 2)])
def test_the_index_numbers_the_placement_region_pairs_without_gaps(size, k):
    seen = []
    for cells in itertools.permutations(range(size * size), k):
        for region in naive_regions(cells, size):
            indices = {index(size, cells, blank) for blank in region}
            assert len(indices) == 1, (cells, region)  # every cell of a region: one entry
            seen += indices
    assert sorted(seen) == list(range(zero_aware_count(size, k)))


@pytest.mark.parametrize("goal_name", ["blank-first", "blank-last"])
@pytest.mark.parametrize("size,group", [(3, (1, 2)), (3, (1, 2, 3)), (3, (2, 5, 8)), (3, (1, 2, 3, 4)),
                                        (4, (1, 2, 3)), (4, (6, 11, 15)), (4, (3, 4))])
def test_every_entry_is_the_naive_distance_of_its_placement_and_blank(size, group, goal_name):
    goal = goal_tiles(goal_name, size)
    table = build_zero_aware_table(size, goal, group)
    distances = naive_states(size, goal, group)
    reached = set()
    for (cells, blank), d in distances.items():
        i = index(size, cells, blank)
        assert table[i] == d, (cells, blank)
        reached.add(i)
    assert table.size == zero_aware_count(size, len(group)) and len(reached) == int((table != 255).sum())
    assert first_bad_state(table, size, goal, group) is None


@pytest.mark.parametrize("size,group", [(3, (1, 2, 3)), (3, (5, 6, 7, 8)), (4, (1, 2, 3)), (4, (1, 5, 6))])
def test_never_below_todays_entry_and_equal_where_one_region(size, group):
    """Today's entry is the least over the blank's regions (Korf & Felner's kind)."""
    goal = goal_tiles("blank-first", size)
    plain, table = build_table(size, goal, group), build_zero_aware_table(size, goal, group)
    higher = 0
    for cells in itertools.permutations(range(size * size), len(group)):
        today = plain[rank_placement(np.array(cells, dtype=np.int64), size * size)]
        values = [int(table[index(size, cells, min(region))]) for region in naive_regions(cells, size)]
        assert min(values) == today and (len(values) > 1 or values[0] == today), cells
        higher += sum(v > today for v in values)
    assert higher > 0  # the test sees placements whose regions differ


def test_an_entry_changed_is_found_by_the_deep_check():
    goal = goal_tiles("blank-first", 3)
    table = build_zero_aware_table(3, goal, (1, 2, 3)).copy()
    assert first_bad_state(table, 3, goal, (1, 2, 3)) is None
    table[345] += 2
    assert first_bad_state(table, 3, goal, (1, 2, 3)) is not None


def test_the_cli_builds_lists_and_verifies_them_under_names_of_their_own(tmp_path):
    root = tmp_path / "store"
    flag = invoke("pdb", "build", "--size", "3", "--partition", "4-4", "--zero-aware", "--goal", "blank-first",
                  "--store", str(root))
    assert flag.exit_code == 0, flag.output
    lines = flag.stdout.splitlines()
    assert len(lines) == 2 and all(" zero-aware  tiles " in line and "(built in " in line for line in lines)
    assert all(line.split()[0].endswith("_zero-aware.npy") for line in lines)
    suffix = invoke("pdb", "build", "--size", "3", "--partition", "4-4+zero-aware", "--goal", "blank-first",
                    "--store", str(root))
    assert suffix.exit_code == 0 and all("(reused: " in line for line in suffix.stdout.splitlines())
    plain = invoke("pdb", "build", "--size", "3", "--partition", "4-4", "--goal", "blank-first", "--store", str(root))
    assert plain.exit_code == 0 and all(" blank-aware  " in line for line in plain.stdout.splitlines())
    verify = invoke("pdb", "verify", "--deep", "--store", str(root))
    assert verify.exit_code == 0 and "4 of 4 table(s)" in verify.stdout, verify.output
    with open_store(root) as opened:
        entries = {e.file: e for e in opened.entries()}
    za = [e for e in entries.values() if e.kind == ZERO_AWARE]
    assert len(za) == 2 and all(e.entries == zero_aware_count(3, 4) for e in za)
    both = invoke("pdb", "build", "--size", "3", "--partition", "4-4", "--zero-aware", "--blank-ignoring",
                  "--store", str(root))
    assert both.exit_code != 0 and len(both.output.strip().splitlines()) == 1 and "Traceback" not in both.output


def test_a_table_laid_out_set_by_set_is_refused_with_its_rebuild(tmp_path):
    """A zero-aware table of format version 1 (set first, before the tile order came first)
    would give wrong values read in today's layout: a solve refuses it in one line."""
    root = tmp_path / "store"
    assert invoke("pdb", "build", "--size", "3", "--partition", "4-4", "--zero-aware", "--goal", "blank-first",
                  "--store", str(root)).exit_code == 0
    manifest = root / "manifest.json"
    data = json.loads(manifest.read_text())
    assert {entry["format_version"] for entry in data["tables"].values()} == {2}
    for entry in data["tables"].values():
        entry["format_version"] = 1
    manifest.write_text(json.dumps(data))
    result = invoke("solve", "1 0 2 3 4 5 6 7 8", "--goal", "blank-first", "-a", "idastar", "-H",
                    "pdb:4-4+zero-aware", "--store", str(root))
    assert result.exit_code != 0 and "Traceback" not in result.output
    [line] = result.output.strip().splitlines()
    assert "has format version 1" in line and "zero-aware tables of version 2" in line
    assert "tilesweep pdb build" in line and "--zero-aware" in line


def test_the_search_layout_puts_the_tile_order_first():
    """Every state's entry in the search's layout (order rank times the rows, plus its row)
    is its entry at (row, order) of the build's set-by-set layout."""
    goal = goal_tiles("blank-first", 3)
    built = build_zero_aware_table(3, goal, (1, 2, 3))
    offsets = offsets_for(3, 3)
    rows, fact = int(offsets[-1]), 6
    by_set = sets_first(built, fact)
    assert not np.array_equal(by_set, built)
    for cells in itertools.permutations(range(9), 3):
        for blank in set(range(9)) - set(cells):
            row, order = zero_aware_parts(np.array(cells, dtype=np.int64), blank, offsets, binomials(9),
                                          flood_geometry(3))
            assert built[order * rows + row] == by_set[row * fact + order] == built[index(3, cells, blank)]
    assert np.array_equal(order_first(by_set, fact), built)


def naive_zero_aware_h(size, goal, groups, reflect):
    """h(tiles, goal): the sum over the groups of the naive distance of the group's
    placement with the board's blank; with ``reflect`` the larger of it and the same on
    the mirror image (as :func:`naive_pdb.database_h`)."""
    n = size * size
    states = [naive_states(size, goal, group) for group in groups]

    def mirror(c):
        return (c % size) * size + c // size

    relabel = {t: goal[mirror(goal.index(t))] for t in range(n)}

    def pdb_sum(where):
        return sum(s[(tuple(where[t] for t in group), where[0])] for group, s in zip(groups, states))

    def h(tiles, _goal):
        where = {t: c for c, t in enumerate(tiles)}
        value = pdb_sum(where)
        if reflect:
            value = max(value, pdb_sum({relabel[t]: mirror(c) for t, c in where.items()}))
        return value
    return h


@pytest.mark.parametrize("name", ["pdb:4-4+zero-aware", "pdb:5-3+zero-aware+reflect"])
def test_every_8_puzzle_h_is_admissible_and_the_naive_one(name, store):
    goal = goal_tiles("blank-first", 3)
    spec = parse_heuristic(name, 3, goal)
    plain = parse_heuristic(name.replace("+zero-aware", ""), 3, goal)
    boards, distances = exact_distances(3, goal)
    h = heuristic_values(boards, 3, kernel_heuristic(spec, 3, goal, tables_for(spec, 3, goal, store)))
    h_plain = heuristic_values(boards, 3, kernel_heuristic(plain, 3, goal, tables_for(plain, 3, goal, store)))
    assert (h <= distances).all() and (h >= h_plain).all() and (h > h_plain).mean() > 0.05
    reference = naive_zero_aware_h(3, goal, spec.groups, spec.reflect)
    sample = np.random.default_rng(7).choice(len(boards), 3000, replace=False)
    assert [int(h[i]) for i in sample] == [reference(tuple(boards[i].tolist()), goal) for i in sample]


def check_counts(board, goal, name, h, tables):
    expected = naive.idastar(board.tiles, goal, h)
    got = solve(board, goal, "idastar", name, tables)
    assert got.h0 == h(board.tiles, goal)
    assert (got.cost, got.moves) == (expected["cost"], expected["moves"]), board.tiles
    assert (got.nodes_generated, got.nodes_expanded) == (expected["generated"], expected["expanded"]), board.tiles
    return got


@pytest.mark.parametrize("goal_name", ["blank-first", "blank-last"])
@pytest.mark.parametrize("name", ["pdb:4-4+zero-aware", "pdb:4-4+zero-aware+reflect", "pdb:5-3+reflect+zero-aware",
                                  "pdb:1,2,3/4,5,6,7,8+zero-aware+reflect"])
def test_8_puzzle_solves_count_the_naive_idastars_nodes_and_no_more_than_todays(goal_name, name, store):
    goal = goal_tiles(goal_name, 3)
    spec = parse_heuristic(name, 3, goal)
    plain = name.replace("+zero-aware", "")
    tables = tables_for(spec, 3, goal, store)
    plain_tables = tables_for(parse_heuristic(plain, 3, goal), 3, goal, store)
    h = naive_zero_aware_h(3, goal, spec.groups, spec.reflect)
    distances = naive.bfs_distances(goal)
    rng = np.random.default_rng(sum(map(ord, name + goal_name)))
    for board in (uniform_instance(3, goal, rng) for _ in range(12)):
        if board.tiles == goal:
            continue
        got = check_counts(board, goal, name, h, tables)
        assert got.cost == distances[board.tiles]
        assert got.nodes_generated <= solve(board, goal, "idastar", plain, plain_tables).nodes_generated


def test_15_puzzle_walks_count_the_naive_idastars_nodes(store):
    goal = goal_tiles("blank-first", 4)
    name = "pdb:1,2,3/4,5,6/7,8,9/10,11,12/13,14,15+zero-aware+reflect"
    spec = parse_heuristic(name, 4, goal)
    tables = tables_for(spec, 4, goal, store)
    h = naive_zero_aware_h(4, goal, spec.groups, True)
    for seed in range(4):
        board = random_walk_instance(4, goal, 26, np.random.default_rng(seed))
        if board.tiles != goal:
            check_counts(board, goal, name, h, tables)


@pytest.mark.parametrize("algorithm,name", [("astar", "pdb:4-4+zero-aware"),
                                            ("idastar", "max(pdb:4-4+zero-aware,manhattan)")])
def test_other_kernels_refuse_zero_aware_tables_in_one_line(algorithm, name, store):
    goal = goal_tiles("blank-first", 3)
    spec = parse_heuristic(name, 3, goal)
    with pytest.raises(InvalidOptionError, match="expected IDA\\* with a zero-aware pattern database alone"):
        solve(Board((1, 0, 2, 3, 4, 5, 6, 7, 8), 3), goal, algorithm, name, tables_for(spec, 3, goal, store))


def test_a_table_kind_pair_is_refused():
    with pytest.raises(InvalidOptionError, match="two kinds of table"):
        parse_heuristic("pdb:4-4+zero-aware+blank-ignoring", 3, goal_tiles("blank-first", 3))


@pytest.mark.slow
@pytest.mark.parametrize("name", ["pdb:6-6-3+zero-aware", "pdb:6-6-3+zero-aware+reflect"])
def test_korfs_first_15_puzzles_cost_the_same_in_no_more_nodes(name, store, korf100):
    goal = goal_tiles("blank-first", 4)
    spec, plain = parse_heuristic(name, 4, goal), name.replace("+zero-aware", "")
    tables = tables_for(spec, 4, goal, store)
    plain_tables = tables_for(parse_heuristic(plain, 4, goal), 4, goal, store)
    H = kernel_heuristic(spec, 4, goal, tables)
    for number in (1, 2, 3, 5):
        board = Board(korf100[number], 4)
        got, today = solve(board, goal, "idastar", name, tables), solve(board, goal, "idastar", plain, plain_tables)
        assert got.status == today.status == "solved" and got.cost == today.cost, number
        assert got.nodes_generated <= today.nodes_generated, number
        # every board on the path: h no more than the moves left (the cost is optimal)
        path = [naive.replay(board.tiles, got.moves[:i]) for i in range(got.cost + 1)]
        values = heuristic_values(np.array(path, dtype=np.int8), 4, H)
        assert all(v <= got.cost - i for i, v in enumerate(values)) and values[-1] == 0


@pytest.mark.slow
def test_sampled_15_puzzle_boards_are_admissible(store):
    """h no more than the optimal cost that today's tables find (a slower search)."""
    goal = goal_tiles("blank-first", 4)
    name = "pdb:6-6-3+zero-aware+reflect"
    spec = parse_heuristic(name, 4, goal)
    H = kernel_heuristic(spec, 4, goal, tables_for(spec, 4, goal, store))
    plain = parse_heuristic("pdb:6-6-3+reflect", 4, goal)
    plain_tables = tables_for(plain, 4, goal, store)
    rng = np.random.default_rng(11)
    boards = [random_walk_instance(4, goal, int(rng.integers(20, 60)), rng) for _ in range(60)]
    h = heuristic_values(np.array([b.tiles for b in boards], dtype=np.int8), 4, H)
    for board, value in zip(boards, h):
        assert value <= solve(board, goal, "idastar", plain.name, plain_tables).cost, board.tiles
