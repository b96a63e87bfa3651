"""Seeded instance generators: uniform random solvable states and random walks."""

import numpy as np

from .board import Board, is_solvable
from .geometry import inverse_move, neighbours


def uniform_instance(size: int, goal: tuple[int, ...], rng: np.random.Generator) -> Board:
    """A state drawn uniformly from those that can reach ``goal``.

    A random permutation is unsolvable with probability 1/2; swapping two non-blank
    tiles flips its parity, a bijection between the halves, so the result is uniform.
    """
    tiles = [int(t) for t in rng.permutation(size * size)]
    if not is_solvable(tiles, goal, size):
        a, b = [i for i, t in enumerate(tiles) if t != 0][:2]
        tiles[a], tiles[b] = tiles[b], tiles[a]
    return Board(tuple(tiles), size)


def random_walk_instance(size: int, goal: tuple[int, ...], steps: int,
                         rng: np.random.Generator) -> Board:
    """The state reached from ``goal`` by ``steps`` random moves, never undoing the last."""
    table = neighbours(size)
    tiles = list(goal)
    blank = tiles.index(0)
    last = -1
    for _ in range(steps):
        options = [m for m in range(4) if table[blank, m] >= 0 and (last < 0 or m != inverse_move(last))]
        move = options[int(rng.integers(len(options)))]
        target = int(table[blank, move])
        tiles[blank], tiles[target] = tiles[target], 0
        blank, last = target, move
    return Board(tuple(tiles), size)
