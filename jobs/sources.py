"""Where a sweep's instances come from: one small value, parsed once from its text.

``uniform`` (uniform over solvable states), ``walk:K`` (K random moves from the goal, never
undoing the last), a bundled set (``korf100``: Korf 1985's 15-puzzles; ``korf50-24``: Korf &
Felner 2002's 24-puzzles; both goal blank-first; ``jobs/data/SOURCE.txt``) or a file with
one board a line (``#`` comments and blank lines skipped; an optional leading id
is dropped when the line has one number more than a board).
"""

from __future__ import annotations

import hashlib
import re
from dataclasses import dataclass
from pathlib import Path

from tilesweep.solver.board import parse_tiles, size_for_count, split_tiles
from tilesweep.solver.errors import InvalidBoardError, InvalidOptionError

DATA = Path(__file__).parent / "data"
KORF100 = DATA / "korf100.txt"
KORF50_24 = DATA / "korf50-24.txt"


@dataclass(frozen=True)
class Bundled:
    """An instance set shipped with tilesweep: its file, board size, goal and count."""

    file: Path
    size: int
    goal: str
    count: int
    what: str  # "15-puzzles", for messages


BUNDLED = {
    "korf100": Bundled(KORF100, 4, "blank-first", 100, "15-puzzles"),
    "korf50-24": Bundled(KORF50_24, 5, "blank-first", 50, "24-puzzles"),
}
FORMS = "uniform, walk:K, korf100, korf50-24 or an instances file"
MAX_WALK = 1_000_000  # moves of a walk:K instance


@dataclass(frozen=True)
class InstanceSource:
    """A parsed ``--instances`` value; ``str()`` gives back its canonical text."""

    kind: str  # "uniform", "walk", "file" or a name of BUNDLED
    steps: int | None = None  # walk:K
    path: str | None = None  # a file's absolute path

    @classmethod
    def parse(cls, value, base: str | Path | None = None) -> InstanceSource:
        """Parse ``value``; a relative file path is taken from ``base`` (default: the
        working directory) and must exist."""
        if isinstance(value, cls):
            return value
        if not isinstance(value, str) or not value:
            raise InvalidOptionError(f"instances {value!r} is not a source; expected {FORMS}")
        if value == "uniform" or value in BUNDLED:
            return cls(value)
        if value.startswith("walk:"):
            if not re.fullmatch(r"walk:\d+", value):
                raise InvalidOptionError(f"instances {value!r}: expected walk:K with K a whole number of moves, "
                                         "e.g. walk:40")
            if len(value) - 5 > len(str(MAX_WALK)) or int(value[5:]) > MAX_WALK:
                raise InvalidOptionError(f"instances {value!r}: expected a walk of at most {MAX_WALK:,} "
                                         "moves; for uniformly random boards use uniform")
            return cls("walk", steps=int(value[5:]))
        path = Path(base or ".") / value
        if not path.is_file():
            raise InvalidOptionError(f"instances {value!r} is neither uniform, walk:K, "
                                     f"{', '.join(BUNDLED)} nor an existing file")
        return cls("file", path=str(path.resolve()))

    def __str__(self) -> str:
        return {"walk": f"walk:{self.steps}", "file": self.path}.get(self.kind, self.kind)

    @property
    def seeded(self) -> bool:
        """Generated from the seed (uniform, walk:K) rather than read from a file."""
        return self.kind in ("uniform", "walk")

    @property
    def bundled(self) -> Bundled | None:
        """The bundled set this source names, if it names one."""
        return BUNDLED.get(self.kind)

    @property
    def file(self) -> Path | None:
        """The file the boards are read from (a bundled set's own), if any."""
        if self.bundled is not None:
            return self.bundled.file
        return Path(self.path) if self.kind == "file" else None

    def slug(self) -> str:
        """A short name for sweep names: ``uniform``, ``walk40``, ``korf100``, ``korf50-24`` or
        the file's stem."""
        text = Path(self.path).stem if self.kind == "file" else str(self).replace(":", "")
        return re.sub(r"[^\w.-]+", "_", text)


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
