"""``check-heuristic``: a heuristic against the exact distance of every 8-puzzle board, of a
sample of boards of a larger puzzle, or of the boards on a sweep's optimal paths.

The exact distances come from a breadth-first search from the goal over every board that
reaches it (181,440 on the 8-puzzle, :func:`.quality.exact_distances`), each of which is checked:

- admissible: h(s) <= d(s) on every board;
- consistent: |h(a) - h(b)| <= 1 across every move (a move costs 1).

A sample (:func:`check_sample`, the 15-puzzle) is of uniform random boards whose distance
is the optimal cost IDA* finds with a reference heuristic (by default the strongest built-in
one); consistency is checked across every move out of each sampled board. A sweep's paths
(:func:`check_paths`) give the start boards of its solved rows and every board on their
optimal paths, each with the cost left as its distance. Each check also says how good the
heuristic is (:mod:`.quality`): the distribution of h over the boards, mean h/h* and the
share with h = h*.
"""

from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np

from tilesweep.solver.errors import InvalidOptionError
from tilesweep.solver.geometry import MOVES
from tilesweep.solver.heuristics import parse_heuristic
from tilesweep.solver.search import heuristic_values

from .quality import (
    Agreement,
    Distribution,
    PathBoards,
    agreement,
    distribution,
    exact_distances,
    kernel_of,
    move_blanks,
)

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
    mean_ratio: float = float("nan")  # mean h / h* over the boards with h* > 0
    exact_share: float = float("nan")  # the fraction of the boards with h = h*
    distribution: Distribution | None = None  # of h over the boards checked
    starts: Agreement | None = None  # a sweep's: h against h* on the start boards alone
    sampled: Distribution | None = None  # of h over uniform random boards (--states)

    @property
    def admissible(self) -> bool:
        return self.overestimates == 0

    @property
    def consistent(self) -> bool:
        return self.inconsistent_moves == 0


def _text(board) -> str:
    return " ".join(map(str, board.tolist()))


def check_heuristic(name: str, size: int, goal: tuple[int, ...], tables=(), worst: int = 5) -> HeuristicCheck:
    """Check heuristic ``name`` (``tables``: its PDBs) on every board that reaches ``goal``."""
    if size not in CHECK_SIZES:
        raise InvalidOptionError(f"size {size!r}: check-heuristic compares with exact distances on the 8-puzzle "
                                 "only; expected --size 3, or --sample N boards solved optimally")
    boards, d = exact_distances(size, goal)
    return _checked(name, size, goal, tables, boards, d, worst)[0]


def check_sample(name: str, size: int, goal: tuple[int, ...], tables, count: int, seed: int, reference: str,
                 reference_tables, worst: int = 5) -> HeuristicCheck:
    """Check heuristic ``name`` on ``count`` uniform random boards (``seed``) against the
    optimal cost IDA* finds for each with ``reference`` (an admissible heuristic)."""
    from tilesweep.solver.generators import uniform_instance
    from tilesweep.solver.solve import solve

    if size not in SAMPLE_SIZES:
        raise InvalidOptionError(f"size {size!r}: check-heuristic --sample checks 8- and 15-puzzles; "
                                 "expected --size 3 or 4")
    parse_heuristic(name, size, goal)
    rng = np.random.default_rng(seed)
    sample = [uniform_instance(size, goal, rng) for _ in range(count)]
    boards = np.array([b.tiles for b in sample], dtype=np.int8).reshape(count, size * size)
    d = np.array([solve(b, goal, "idastar", reference, tuple(reference_tables)).cost for b in sample], dtype=np.int64)
    return _checked(name, size, goal, tables, boards, d, worst, both_ends=False, reference=reference, seed=seed)[0]


def check_paths(name: str, size: int, goal: tuple[int, ...], tables, paths: PathBoards, source: str,
                worst: int = 5) -> HeuristicCheck:
    """Check heuristic ``name`` on the start boards of solved rows and every board of their
    optimal paths (``paths``), whose true distance is the cost left; ``source`` names the rows."""
    check, h = _checked(name, size, goal, tables, paths.boards, paths.distances, worst, both_ends=False,
                        reference=source)
    check.starts = agreement(h[paths.start], paths.distances[paths.start])
    return check


def _checked(name: str, size: int, goal: tuple[int, ...], tables, boards: np.ndarray, d: np.ndarray, worst: int,
             both_ends: bool = True, **fields) -> tuple[HeuristicCheck, np.ndarray]:
    """The check of heuristic ``name`` on ``boards`` (int8[M, N]) whose true distances are
    ``d`` (int64[M]), and h of each board."""
    H = kernel_of(name, size, goal, tables)
    h = heuristic_values(boards, size, H)
    over = np.flatnonzero(h > d)
    order = over[np.argsort(d[over] - h[over], kind="stable")][:worst]
    found = agreement(h, d)
    check = HeuristicCheck(name, len(boards), 0, len(over), 0, found.mean_h, found.mean_distance,
                           [(_text(boards[i]), int(h[i]), int(d[i])) for i in order], mean_ratio=found.mean_ratio,
                           exact_share=found.exact_share, distribution=distribution(h), **fields)
    _check_moves(check, boards, h, size, H, worst, both_ends)
    return check, h


def _check_moves(check: HeuristicCheck, boards: np.ndarray, h: np.ndarray, size: int, H, worst: int,
                 both_ends: bool = True) -> None:
    """Count the moves across which h changes by more than 1; keep the largest jumps.
    ``both_ends``: ``boards`` holds both boards of each move (every board of a puzzle)."""
    rows = np.arange(len(boards))
    jumps = []
    for move in range(len(MOVES)):
        children, ok = move_blanks(boards, np.full(len(boards), move), size)
        children = children[ok]
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
