"""The distributions of a heuristic that predict IDA*'s nodes: h by the blank's cell, and a
child's h given its parent's (one step) or given its parent's and grandparent's (two steps).

States come from one of two sources:

- *exact*: every state that reaches the goal (the 8-puzzle's 181,440), and every move
  out of each (two steps: every pair of moves that does not undo itself);
- *sampled*: ``count`` states drawn uniformly from those that reach the goal
  (:func:`random_states`, a numba kernel seeded with ``seed``: a Fisher-Yates shuffle, and
  a swap of the first two tiles where the parity is wrong, a bijection between the
  halves), every move out of each, and for two steps one random move out of each followed
  by every move that does not undo it. The conditional tables also count ``tilted``
  states drawn in proportion to exp(-tilt * h) (:func:`tilted_states`): IDA*'s deep nodes
  have low h, which uniform states almost never show (on the 15-puzzle with Manhattan
  distance, 45 of a million have h <= 15), and a state's h alone decides its weight, so
  given h and the blank's cell they are uniform still.

h is evaluated in batches by the search's own kernels (:func:`solver.search.heuristic_values`),
plugins included. A change of h across a move is stored as an offset ``delta + spread``
(``spread``: the largest |delta| seen), which keeps the tables small for consistent
heuristics (spread 1) and lets a prediction borrow the change seen at a nearby h where
a value was never sampled (:func:`solver.cdp`).
"""

from __future__ import annotations

from dataclasses import dataclass
from itertools import permutations

import numpy as np

from .geometry import inverse_move, neighbours
from .jit import kernel
from .search import heuristic_values
from .seeded import make_solvable

MAX_TWO_STEP_SPREAD = 2  # a wider change per move makes the two-step table too large to keep
TILTS = (0.5, 1.0, 1.5, 2.0)  # exp(-tilt * h): the weights of the tilted samples (their h from typical to low)
TILT_STEPS = 300              # Metropolis steps per tilted sample


@dataclass(frozen=True)
class Distributions:
    """Counts of states (not yet fractions) that a prediction normalises.

    ``cells``: ``int64[n, H]``, states by blank cell and h. ``step``: ``int64[n, 4, H, 2s + 1]``,
    moves by the parent's blank cell, the move, the parent's h and the offset of the child's
    h. ``step2``: ``int64[n, 4, 2s + 1, H, 4, 2s + 1]``, moves by the parent's cell, the move
    that made the parent, the offset of the parent's h from its parent's, the parent's h,
    the move and the child's offset (empty where ``spread`` exceeds
    :data:`MAX_TWO_STEP_SPREAD`). ``method`` is ``"exact"`` or ``"sampled"``; ``tilted``: how
    many tilted states (:func:`tilted_states`) the conditional tables also count.
    """

    size: int
    spread: int
    cells: np.ndarray
    step: np.ndarray
    step2: np.ndarray
    method: str
    states: int
    seed: int | None = None
    tilted: int = 0

    @property
    def max_h(self) -> int:
        return self.cells.shape[1] - 1


@kernel
def _random_states(count, n, goal_pos, size, seed):
    """``int8[count, n]`` uniform random boards reaching the goal whose cells are ``goal_pos``
    (``int64[n]``: the goal cell of each tile)."""
    np.random.seed(seed)
    out = np.empty((count, n), dtype=np.int8)
    tiles = np.arange(n)
    seen = np.zeros(n, dtype=np.bool_)
    for i in range(count):
        for j in range(n - 1, 0, -1):
            k = np.random.randint(0, j + 1)
            tiles[j], tiles[k] = tiles[k], tiles[j]
        make_solvable(tiles, goal_pos, size, seen)
        for c in range(n):
            out[i, c] = tiles[c]
    return out


def random_states(size: int, goal: tuple[int, ...], count: int, seed: int) -> np.ndarray:
    """``int8[count, size * size]``: uniform random states that reach ``goal``, seeded."""
    goal_pos = np.empty(len(goal), dtype=np.int64)
    goal_pos[list(goal)] = np.arange(len(goal))
    return _random_states(count, size * size, goal_pos, size, seed)


def all_states(size: int, goal: tuple[int, ...]) -> np.ndarray:
    """``int8[M, N]``: every state that reaches ``goal`` (3x3 only: 181,440)."""
    n = size * size
    boards = np.array(list(permutations(range(n))), dtype=np.int8)
    goal_pos = np.empty(n, dtype=np.int64)
    goal_pos[list(goal)] = np.arange(n)
    cells = goal_pos[boards.astype(np.int64)]
    upper = np.triu(np.ones((n, n), dtype=bool), 1)
    inversions = ((cells[:, :, None] > cells[:, None, :]) & upper).sum(axis=(1, 2))
    blank = np.argmax(boards == 0, axis=1)
    t = goal_pos[0]
    distance = np.abs(blank // size - t // size) + np.abs(blank % size - t % size)
    return boards[inversions % 2 == distance % 2]


def moved(boards: np.ndarray, size: int, moves: np.ndarray) -> np.ndarray:
    """Each row of ``boards`` after its blank makes ``moves[row]`` (every move legal)."""
    blank = np.argmax(boards == 0, axis=1)
    target = neighbours(size)[blank, moves].astype(np.int64)
    out = boards.copy()
    rows = np.arange(len(boards))
    out[rows, blank] = boards[rows, target]
    out[rows, target] = 0
    return out


def legal_moves(blank: np.ndarray, size: int, last: np.ndarray | None = None) -> tuple[np.ndarray, np.ndarray]:
    """(row, move) of every legal move of blanks ``blank`` (not undoing ``last``), row-major."""
    ok = neighbours(size)[blank] >= 0
    if last is not None:
        ok &= np.arange(4)[None, :] != inverse_move(last)[:, None]
    return np.nonzero(ok)


def _offsets(h_from: np.ndarray, h_to: np.ndarray, spread: int) -> np.ndarray:
    return (h_to - h_from + spread).astype(np.int64)


def tilted_states(size: int, goal: tuple[int, ...], H, count: int, seed: int, tilts=TILTS,
                  steps: int = TILT_STEPS) -> np.ndarray:
    """``int8[count, N]``: states drawn with probability proportional to exp(-tilt * h) (the
    ``tilts`` in equal shares), so low values of h, rare among uniform states, are seen;
    given h and the blank's cell such states are still uniform, which is all a conditional
    table needs. Each is the end of a Metropolis chain of ``steps`` steps from a uniform
    state, all chains at once: a step proposes a 3-cycle of three tiles (the blank and the
    parity stay), accepted with probability min(1, exp(-tilt * (h' - h)))."""
    rng = np.random.default_rng([seed, 1])
    boards = random_states(size, goal, count, seed + 1)
    tilt = np.repeat(np.asarray(tilts, dtype=np.float64), -(-count // len(tilts)))[:count]
    h = heuristic_values(boards, size, H)
    rows = np.arange(count)
    for _ in range(steps):
        cells = rng.integers(0, size * size, (count, 3))
        picked = boards[rows[:, None], cells]
        ok = (picked != 0).all(axis=1) & (cells[:, 0] != cells[:, 1]) & (cells[:, 1] != cells[:, 2]) \
            & (cells[:, 0] != cells[:, 2])
        proposal = boards.copy()
        proposal[rows[:, None], cells] = np.roll(picked, 1, axis=1)
        proposal[~ok] = boards[~ok]  # a repeated cell would duplicate a tile: no board for the kernels
        h_new = heuristic_values(proposal, size, H)
        accept = ok & (rng.random(count) < np.exp(-tilt * (h_new - h)))
        boards[accept], h[accept] = proposal[accept], h_new[accept]
    return boards


def distributions(boards: np.ndarray, size: int, H, method: str, seed: int | None = None,
                  rng: np.random.Generator | None = None, tilted: np.ndarray | None = None) -> Distributions:
    """The distributions of heuristic ``H`` (a kernel heuristic) over ``boards`` and their
    moves (:mod:`module docstring <solver.hdist>`). ``rng`` picks the first of the two steps
    (``None``: every move, the exact method). ``tilted`` states (:func:`tilted_states`) add
    to the conditional tables only, not to the distribution of h."""
    n = size * size
    uniform = len(boards)
    if tilted is not None:
        boards = np.concatenate([boards, tilted])
    h = heuristic_values(boards, size, H)
    blank = np.argmax(boards == 0, axis=1)
    rows, m = legal_moves(blank, size)
    child_h = heuristic_values(moved(boards[rows], size, m), size, H)
    if rng is None:
        p_rows, p_m = rows, m
        p_h = child_h
    else:
        p_rows = np.arange(len(boards))
        p_m = _random_legal(blank, size, rng)
        p_h = None
    parents = moved(boards[p_rows], size, p_m)
    if p_h is None:
        p_h = heuristic_values(parents, size, H)
    p_blank = neighbours(size)[blank[p_rows], p_m].astype(np.int64)
    c_rows, c_m = legal_moves(p_blank, size, p_m)
    c_h = heuristic_values(moved(parents[c_rows], size, c_m), size, H)
    spread = int(max(np.abs(child_h - h[rows]).max(initial=0), np.abs(c_h - p_h[c_rows]).max(initial=0)))
    top = int(max(h.max(), child_h.max(), p_h.max(), c_h.max())) + 1
    width = 2 * spread + 1
    cells = tally((n, top), (blank[:uniform], h[:uniform]))
    step = tally((n, 4, top, width), (blank[rows], m, h[rows], _offsets(h[rows], child_h, spread)))
    if spread > MAX_TWO_STEP_SPREAD:
        step2 = np.zeros((0, 4, width, top, 4, width), dtype=np.int64)
    else:
        before = _offsets(h[p_rows], p_h, spread)
        step2 = tally((n, 4, width, top, 4, width), (p_blank[c_rows], p_m[c_rows], before[c_rows], p_h[c_rows],
                                                     c_m, _offsets(p_h[c_rows], c_h, spread)))
    return Distributions(size, spread, cells, step, step2, method, uniform, seed, len(boards) - uniform)


def tally(shape: tuple[int, ...], index: tuple[np.ndarray, ...]) -> np.ndarray:
    """``int64[shape]``: how many times each index occurs in the columns ``index``."""
    flat = np.ravel_multi_index(tuple(np.asarray(i, dtype=np.int64) for i in index), shape)
    return np.bincount(flat, minlength=int(np.prod(shape))).astype(np.int64).reshape(shape)


def _random_legal(blank: np.ndarray, size: int, rng: np.random.Generator) -> np.ndarray:
    """One uniformly chosen legal move per blank cell in ``blank``."""
    ok = neighbours(size)[blank] >= 0
    pick = (rng.random(len(blank)) * ok.sum(axis=1)).astype(np.int64)
    return np.argmax(np.cumsum(ok, axis=1) > pick[:, None], axis=1)


def exact_distributions(size: int, goal: tuple[int, ...], H) -> Distributions:
    """:func:`distributions` over every state that reaches ``goal`` (3x3)."""
    return distributions(all_states(size, goal), size, H, "exact")


def sampled_distributions(size: int, goal: tuple[int, ...], H, count: int, seed: int, tilted: int = 0
                          ) -> Distributions:
    """:func:`distributions` over ``count`` uniform random states drawn with ``seed``, the
    conditional tables also over ``tilted`` states of :func:`tilted_states`."""
    rng = np.random.default_rng(seed)
    extra = tilted_states(size, goal, H, tilted, seed) if tilted else None
    return distributions(random_states(size, goal, count, seed), size, H, "sampled", seed, rng, extra)
