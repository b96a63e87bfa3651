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
from tilesweep.solver.ranking import placement_count, rank_placement, unrank_placement

from .build import _geometry, goal_region

_BLOCK = 1 << 16  # ranks per work item


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
    index each tile of ``out``'s group stands for.
    """
    blocks = (out.shape[0] + _BLOCK - 1) // _BLOCK
    for block in prange(blocks):
        cells = np.empty(k, dtype=np.int64)
        where = np.empty(k, dtype=np.int64)
        for rank in range(block * _BLOCK, min(out.shape[0], (block + 1) * _BLOCK)):
            unrank_placement(rank, k, n_cells, cells)
            for j in range(k):
                where[tile_map[j]] = cell_map[cells[j]]
            out[rank] = source[rank_placement(where, n_cells)]
