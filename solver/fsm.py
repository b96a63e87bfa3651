"""Move pruning with a finite-state machine of forbidden move strings (Taylor & Korf 1993).

A move string A is *forbidden* when another string B reaches the same board from the
same start, comes first in shortlex order (shorter, or as long and earlier in the move
order ``U, L, R, D``), and keeps the blank inside the cells A's blank visits. Then B is
legal wherever A is, so any path containing A can be rewritten with B into a path that is
no longer and comes first: the first optimal path in shortlex order contains no forbidden
string and IDA* still finds an optimal cost. The effect of a string on the tiles does not
depend on where it starts, so the strings are found once per board width by a
breadth-first search over move strings on a board large enough for any start
(:func:`duplicate_strings`), and only strings whose blank fits the board are kept.

The strings are compiled into an Aho-Corasick automaton (:func:`compile_automaton`):
the search carries its state in place of the last move, and a child whose transition
reaches a forbidden string is not generated. A* keeps one path per board, not the first
one in shortlex order, so it uses only the strings whose replacement is strictly shorter
(:attr:`Automaton.strict`): a child it prunes then has a shorter path, so the pruned
edge lies on no optimal path and costs are unchanged.
"""

from __future__ import annotations

from collections import deque
from dataclasses import dataclass
from functools import lru_cache

import numpy as np

from .errors import InvalidOptionError
from .geometry import MOVES
from .jit import inline_kernel, kernel
from .statetable import grow_rows

DEFAULT_DEPTH = {3: 14, 4: 14, 5: 12}
MAX_DEPTH = 20
FORBIDDEN = -1


@dataclass(frozen=True)
class Pruning:
    """A parsed ``--prune`` value: ``parent`` or ``fsm:DEPTH``."""

    kind: str
    depth: int = 0

    def __str__(self) -> str:
        return self.kind if self.kind == "parent" else f"fsm:{self.depth}"


def parse_pruning(text: str, size: int) -> Pruning:
    """``parent``, ``fsm`` (the size's default depth) or ``fsm:DEPTH``."""
    return _parse_pruning(str(text), size)


@lru_cache(maxsize=64)  # every solve() parses its --prune
def _parse_pruning(text: str, size: int) -> Pruning:
    kind, _, depth = text.partition(":")
    if kind == "parent" and not depth:
        return Pruning("parent")
    if kind == "fsm" and (not depth or depth.isdigit() and 2 <= int(depth) <= MAX_DEPTH):
        return Pruning("fsm", int(depth) if depth else DEFAULT_DEPTH[size])
    raise InvalidOptionError(f"prune {text!r} is not known; expected parent, fsm or fsm:DEPTH "
                             f"with DEPTH from 2 to {MAX_DEPTH}")


@dataclass(frozen=True)
class Duplicate:
    """A forbidden move string and the earlier string that replaces it."""

    forbidden: str
    replacement: str

    @property
    def strict(self) -> bool:
        return len(self.replacement) < len(self.forbidden)


def duplicate_strings(size: int, depth: int) -> list[Duplicate]:
    """Every minimal forbidden string up to ``depth`` moves for a ``size`` x ``size`` board.

    Breadth-first over move strings in shortlex order on a board of ``2 size - 1`` cells a
    side, the blank starting in the middle (:func:`_search`). A string is extended only
    while no forbidden string ends in it, so no forbidden string contains another.
    """
    out = _search(size, depth)
    return [Duplicate(_text(f, fl), _text(r, rl)) for f, fl, r, rl in zip(*(a.tolist() for a in out))]


def _text(code: int, length: int) -> str:
    """The move string packed in ``code`` (2 bits a move, the first move highest)."""
    return "".join(MOVES[(code >> (2 * (length - 1 - i))) & 3] for i in range(length))


@inline_kernel
def _board_hash(board):
    h = np.uint64(1469598103934665603)
    for x in board:
        h = (h ^ np.uint64(x)) * np.uint64(1099511628211)
    return h


@inline_kernel
def _same(a, b):
    for k in range(a.shape[0]):
        if a[k] != b[k]:
            return False
    return True


@inline_kernel
def _inside(inner, outer):
    """Whether bounding box ``inner`` (top, bottom, left, right) lies within ``outer``."""
    return outer[0] <= inner[0] and inner[1] <= outer[1] and outer[2] <= inner[2] and inner[3] <= outer[3]


@inline_kernel
def _ends_forbidden(code, length, forbidden):
    """Whether a known forbidden string ends the string ``code`` of ``length`` moves."""
    for k in range(2, length + 1):
        if (np.int64(k) << 40 | (code & ((np.int64(1) << (2 * k)) - 1))) in forbidden:
            return True
    return False


@kernel
def _search(size, depth):
    """Forbidden strings up to ``depth`` (see :func:`duplicate_strings`).

    Every string kept so far has a row in the node arrays (board, blank cell, bounding box
    of the blank relative to its start, packed moves, length); an index from a hash of the
    board to its rows finds earlier strings with the same effect. Returns int64 arrays:
    forbidden code and length, replacement code and length.
    """
    width = 2 * size - 1
    cells = width * width
    centre = (size - 1) * width + size - 1
    cap = 1 << 16
    boards = np.empty((cap, cells), dtype=np.uint8)
    blanks = np.empty(cap, dtype=np.int64)
    boxes = np.zeros((cap, 4), dtype=np.int64)
    codes = np.zeros(cap, dtype=np.int64)
    lengths = np.zeros(cap, dtype=np.int64)
    chain = np.full(cap, -1, dtype=np.int64)
    for c in range(cells):
        boards[0, c] = c
    blanks[0] = centre
    heads = dict()
    heads[_board_hash(boards[0])] = 0
    count = 1
    forbidden = set()
    forbidden.add(np.int64(-1))  # gives numba the set's type
    found = []
    board = np.empty(cells, dtype=np.uint8)
    box = np.zeros(4, dtype=np.int64)
    lo, hi = 0, 1
    for length in range(1, depth + 1):
        for parent in range(lo, hi):
            r0, c0 = blanks[parent] // width, blanks[parent] % width
            for m in range(4):
                dr = -1 if m == 0 else (1 if m == 3 else 0)
                dc = -1 if m == 1 else (1 if m == 2 else 0)
                r, c = r0 + dr, c0 + dc
                box[0] = min(boxes[parent, 0], r - size + 1)
                box[1] = max(boxes[parent, 1], r - size + 1)
                box[2] = min(boxes[parent, 2], c - size + 1)
                box[3] = max(boxes[parent, 3], c - size + 1)
                if box[1] - box[0] >= size or box[3] - box[2] >= size:
                    continue  # the blank would leave every board of this width
                code = (codes[parent] << 2) | m
                if _ends_forbidden(code, length, forbidden):
                    continue
                board[:] = boards[parent]
                cell = r * width + c
                board[blanks[parent]], board[cell] = board[cell], board[blanks[parent]]
                h = _board_hash(board)
                earlier = -1
                i = heads[h] if h in heads else -1
                while i >= 0 and earlier < 0:
                    if _same(boards[i], board) and _inside(boxes[i], box):
                        earlier = i
                    i = chain[i]
                if earlier >= 0:
                    forbidden.add(np.int64(length) << 40 | code)
                    found.append((code, np.int64(length), codes[earlier], lengths[earlier]))
                    continue
                if count == boards.shape[0]:
                    boards, blanks, boxes = grow_rows(boards, count), grow_rows(blanks, count), grow_rows(boxes, count)
                    codes, lengths, chain = grow_rows(codes, count), grow_rows(lengths, count), grow_rows(chain, count)
                boards[count] = board
                blanks[count] = cell
                boxes[count] = box
                codes[count] = code
                lengths[count] = length
                chain[count] = heads[h] if h in heads else -1
                heads[h] = count
                count += 1
        lo, hi = hi, count
    out = np.zeros((4, len(found)), dtype=np.int64)
    for k in range(len(found)):
        out[0, k], out[1, k], out[2, k], out[3, k] = found[k]
    return out[0], out[1], out[2], out[3]


@dataclass(frozen=True)
class Automaton:
    """Transition tables of the pruning automaton (state 0 is the empty history).

    ``full[q * 4 + m]`` is the state after move ``m`` from state ``q``, or -1 when the
    move completes a forbidden string; ``strict`` is the same automaton in which only
    strings with a strictly shorter replacement are forbidden (for A*).
    """

    size: int
    depth: int
    full: np.ndarray
    strict: np.ndarray
    strings: int


def compile_automaton(strings: list[str], strict: set[str]) -> tuple[np.ndarray, np.ndarray]:
    """Aho-Corasick transition tables (int32[S * 4]) forbidding ``strings`` / ``strict``."""
    children: list[dict[int, int]] = [{}]
    terminal: list[str | None] = [None]
    for s in strings:
        q = 0
        for ch in s:
            m = MOVES.index(ch)
            if m not in children[q]:
                children[q][m] = len(children)
                children.append({})
                terminal.append(None)
            q = children[q][m]
        terminal[q] = s
    goto = [[0] * 4 for _ in children]
    bad_full = [False] * len(children)
    bad_strict = [False] * len(children)
    fail = [0] * len(children)
    queue = deque([0])
    while queue:  # breadth-first: a state's failure link is settled before its children's
        q = queue.popleft()
        f = fail[q]
        bad_full[q] = terminal[q] is not None or (q > 0 and bad_full[f])
        bad_strict[q] = terminal[q] in strict or (q > 0 and bad_strict[f])
        for m in range(4):
            child = children[q].get(m)
            if child is not None:
                fail[child] = goto[f][m] if q else 0
                goto[q][m] = child
                queue.append(child)
            else:
                goto[q][m] = goto[f][m] if q else 0
    table = np.array(goto, dtype=np.int32)
    full = np.where(np.array(bad_full)[table], FORBIDDEN, table).astype(np.int32).ravel()
    strict_table = np.where(np.array(bad_strict)[table], FORBIDDEN, table).astype(np.int32).ravel()
    return full, strict_table


_KNOWN: dict[tuple[int, int], Automaton] = {}


def remember(table: Automaton) -> None:
    """Use ``table`` for its width and depth in this process (one read from the store)."""
    _KNOWN[(table.size, table.depth)] = table


def automaton(size: int, depth: int) -> Automaton:
    """The pruning automaton of a board width and search depth: the one this process was
    given (:func:`remember`), else built once per process."""
    return _KNOWN.get((size, depth)) or build_automaton(size, depth)


@lru_cache(maxsize=8)
def build_automaton(size: int, depth: int) -> Automaton:
    """Search the duplicate strings of a width up to ``depth`` and compile them (cached)."""
    dups = duplicate_strings(size, depth)
    full, strict = compile_automaton([d.forbidden for d in dups], {d.forbidden for d in dups if d.strict})
    for table in (full, strict):
        table.flags.writeable = False
    return Automaton(size, depth, full, strict, len(dups))
