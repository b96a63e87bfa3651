"""Boards, goals, parity and move replay.

A board is ``size`` x ``size`` cells in row-major order holding the tiles
``0 .. size*size-1``; ``0`` is the blank. Goals are ``blank-last`` (``1 .. N-1, 0``),
``blank-first`` (``0 .. N-1``) or any explicit arrangement.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from functools import lru_cache

import numpy as np

from .errors import InvalidBoardError, quoted
from .geometry import MOVE_INDEX, MOVES, SIZES, neighbours

GOAL_NAMES = ("blank-last", "blank-first")
_SEPARATORS = re.compile(r"[\s,]+")


def size_for_count(count: int) -> int | None:
    """Return the width whose square is ``count`` among the supported sizes."""
    return next((n for n in SIZES if n * n == count), None)


def _expected_counts() -> str:
    return ", ".join(str(n * n) for n in SIZES[:-1]) + f" or {SIZES[-1] ** 2}"


def split_tiles(text: str) -> list[str]:
    """Split tile text on spaces/commas; a 9-digit string is split per character."""
    stripped = text.strip()
    if re.fullmatch(r"\d{9}", stripped):
        return list(stripped)
    return [t for t in _SEPARATORS.split(stripped) if t]


def _tile_problems(tokens: list[str], size: int) -> list[str]:
    """Name every problem of ``tokens`` as the tiles of a ``size`` board."""
    count = size * size
    problems = []
    if len(tokens) != count:
        problems.append(f"{len(tokens)} tiles where a {size}x{size} board needs {count}")
    bad = [t for t in tokens if not re.fullmatch(r"\d+", t)]
    if bad:
        problems.append("not a tile number: " + ", ".join(quoted(t) for t in bad))
    numbers = [t for t in tokens if re.fullmatch(r"\d+", t)]
    huge = [t for t in numbers if len(t.lstrip("0")) > 9]  # beyond every board, perhaps beyond what int() takes
    values = [int(t) for t in numbers if t not in huge]
    out_of_range = [*map(str, sorted({v for v in values if v >= count})),
                    *(f"{t[:9]}... ({len(t):,} digits)" for t in huge)]
    if out_of_range:
        problems.append(f"out of range 0..{count - 1}: " + ", ".join(out_of_range))
    seen, dups = set(), []
    for v in values:
        if v in seen and v not in dups:
            dups.append(v)
        seen.add(v)
    if dups:
        problems.append("duplicated: " + ", ".join(map(str, dups)))
    missing = sorted(set(range(count)) - seen)
    if missing and len(tokens) == count:
        problems.append("missing: " + ", ".join(map(str, missing)))
    return problems


def parse_tiles(text: str, size: int | None = None, what: str = "tiles") -> tuple[int, ...]:
    """Parse ``text`` into a tile tuple, checking count, range and duplicates.

    Raises
    ------
    InvalidBoardError
        Naming every problem and quoting ``text``.
    """
    tokens = split_tiles(text)
    if not tokens:
        raise InvalidBoardError(f"{what} {quoted(text)} is empty; expected {_expected_counts()} "
                                "numbers separated by spaces or commas")
    if size is None:
        size = size_for_count(len(tokens))
        if size is None:
            count = f"{len(tokens)} number" + ("" if len(tokens) == 1 else "s")
            raise InvalidBoardError(f"{what} {quoted(text)} has {count}; expected "
                                    f"{_expected_counts()} (a 3x3, 4x4 or 5x5 board)")
    elif size not in SIZES:
        raise InvalidBoardError(f"size {size!r} is not supported; expected one of {SIZES}")
    problems = _tile_problems(tokens, size)
    if problems:
        raise InvalidBoardError(f"{what} {quoted(text)}: " + "; ".join(problems))
    return tuple(int(t) for t in tokens)


def goal_tiles(goal: str, size: int) -> tuple[int, ...]:
    """Resolve a goal name (``blank-last``, ``blank-first``) or explicit tiles."""
    count = size * size
    if goal == "blank-last":
        return tuple(range(1, count)) + (0,)
    if goal == "blank-first":
        return tuple(range(count))
    if re.fullmatch(r"[a-z-]+", goal.strip()):
        raise InvalidBoardError(f"goal {quoted(goal)} is not known; expected blank-last, "
                                f"blank-first or {count} tiles")
    return parse_tiles(goal, size, what="goal")


def goal_label(tiles: tuple[int, ...]) -> str:
    """Name a goal: its standard name, or its tiles separated by spaces."""
    return _goal_label(tuple(tiles))


@lru_cache(maxsize=64)
def _goal_label(tiles: tuple[int, ...]) -> str:
    size = size_for_count(len(tiles))
    for name in GOAL_NAMES:
        if size and goal_tiles(name, size) == tuple(tiles):
            return name
    return " ".join(map(str, tiles))


def permutation_parity(tiles, goal) -> int:
    """Parity (0 even, 1 odd) of the permutation taking ``goal`` to ``tiles``."""
    where = _cell_of(tuple(goal))
    perm = [where[t] for t in tiles]
    seen = [False] * len(perm)
    cycles = 0
    for start in range(len(perm)):
        if not seen[start]:
            cycles += 1
            i = start
            while not seen[i]:
                seen[i] = True
                i = perm[i]
    return (len(perm) - cycles) % 2


@lru_cache(maxsize=64)  # one goal for thousands of boards
def _cell_of(goal: tuple[int, ...]) -> dict[int, int]:
    return {t: i for i, t in enumerate(goal)}


def is_solvable(tiles, goal, size: int) -> bool:
    """Whether ``goal`` is reachable from ``tiles``, by parity, for any width.

    Every move is a transposition with the blank and moves the blank one cell, so the
    permutation parity (blank included) always equals the parity of the blank's
    taxicab distance from its goal cell; both states of a pair with equal parities
    are connected (Johnson & Story 1879).
    """
    return permutation_parity(tiles, goal) == _blank_distance(tiles, goal, size) % 2


def _blank_distance(tiles, goal, size: int) -> int:
    b, g = list(tiles).index(0), list(goal).index(0)
    return abs(b // size - g // size) + abs(b % size - g % size)


def parity_reason(tiles, goal, size: int) -> str:
    """Why ``goal`` is (or is not) reachable from ``tiles``, in one sentence (see :func:`is_solvable`)."""
    return f"{'solvable' if is_solvable(tiles, goal, size) else 'unsolvable'}: {parity_facts(tiles, goal, size)}"


def parity_facts(tiles, goal, size: int) -> str:
    """The two parities that decide solvability, and the rule, as a clause."""
    names = ("even", "odd")
    perm, dist = permutation_parity(tiles, goal), _blank_distance(tiles, goal, size)
    return (f"the tiles (blank included) are an {names[perm]} permutation of the goal and "
            f"the blank is {dist} move{'' if dist == 1 else 's'} ({names[dist % 2]}) from its goal cell; every move "
            "flips both parities, so they must agree")


@dataclass(frozen=True)
class Board:
    """A sliding-tile position: ``tiles`` row-major with 0 for the blank."""

    tiles: tuple[int, ...]
    size: int

    @classmethod
    def parse(cls, text: str, size: int | None = None) -> "Board":
        """Parse ``"8 6 7 2 5 4 3 0 1"``, ``"8,6,7,..."`` or (3x3) ``"867254301"``."""
        tiles = parse_tiles(text, size)
        return cls(tiles, size_for_count(len(tiles)))

    @classmethod
    def goal(cls, size: int, goal: str = "blank-last") -> "Board":
        """The goal board named ``goal`` for width ``size``."""
        return cls(goal_tiles(goal, size), size)

    @property
    def blank(self) -> int:
        return self.tiles.index(0)

    def array(self) -> np.ndarray:
        """Tiles as a fresh ``int8[N]`` array, the kernels' representation."""
        return np.array(self.tiles, dtype=np.int8)

    def apply(self, moves: str) -> "Board":
        """Replay a move string (blank directions ``U L R D``), checking each move."""
        tiles = list(self.tiles)
        blank = self.blank
        table = neighbours(self.size)
        for i, name in enumerate(moves):
            if name not in MOVE_INDEX:
                raise InvalidBoardError(f"move {name!r} at position {i} of {moves!r} is not one of {MOVES}")
            target = int(table[blank, MOVE_INDEX[name]])
            if target < 0:
                raise InvalidBoardError(f"move {name!r} at position {i} of {moves!r} leaves the board")
            tiles[blank], tiles[target] = tiles[target], 0
            blank = target
        return Board(tuple(tiles), self.size)

    def __str__(self) -> str:
        width = len(str(self.size * self.size - 1))
        rows = []
        for r in range(self.size):
            cells = self.tiles[r * self.size:(r + 1) * self.size]
            rows.append(" ".join(("." if t == 0 else str(t)).rjust(width) for t in cells))
        return "\n".join(rows)

    def __repr__(self) -> str:
        return f"Board.parse({' '.join(map(str, self.tiles))!r})"

    def text(self) -> str:
        """Tiles separated by spaces, the form results and ``Board.parse`` use."""
        return " ".join(map(str, self.tiles))
