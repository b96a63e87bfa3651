"""Seeded instance generation: instance ``i`` depends only on (seed, i, size, goal, source).

The sources themselves (``uniform``, ``walk:K``, ``korf100``, a file) are described in
:mod:`tilesweep.jobs.sources`. Seeded boards are made in bulk by the compiled generator of
:mod:`tilesweep.solver.seeded`, which gives exactly the boards of
:func:`~tilesweep.solver.generators.uniform_instance` and ``random_walk_instance`` with
:func:`instance_rng` (``tests/test_instances.py``).
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from tilesweep.solver.board import Board
from tilesweep.solver.geometry import neighbours
from tilesweep.solver.seeded import seed_words, uniform_boards, walk_boards

from .sources import InstanceSource, read_instance_file


def instance_rng(seed: int, index: int) -> np.random.Generator:
    """The generator of instance ``index``: ``SeedSequence([seed, index])``."""
    return np.random.default_rng(np.random.SeedSequence([seed, index]))


def seeded_boards(source: InstanceSource | str, seed: int, size: int, goal: tuple[int, ...],
                  lo: int, hi: int) -> np.ndarray:
    """``int8[hi - lo, size*size]``: instances ``lo .. hi-1`` of a seeded source."""
    source = InstanceSource.parse(source)
    words, goal_a = seed_words(seed), np.array(goal, dtype=np.int8)
    if source.kind == "uniform":
        return uniform_boards(words, lo, hi - lo, size, goal_a)
    return walk_boards(words, lo, hi - lo, goal_a, neighbours(size), source.steps)


@dataclass(frozen=True)
class InstanceRange:
    """Instances ``lo .. hi-1`` of a seeded source, generated where they are solved.

    A task carries this (a few numbers) instead of its boards, so planning a sweep costs
    nothing per instance. Iterating gives ``(index, tiles)`` pairs, like a tuple of them.
    """

    source: InstanceSource
    seed: int
    size: int
    goal: tuple[int, ...]
    lo: int
    hi: int

    def __len__(self) -> int:
        return self.hi - self.lo

    def boards(self) -> np.ndarray:
        return seeded_boards(self.source, self.seed, self.size, self.goal, self.lo, self.hi)

    def __iter__(self):
        return zip(range(self.lo, self.hi), map(tuple, self.boards().tolist()), strict=True)


def file_boards(spec) -> list[tuple[int, ...]]:
    """The first ``spec.count`` boards of a file source (``korf100`` or a file)."""
    return read_instance_file(str(spec.instances.file), spec.size)[: spec.count]


def make_instances(spec) -> list[Board]:
    """The ``spec.count`` instances of a sweep (a :class:`~tilesweep.jobs.spec.SweepSpec`),
    in index order."""
    if spec.instances.seeded:
        rows = seeded_boards(spec.instances, spec.seed, spec.size, spec.goal_tuple, 0, spec.count).tolist()
        return [Board(tuple(t), spec.size) for t in rows]
    return [Board(t, spec.size) for t in file_boards(spec)]
