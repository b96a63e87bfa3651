"""Tables that are images of each other under a symmetry of the board, computed once.

A rotation or reflection of the board keeps adjacency, so it maps the abstract search of
one pattern group onto the search of another whenever it maps the first group's goal
cells onto the second's and the first goal's blank region onto the second's. The second
table is then a permutation of the first: the entry of a placement is the first table's
entry of its image, with each tile standing for the tile whose goal cell it maps to. In
Korf & Felner's 6-6-6-6 partition of the 24-puzzle the three 3x2 blocks are rotations of
one another, so one breadth-first search gives three tables.
"""

from __future__ import annotations

from typing import NamedTuple

import numpy as np
from numba import prange

from tilesweep.solver.jit import parallel_kernel
from tilesweep.solver.ranking import placement_count, rank_placement

from .bfs import _prefix_digits, _replace_tiles, _step
from .build import _geometry, goal_region

_PREFIXES = 1 << 12  # rank prefixes per work item


def board_symmetries(size: int) -> list[np.ndarray]:
    """The 7 rotations and reflections of the board other than the identity, as cell maps."""
    maps = []
    for transpose in (False, True):
        for flip_rows in (False, True):
            for flip_cols in (False, True):
                if not (transpose or flip_rows or flip_cols):
                    continue
                image = np.empty(size * size, dtype=np.int64)
                for cell in range(size * size):
                    r, c = divmod(cell, size)
                    r, c = (c, r) if transpose else (r, c)
                    r = size - 1 - r if flip_rows else r
                    c = size - 1 - c if flip_cols else c
                    image[cell] = r * size + c
                maps.append(image)
    return maps


class Image(NamedTuple):
    """How to read ``group``'s table from ``source``'s: cells map by ``cell_map``, and
    the group's tile ``j`` stands for the source's tile ``tile_map[j]``."""

    source: tuple[int, ...]
    cell_map: np.ndarray
    tile_map: np.ndarray


def find_image(size: int, goal: tuple[int, ...], group: tuple[int, ...],
               candidates) -> Image | None:
    """A group among ``candidates`` whose table ``group``'s table is an image of, or None."""
    geometry = _geometry(size, len(group))
    cells = [goal.index(t) for t in group]
    region = _region(size, goal, group, geometry)
    for source in candidates:
        source = tuple(source)
        if len(source) != len(group) or source == group:
            continue
        source_cells = {goal.index(t) for t in source}
        for cell_map in board_symmetries(size):
            if {int(cell_map[c]) for c in cells} != source_cells:
                continue
            if _mapped(region, cell_map) != _region(size, goal, source, geometry):
                continue  # the blank's goal region does not correspond
            tile_map = np.array([source.index(goal[cell_map[c]]) for c in cells], dtype=np.int64)
            return Image(source, cell_map, tile_map)
    return None


def _region(size, goal, group, geometry) -> int:
    return goal_region(size, goal, group, geometry)  # board-cell bits, so a cell map moves it


def _mapped(mask: int, cell_map: np.ndarray) -> int:
    return sum(1 << int(cell_map[c]) for c in range(len(cell_map)) if (mask >> c) & 1)


def image_table(size: int, image: Image, source_table: np.ndarray) -> np.ndarray:
    """The table of the group that ``image`` describes, read from ``source_table``."""
    n, k = size * size, len(image.source)
    out = np.empty(placement_count(n, k), dtype=np.uint8)
    _permute(np.asarray(source_table), out, k, n, image.cell_map, image.tile_map)
    return out


@parallel_kernel
def _permute(source, out, k, n_cells, cell_map, tile_map):
    """``out[rank] = source[rank of the image placement]`` for every rank of ``out``.

    ``cell_map`` (int64[N]) maps cells, ``tile_map`` (int64[k]) gives the source tile
    index each tile of ``out``'s group stands for. The ranks are visited in order, by rank
    prefix (tiles ``0..k-2``) as in the search (:func:`pdb_store.bfs._expand_block`): the
    next prefix moves only the tiles whose digits changed, and the last tile runs over the
    cells a prefix leaves free, instead of each rank being unranked.
    """
    radix = n_cells - k + 1
    prefixes = out.shape[0] // radix
    blocks = (prefixes + _PREFIXES - 1) // _PREFIXES
    for block in prange(blocks):
        digits = np.empty(k - 1, dtype=np.int64)
        cells = np.zeros(k, dtype=np.int64)
        tile_at = np.full(n_cells, -1, dtype=np.int64)
        free_cells = np.empty(n_cells, dtype=np.int64)
        where = np.empty(k, dtype=np.int64)
        prefix, end = block * _PREFIXES, min(prefixes, (block + 1) * _PREFIXES)
        _prefix_digits(prefix, n_cells, digits)
        first = 0
        while prefix < end:
            _replace_tiles(first, digits, n_cells, cells, tile_at, free_cells)
            for j in range(k - 1):
                where[tile_map[j]] = cell_map[cells[j]]
            for j in range(radix):
                where[tile_map[k - 1]] = cell_map[free_cells[j]]
                out[prefix * radix + j] = source[rank_placement(where, n_cells)]
            first = _step(digits, 1, n_cells)
            prefix += 1
