"""Seeded instance generation: instance ``i`` depends only on (seed, i, size, goal, source).

Sources: ``uniform`` (uniform over solvable states), ``walk:K`` (K random moves from the
goal, never undoing the last), ``korf100`` (Korf 1985's 15-puzzles, bundled) and a file
with one instance a line (``#`` comments and blank lines skipped; an optional leading id
is dropped when the line has one number more than a board).
"""

from __future__ import annotations

import hashlib
from pathlib import Path

import numpy as np

from tilesweep.solver.board import Board, parse_tiles, size_for_count, split_tiles
from tilesweep.solver.errors import InvalidBoardError, InvalidOptionError
from tilesweep.solver.generators import random_walk_instance, uniform_instance

from .spec import KORF100, SweepSpec


def instance_rng(seed: int, index: int) -> np.random.Generator:
    """The generator of instance ``index``: ``SeedSequence([seed, index])``."""
    return np.random.default_rng(np.random.SeedSequence([seed, index]))


def _file_lines(path: str) -> list[tuple[int, list[str]]]:
    """(line number, tokens) of every instance line of ``path``."""
    out = []
    for number, line in enumerate(Path(path).read_text().splitlines(), 1):
        text = line.split("#", 1)[0].strip()
        if text:
            out.append((number, split_tiles(text)))
    return out


def _line_tiles(path: str, number: int, tokens: list[str], size: int | None) -> tuple[int, ...]:
    """Tiles of one file line (dropping a leading id), validated, errors naming the line."""
    if size is None:
        size = size_for_count(len(tokens)) or size_for_count(len(tokens) - 1)
    if size is not None and len(tokens) == size * size + 1:
        tokens = tokens[1:]
    try:
        return parse_tiles(" ".join(tokens), size)
    except InvalidBoardError as err:
        raise InvalidBoardError(f"instances file {path!r} line {number}: {err}") from None


def read_instance_file(path: str, size: int | None = None) -> list[tuple[int, ...]]:
    """Every instance of ``path`` as a tile tuple."""
    lines = _file_lines(path)
    if not lines:
        raise InvalidOptionError(f"instances file {path!r} holds no instances; expected one board a line")
    tiles = [_line_tiles(path, n, t, size) for n, t in lines]
    sizes = {size_for_count(len(t)) for t in tiles}
    if len(sizes) > 1:
        raise InvalidOptionError(f"instances file {path!r} mixes board sizes {sorted(sizes)}; use one size a file")
    return tiles


def file_instances_info(path: str, size: int | None) -> tuple[int, int, str]:
    """(size, number of instances, sha256) of an instances file, validating every line."""
    tiles = read_instance_file(path, size)
    digest = hashlib.sha256(Path(path).read_bytes()).hexdigest()
    return size_for_count(len(tiles[0])), len(tiles), digest


def make_instances(spec: SweepSpec) -> list[Board]:
    """The ``spec.count`` instances of a sweep, in index order."""
    goal = spec.goal_tuple
    if spec.instances == "uniform":
        return [uniform_instance(spec.size, goal, instance_rng(spec.seed, i)) for i in range(spec.count)]
    if spec.instances.startswith("walk:"):
        steps = int(spec.instances[5:])
        return [random_walk_instance(spec.size, goal, steps, instance_rng(spec.seed, i))
                for i in range(spec.count)]
    path = str(KORF100) if spec.instances == "korf100" else spec.instances
    return [Board(t, spec.size) for t in read_instance_file(path, spec.size)[: spec.count]]
