"""Seeded instance generation: instance ``i`` depends only on (seed, i, size, goal, source).

The sources themselves (``uniform``, ``walk:K``, ``korf100``, a file) are described in
:mod:`tilesweep.jobs.sources`.
"""

from __future__ import annotations

import numpy as np

from tilesweep.solver.board import Board
from tilesweep.solver.generators import random_walk_instance, uniform_instance

from .sources import read_instance_file


def instance_rng(seed: int, index: int) -> np.random.Generator:
    """The generator of instance ``index``: ``SeedSequence([seed, index])``."""
    return np.random.default_rng(np.random.SeedSequence([seed, index]))


def make_instances(spec) -> list[Board]:
    """The ``spec.count`` instances of a sweep (a :class:`~tilesweep.jobs.spec.SweepSpec`),
    in index order."""
    goal, source = spec.goal_tuple, spec.instances
    if source.kind == "uniform":
        return [uniform_instance(spec.size, goal, instance_rng(spec.seed, i)) for i in range(spec.count)]
    if source.kind == "walk":
        return [random_walk_instance(spec.size, goal, source.steps, instance_rng(spec.seed, i))
                for i in range(spec.count)]
    return [Board(t, spec.size) for t in read_instance_file(str(source.file), spec.size)[: spec.count]]
