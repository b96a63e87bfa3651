"""The fast pattern-database builder against naive references, and admissibility."""

import numpy as np
import pytest

from naive_pdb import naive_table, true_distances
from tilesweep.pdb_store import bits, build_table
from tilesweep.pdb_store.bfs import UNREACHED, _prefix_digits, _replace_tiles, _step, place_prefix
from tilesweep.pdb_store.build import huge_array
from tilesweep.solver.board import goal_tiles
from tilesweep.solver.errors import InvalidBoardError
from tilesweep.solver.heuristics import PARTITIONS, partition_groups
from tilesweep.solver.ranking import placement_count, rank_placement, rank_placements

GOALS = ("blank-last", "blank-first")
CASES_3X3 = [(goal, partition, group)
             for goal in GOALS
             for partition in PARTITIONS[3]
             for group in partition_groups(partition, 3, goal_tiles(goal, 3))]
GROUPS_4X4 = [(1,), (15,), (1, 2), (5, 6), (1, 2, 3), (4, 8, 12), (5, 10, 15), (3, 6, 9), (11, 14, 15)]


@pytest.mark.parametrize("k,n_cells,start,steps", [(8, 16, 0, 1), (8, 16, 57_000, 64), (7, 16, 123_456, 7),
                                                   (6, 25, 6_374_000, 1), (2, 9, 0, 1), (1, 9, 0, 1)])
def test_prefixes_counted_up_are_set_out_as_unranked(k, n_cells, start, steps):
    """A work item steps through its prefixes moving only the tiles whose digits changed;
    every prefix it sets out so must equal the prefix unranked from scratch."""
    digits = np.empty(k - 1, dtype=np.int64)
    cells, tile_at = np.zeros(k, dtype=np.int64), np.full(n_cells, -1, dtype=np.int64)
    free_cells = np.empty(n_cells, dtype=np.int64)
    expected = (np.empty(k, dtype=np.int64), np.empty(n_cells, dtype=np.int64), np.empty(n_cells, dtype=np.int64))
    prefixes = placement_count(n_cells, k - 1)
    _prefix_digits(start, n_cells, digits)
    stale, checked = 0, 0
    for prefix in range(start, min(prefixes, start + 3000 * steps), steps):
        occupied = _replace_tiles(stale, digits, n_cells, cells, tile_at, free_cells)
        assert occupied == place_prefix(prefix, k, n_cells, *expected), prefix
        assert list(cells[:k - 1]) == list(expected[0][:k - 1]), prefix
        assert list(tile_at) == list(expected[1]) and list(free_cells[:n_cells - k + 1]) == \
            list(expected[2][:n_cells - k + 1]), prefix
        stale = _step(digits, steps, n_cells)
        checked += 1
    assert checked == min(3000, -(-(prefixes - start) // steps))


@pytest.mark.parametrize("goal,partition,group", CASES_3X3)
def test_3x3_partition_tables_equal_naive(goal, partition, group):
    tiles = goal_tiles(goal, 3)
    fast = build_table(3, tiles, group)
    assert fast.dtype == np.uint8 and fast.shape == (placement_count(9, len(group)),)
    np.testing.assert_array_equal(fast, naive_table(3, tiles, group))


@pytest.mark.parametrize("goal", GOALS)
@pytest.mark.parametrize("group", GROUPS_4X4)
def test_4x4_small_patterns_equal_naive(goal, group):
    tiles = goal_tiles(goal, 4)
    np.testing.assert_array_equal(build_table(4, tiles, group), naive_table(4, tiles, group))


@pytest.mark.parametrize("size,goal,group", [
    (3, "blank-last", (1, 2, 3, 4, 5)), (3, "blank-first", (5, 6, 7, 8)),
    (4, "blank-first", (1, 2, 3)), (4, "blank-last", (4, 8, 12))])
def test_parallel_and_serial_kernels_equal_naive(size, goal, group):
    tiles = goal_tiles(goal, size)
    expected = naive_table(size, tiles, group)
    for parallel in (True, False):
        np.testing.assert_array_equal(build_table(size, tiles, group, parallel=parallel), expected)


@pytest.mark.parametrize("goal", GOALS)
def test_5x5_two_tile_patterns_equal_naive(goal):
    tiles = goal_tiles(goal, 5)
    for group in ((1, 2), (7, 13)):
        np.testing.assert_array_equal(build_table(5, tiles, group), naive_table(5, tiles, group))


def test_explicit_goal_equals_naive():
    goal = (1, 2, 3, 8, 0, 4, 7, 6, 5)  # the "snail" goal, blank in the centre
    for group in ((1, 2, 3, 8), (4, 5, 6, 7), (2, 4, 6, 8, 1)):
        group = tuple(sorted(group))
        np.testing.assert_array_equal(build_table(3, goal, group), naive_table(3, goal, group))


@pytest.mark.parametrize("goal", GOALS)
def test_goal_placement_is_zero_and_only_it(goal):
    tiles = goal_tiles(goal, 4)
    group = (1, 2, 3, 6, 7) if goal == "blank-first" else (2, 3, 4, 7, 8)
    table = build_table(4, tiles, group)
    goal_rank = rank_placement(np.array([tiles.index(t) for t in group], dtype=np.int8), 16)
    assert table[goal_rank] == 0
    assert np.count_nonzero(table == 0) == 1
    assert UNREACHED not in table


def _group_ranks(states: np.ndarray, group) -> np.ndarray:
    """The rank of ``group``'s cells in every row of ``states``."""
    cells = np.stack([np.argmax(states == t, axis=1) for t in group], axis=1)
    return rank_placements(cells, states.shape[1])


def _manhattan(states: np.ndarray, goal, group, size: int) -> np.ndarray:
    total = np.zeros(len(states), dtype=np.int64)
    for t in group:
        cell, home = np.argmax(states == t, axis=1), goal.index(t)
        total += abs(cell // size - home // size) + abs(cell % size - home % size)
    return total


@pytest.fixture(scope="module", params=GOALS)
def all_8_puzzle_states(request):
    goal = goal_tiles(request.param, 3)
    states, distances = true_distances(goal)
    assert len(states) == 181_440 and distances.max() == 31
    return goal, states, distances


@pytest.mark.parametrize("partition", list(PARTITIONS[3]))
def test_3x3_partitions_are_admissible_on_every_state(all_8_puzzle_states, partition):
    goal, states, distances = all_8_puzzle_states
    total = np.zeros(len(states), dtype=np.int64)
    for group in partition_groups(partition, 3, goal):
        table = build_table(3, goal, group)
        values = table[_group_ranks(states, group)].astype(np.int64)
        assert (values >= _manhattan(states, goal, group, 3)).all()
        total += values
    assert (total <= distances).all()
    assert total[distances == 0].tolist() == [0]
    assert (total > _manhattan(states, goal, goal[:0] + tuple(t for t in goal if t), 3)).any()


@pytest.mark.parametrize("group", [(1, 2, 3, 6, 7), (4, 5, 8, 9, 12), (10, 11, 13, 14, 15)])
def test_4x4_five_tile_tables_dominate_manhattan(group):
    goal = goal_tiles("blank-first", 4)
    table = build_table(4, goal, group)
    rng = np.random.default_rng(3)
    states = np.array([rng.permutation(16) for _ in range(3000)], dtype=np.int64)
    values = table[_group_ranks(states, group)].astype(np.int64)
    assert (values >= _manhattan(states, goal, group, 4)).all()
    assert table.max() == 22 or table.max() == 23  # published 5-5-5 maxima


@pytest.mark.parametrize("goal,group,match", [
    ((1, 2, 3, 4, 5, 6, 7, 8, 0), (2, 1), "ascending"),
    ((1, 2, 3, 4, 5, 6, 7, 8, 0), (0, 1), "never the blank"),
    ((1, 2, 3, 4, 5, 6, 7, 8, 0), (1, 9), "1..8"),
    ((1, 2, 3, 4, 5, 6, 7, 8, 0), (1, 1), "distinct"),
    ((1, 2, 3, 4, 5, 6, 7, 8, 8), (1, 2), "permutation"),
    ((1, 2, 3, 4, 5, 6, 7, 8, 0), tuple(range(1, 9)), "at most 7"),
])
def test_bad_goal_or_group_is_refused(goal, group, match):
    with pytest.raises(InvalidBoardError, match=match):
        build_table(3, goal, group)


def _random_walks(goal, size: int, count: int, steps: int, seed: int) -> np.ndarray:
    """States ``steps`` random blank moves from ``goal``: their distance is at most ``steps``."""
    rng = np.random.default_rng(seed)
    states = np.empty((count, size * size), dtype=np.int64)
    for row in range(count):
        tiles, blank = list(goal), goal.index(0)
        for _ in range(steps):
            r, c = divmod(blank, size)
            options = [(r + dr) * size + c + dc for dr, dc in ((-1, 0), (1, 0), (0, -1), (0, 1))
                       if 0 <= r + dr < size and 0 <= c + dc < size]
            cell = options[rng.integers(len(options))]
            tiles[blank], tiles[cell], blank = tiles[cell], 0, cell
        states[row] = tiles
    return states


def _check_partition_on_walks(partition: str, goal_name: str, expected_max: tuple[int, ...]):
    goal = goal_tiles(goal_name, 4)
    groups = partition_groups(partition, 4, goal)
    tables = [build_table(4, goal, group) for group in groups]
    assert tuple(int(t.max()) for t in tables) == expected_max
    for steps in (5, 20, 60):
        states = _random_walks(goal, 4, 400, steps, seed=steps)
        total = sum(t[_group_ranks(states, g)].astype(np.int64) for t, g in zip(tables, groups, strict=True))
        assert (total <= steps).all()  # admissible: never above a known path length
        assert (total >= _manhattan(states, goal, tuple(range(1, 16)), 4)).all()


def test_5_5_5_is_admissible_on_random_walks():
    _check_partition_on_walks("5-5-5", "blank-first", (22, 23, 22))


@pytest.mark.slow
def test_6_6_3_is_admissible_on_random_walks():
    _check_partition_on_walks("6-6-3", "blank-last", (28, 27, 15))


@pytest.mark.parametrize("parallel", [False, True])
def test_progress_reports_every_layer(parallel):
    goal, group = goal_tiles("blank-first", 4), (1, 2, 3, 4)
    seen = []
    table = build_table(4, goal, group, parallel=parallel, on_layer=seen.append)
    assert [p.depth for p in seen] == list(range(1, len(seen) + 1))  # a line per layer
    assert seen[-1].depth >= table.max()  # a last layer may find only new blank regions
    filled = [p.filled for p in seen]
    assert filled == sorted(filled) and filled[-1] == np.count_nonzero(table != UNREACHED) == table.size
    assert [int(np.count_nonzero(table <= p.depth)) for p in seen] == filled
    assert all(p.entries == table.size and p.group == group for p in seen)


def test_bit_gathers_agree_with_a_naive_loop():
    rng = np.random.default_rng(7)
    ways = [(bits.extract_bits_loop, bits.deposit_bits_loop)]
    if bits.FAST_BMI2:
        ways.append((bits.extract_bits_pext, bits.deposit_bits_pdep))
    for value, mask in rng.integers(0, 1 << 25, size=(200, 2)):
        places = [c for c in range(25) if (mask >> c) & 1]
        packed = sum(1 << i for i, c in enumerate(places) if (value >> c) & 1)
        spread = sum(1 << c for i, c in enumerate(places) if (value >> i) & 1)
        for extract, deposit in ways:
            assert extract(np.int64(value), np.int64(mask)) == packed
            assert deposit(np.int64(value), np.int64(mask)) == spread


@pytest.mark.parametrize("count, dtype, fill", [(10, np.uint8, UNREACHED), (3 << 20, np.uint8, UNREACHED),
                                                (3 << 20, np.uint16, 0), (1 << 20, np.uint64, 7)])
def test_huge_array_is_a_writable_filled_array(count, dtype, fill):
    """The build's arrays (over 2 MB in pages of 2 MB where the kernel offers them) hold
    what np.full would and take writes like it."""
    array = huge_array(count, dtype, fill)
    assert array.dtype == dtype and array.shape == (count,) and array.flags.writeable
    assert np.array_equal(array, np.full(count, fill, dtype=dtype))
    array[count - 1] = 1
    assert int(array[count - 1]) == 1
