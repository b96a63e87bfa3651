"""The placement ranking of solver/ranking.py against the naive one of tests/naive_pdb.py."""

from itertools import permutations

import numpy as np
import pytest

from naive_pdb import adjacent, naive_rank
from tilesweep.solver.ranking import (
    digit_weights,
    moved_rank,
    placement_count,
    rank_placement,
    rank_placements,
    unrank_placement,
)


@pytest.mark.parametrize("n_cells,k", [(9, 1), (9, 3), (9, 5), (16, 3), (25, 2)])
def test_every_placement_ranks_and_unranks_like_the_naive_rank(n_cells, k):
    placements = list(permutations(range(n_cells), k))
    assert len(placements) == placement_count(n_cells, k)
    out = np.empty(k, dtype=np.int64)
    for cells in placements:
        rank = naive_rank(cells, n_cells)
        assert rank_placement(np.array(cells, dtype=np.int8), n_cells) == rank
        unrank_placement(rank, k, n_cells, out)
        assert tuple(out) == cells
    ranks = rank_placements(np.array(placements, dtype=np.int64), n_cells)
    np.testing.assert_array_equal(ranks, np.arange(len(placements)))  # dense, in lexicographic order


@pytest.mark.parametrize("n_cells", [16, 25])
def test_random_placements_rank_like_the_naive_rank(n_cells):
    rng = np.random.default_rng(n_cells)
    rows = [tuple(int(c) for c in rng.permutation(n_cells)[:k]) for k in range(1, 10) for _ in range(50)]
    for cells in rows:
        assert rank_placement(np.array(cells, dtype=np.int8), n_cells) == naive_rank(cells, n_cells)


@pytest.mark.parametrize("size,k", [(3, 4), (4, 7), (4, 8), (5, 6)])
def test_moved_rank_is_the_rank_of_the_moved_placement(size, k):
    n = size * size
    rng = np.random.default_rng(k)
    weights = digit_weights(n, k)
    for _ in range(300):
        cells = [int(c) for c in rng.permutation(n)[:k]]
        tile_at = np.full(n, -1, dtype=np.int64)
        tile_at[cells] = np.arange(k)
        rank = naive_rank(tuple(cells), n)
        for i, src in enumerate(cells):
            for dst in adjacent(src, size):
                if tile_at[dst] >= 0:
                    continue
                moved = cells[:i] + [dst] + cells[i + 1:]
                assert moved_rank(rank, i, src, dst, size, tile_at, weights) == naive_rank(tuple(moved), n)


def test_digit_weights_are_the_place_values():
    weights = digit_weights(16, 4)
    digits = np.array([3, 7, 0, 12])
    assert int(weights @ digits) == naive_rank((3, 8, 0, 15), 16) == ((3 * 15 + 7) * 14 + 0) * 13 + 12
