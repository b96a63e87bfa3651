"""Search conventions: the named choices that decide what a graph search does and counts.

A :class:`Conventions` is the blank's direction order, A*'s tie-breaking, how A* treats a
board met again, when the goal is tested, what the node counts count and whether f is a
float. ``korf`` is tilesweep's own accounting (DESIGN.md); the other presets reproduce
other people's tables. Text form: ``PRESET`` or ``PRESET,key=value,...``
(:func:`parse_conventions`); :attr:`Conventions.name` gives it back in a canonical form,
the form sweeps record.
"""

from __future__ import annotations

from dataclasses import dataclass, fields, replace
from functools import lru_cache

from .errors import InvalidOptionError, quoted
from .geometry import MOVES

# The values of each key, the first of each being korf's
TIES = ("larger-g", "smaller-g", "fifo", "lifo", "board-string")
DUPLICATES = ("best-g", "no-closed", "closed")
GOAL_TESTS = ("default", "generate", "expand")
COUNTS = ("generated", "pushes", "pops")
F_KINDS = ("integer", "float")


@dataclass(frozen=True)
class Conventions:
    """One set of choices; every field holds one of the values its key accepts."""

    order: str = MOVES
    ties: str = TIES[0]
    duplicates: str = DUPLICATES[0]
    goal_test: str = GOAL_TESTS[0]
    count: str = COUNTS[0]
    f: str = F_KINDS[0]

    @property
    def is_korf(self) -> bool:
        return self is KORF  # parse_conventions gives KORF itself for korf's choices

    @property
    def name(self) -> str:
        """The preset's name, or the nearest preset's followed by the keys that differ."""
        return "korf" if self is KORF else _canonical_name(self)

    def goal_at_generation(self, algorithm: str) -> bool:
        """Whether ``algorithm`` tests for the goal when a board is generated (``default``:
        A* when it is expanded, the others when it is generated)."""
        if self.goal_test == "default":
            return algorithm != "astar"
        return self.goal_test == "generate"

    def idastar_refusal(self) -> str | None:
        """Why IDA* cannot run under these conventions, or None: IDA* has no queue, so only
        the successor order would apply to it, and its kernels (serial and parallel) try
        U, L, R, D."""
        if self.is_korf:
            return None
        return (f"conventions {self.name!r} do not apply to IDA* (it tries U, L, R, D and counts as korf does); "
                "use --conventions korf or --algorithm astar, bfs or dfs")


KORF = Conventions()
PRESETS = {
    "korf": KORF,
    "pops-board-string": Conventions(order="LRUD", ties="board-string", duplicates="no-closed", goal_test="expand",
                                     count="pops", f="float"),
    "heap-best-g": Conventions(ties="fifo", goal_test="expand", count="pushes"),
}
# key as written -> (field, accepted values)
_KEYS = {"order": ("order", None), "ties": ("ties", TIES), "duplicates": ("duplicates", DUPLICATES),
         "goal-test": ("goal_test", GOAL_TESTS), "count": ("count", COUNTS), "f": ("f", F_KINDS)}
_FIELD_KEYS = {field: key for key, (field, _) in _KEYS.items()}


@lru_cache(maxsize=256)
def _canonical_name(conventions: Conventions) -> str:
    best = min(PRESETS, key=lambda p: (len(_differences(PRESETS[p], conventions)), p != "korf"))
    return ",".join([best, *_differences(PRESETS[best], conventions)])


def _differences(base: Conventions, other: Conventions) -> list[str]:
    return [f"{_FIELD_KEYS[f.name]}={getattr(other, f.name)}" for f in fields(Conventions)
            if getattr(base, f.name) != getattr(other, f.name)]


def expected_form() -> str:
    """What ``--conventions`` accepts, in one line."""
    keys = "; ".join(f"{key}={'|'.join(values) if values else 'a permutation of ULRD'}"
                     for key, (_, values) in _KEYS.items())
    return f"PRESET or PRESET,key=value,... with PRESET one of {', '.join(PRESETS)} and keys {keys}"


def parse_conventions(text: str | Conventions | None) -> Conventions:
    """The conventions ``text`` names (None: korf)."""
    if text is None:
        return KORF
    if isinstance(text, Conventions):
        return KORF if text == KORF else text
    parts = [p.strip() for p in str(text).split(",")] if isinstance(text, str) else [""]
    if parts[0] not in PRESETS:
        raise InvalidOptionError(f"conventions {quoted(text)}: unknown preset {quoted(parts[0])}; "
                                 f"expected {expected_form()}")
    conventions = PRESETS[parts[0]]
    for part in parts[1:]:
        key, _, value = part.partition("=")
        key, value = key.strip(), value.strip()
        if key not in _KEYS:
            raise InvalidOptionError(f"conventions {quoted(text)}: unknown key {quoted(key)}; "
                                     f"expected {expected_form()}")
        field, values = _KEYS[key]
        if key == "order":
            value = value.upper()
            ok = sorted(value) == sorted(MOVES)
        else:
            ok = value in values
        if not ok:
            raise InvalidOptionError(f"conventions {quoted(text)}: {key} {quoted(value)} is not accepted; "
                                     f"expected {expected_form()}")
        conventions = replace(conventions, **{field: value})
    return KORF if conventions == KORF else conventions
