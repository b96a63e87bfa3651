"""``check-heuristic``: a heuristic against the exact distance of every 8-puzzle board, or
of a sample of boards of a larger puzzle.

The exact distances come from a breadth-first search from the goal over every board that
reaches it (181,440 on the 8-puzzle), each of which is checked:

- admissible: h(s) <= d(s) on every board;
- consistent: |h(a) - h(b)| <= 1 across every move (a move costs 1).

A sample (:func:`check_sample`, the 15-puzzle) is of uniform random boards whose distance
is the optimal cost IDA* finds with a reference heuristic (by default the strongest built-in
one); consistency is checked across every move out of each sampled board.
"""

from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np

from tilesweep.solver.errors import InvalidOptionError
from tilesweep.solver.geometry import neighbours
from tilesweep.solver.heuristics import kernel_heuristic, parse_heuristic
from tilesweep.solver.search import heuristic_values

CHECK_SIZES = (3,)
SAMPLE_SIZES = (3, 4)
STRONGEST = {3: "pdb:5-3+reflect", 4: "pdb:7-8+reflect"}  # the reference a sample is solved with


@dataclass
class HeuristicCheck:
    """What :func:`check_heuristic` found; ``worst_*`` are (tiles text, h, reference) rows."""

    heuristic: str
    boards: int
    moves: int
    overestimates: int
    inconsistent_moves: int
    mean_h: float
    mean_distance: float
    worst_overestimates: list = field(default_factory=list)   # (board, h, true distance)
    worst_jumps: list = field(default_factory=list)           # (board, h, neighbour's h), (neighbour, ...)
    reference: str = ""   # a sample's: the heuristic whose IDA* gave the distances ("" for BFS)
    seed: int | None = None

    @property
    def admissible(self) -> bool:
        return self.overestimates == 0

    @property
    def consistent(self) -> bool:
        return self.inconsistent_moves == 0


def _text(board) -> str:
    return " ".join(map(str, board.tolist()))


def exact_distances(size: int, goal: tuple[int, ...]) -> tuple[np.ndarray, np.ndarray]:
    """(``int8[M, N]`` every board that reaches ``goal``, ``int64[M]`` its distance), by BFS."""
    nbr = neighbours(size)
    start = bytes(goal)
    seen = {start: 0}
    layer = [start]
    depth = 0
    while layer:
        depth += 1
        following = []
        for key in layer:
            board = bytearray(key)
            blank = board.index(0)
            for target in nbr[blank]:
                if target < 0:
                    continue
                board[blank], board[target] = board[target], 0
                child = bytes(board)
                board[target], board[blank] = board[blank], 0
                if child not in seen:
                    seen[child] = depth
                    following.append(child)
        layer = following
    boards = np.frombuffer(b"".join(seen), dtype=np.int8).reshape(len(seen), size * size)
    return boards, np.fromiter(seen.values(), dtype=np.int64, count=len(seen))


def check_heuristic(name: str, size: int, goal: tuple[int, ...], tables=(), worst: int = 5) -> HeuristicCheck:
    """Check heuristic ``name`` (``tables``: its PDBs) on every board that reaches ``goal``."""
    if size not in CHECK_SIZES:
        raise InvalidOptionError(f"size {size!r}: check-heuristic compares with exact distances on the 8-puzzle "
                                 "only; expected --size 3, or --sample N boards solved optimally")
    spec = parse_heuristic(name, size, goal)
    boards, d = exact_distances(size, goal)
    h = heuristic_values(boards, size, kernel_heuristic(spec, size, goal, tuple(tables)))
    over = np.flatnonzero(h > d)
    order = over[np.argsort(d[over] - h[over], kind="stable")][:worst]
    check = HeuristicCheck(name, len(boards), 0, len(over), 0, float(h.mean()), float(d.mean()),
                           [(_text(boards[i]), int(h[i]), int(d[i])) for i in order])
    _check_moves(check, boards, h, size, kernel_heuristic(spec, size, goal, tuple(tables)), worst)
    return check


def check_sample(name: str, size: int, goal: tuple[int, ...], tables, count: int, seed: int, reference: str,
                 reference_tables, worst: int = 5) -> HeuristicCheck:
    """Check heuristic ``name`` on ``count`` uniform random boards (``seed``) against the
    optimal cost IDA* finds for each with ``reference`` (an admissible heuristic)."""
    from tilesweep.solver.generators import uniform_instance
    from tilesweep.solver.solve import solve

    if size not in SAMPLE_SIZES:
        raise InvalidOptionError(f"size {size!r}: check-heuristic --sample checks 8- and 15-puzzles; "
                                 "expected --size 3 or 4")
    spec = parse_heuristic(name, size, goal)
    rng = np.random.default_rng(seed)
    sample = [uniform_instance(size, goal, rng) for _ in range(count)]
    boards = np.array([b.tiles for b in sample], dtype=np.int8).reshape(count, size * size)
    d = np.array([solve(b, goal, "idastar", reference, tuple(reference_tables)).cost for b in sample], dtype=np.int64)
    H = kernel_heuristic(spec, size, goal, tuple(tables))
    h = heuristic_values(boards, size, H)
    over = np.flatnonzero(h > d)
    order = over[np.argsort(d[over] - h[over], kind="stable")][:worst]
    check = HeuristicCheck(name, count, 0, len(over), 0, float(h.mean()), float(d.mean()),
                           [(_text(boards[i]), int(h[i]), int(d[i])) for i in order], reference=reference, seed=seed)
    _check_moves(check, boards, h, size, H, worst, both_ends=False)
    return check


def _check_moves(check: HeuristicCheck, boards: np.ndarray, h: np.ndarray, size: int, H, worst: int,
                 both_ends: bool = True) -> None:
    """Count the moves across which h changes by more than 1; keep the largest jumps.
    ``both_ends``: ``boards`` holds both boards of each move (every board of a puzzle)."""
    nbr = neighbours(size)
    blank = np.argmax(boards == 0, axis=1)
    rows = np.arange(len(boards))
    jumps = []
    for move in range(4):
        target = nbr[blank, move].astype(np.int64)
        ok = target >= 0
        children = boards[ok].copy()
        r, b, t = np.arange(len(children)), blank[ok], target[ok]
        children[r, b] = children[r, t]
        children[r, t] = 0
        hc = heuristic_values(children, size, H)
        jump = np.abs(hc - h[ok])
        bad = np.flatnonzero(jump > 1)
        check.moves += int(ok.sum())
        check.inconsistent_moves += len(bad)
        worst_first = bad[np.argsort(-jump[bad])][:worst]
        jumps += [(int(jump[i]), int(rows[ok][i]), children[i], int(hc[i])) for i in worst_first]
    if both_ends:
        check.inconsistent_moves //= 2  # each move is met from both of its boards
    jumps.sort(key=lambda j: -j[0])
    seen = {}
    for _, i, child, hc in jumps:  # each move is met from both ends: keep one
        pair = ((_text(boards[i]), int(h[i])), (_text(child), hc))
        seen.setdefault(frozenset(pair), pair)
    check.worst_jumps = list(seen.values())[:worst]
