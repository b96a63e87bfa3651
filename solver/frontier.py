"""The top of an IDA* tree, expanded once, and what each iteration does there.

A split search (:mod:`solver.splitsearch`) expands the start breadth-first, with the same
pruning as the search (parent pruning or the automaton) and the same successor order, to
the split depth D; goals are not expanded (the search stops at a goal it accepts). The
nodes at depth D (the *roots*) are where the iterations are cut into tasks; the nodes above
them are counted here, exactly as the serial search counts them:

- a node at depth k >= 1 is generated in the iteration with bound B when every ancestor
  between depth 1 and k - 1 has f <= B (the start is always expanded);
- a generated node with f <= B is kept: it is a goal, or it is expanded (a root's subtree
  is then searched by a task);
- a generated node with f > B is cut off, and its f is a candidate for the next bound.

Nodes are held level by level in breadth-first order, which within a level is the order
the depth-first search meets them; :attr:`Frontier.rank` orders all of them that way, so
of several goals found in one iteration the one serial IDA* meets first can be told.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from .geometry import MOVES, neighbours
from .hstate import h_many
from .subtrees import Chunk


@dataclass(frozen=True)
class TopCount:
    """The nodes above the roots in one iteration, and the roots it searches."""

    generated: int
    expanded: int          # the start and every kept node that is not a goal
    next_bound: int        # least f of a node cut off here (NO_BOUND: none)
    goals: np.ndarray      # indices of the goals accepted here
    roots: np.ndarray      # indices of the roots whose subtrees are searched


@dataclass(frozen=True)
class Frontier:
    """Every node from depth 1 to the split depth, level by level.

    ``boards`` int8[M, N], ``depth``, ``f``, ``last`` (the move that made the node),
    ``q`` (its automaton state), ``above`` (the largest f of its ancestors at depth >= 1;
    -1 at depth 1) int64[M], ``goal`` bool[M], ``moves`` int8[M, D] (its path, padded
    with -1) and ``rank`` int64[M] (its place in depth-first order).
    """

    split_depth: int
    boards: np.ndarray
    depth: np.ndarray
    f: np.ndarray
    last: np.ndarray
    q: np.ndarray
    above: np.ndarray
    goal: np.ndarray
    moves: np.ndarray
    rank: np.ndarray

    @property
    def n_roots(self) -> int:
        return int(np.count_nonzero(self.depth == self.split_depth))

    def at(self, bound: int, no_bound: int) -> TopCount:
        """What the iteration with ``bound`` does above the roots."""
        generated = self.above <= bound
        kept = generated & (self.f <= bound)
        cut = generated & (self.f > bound)
        return TopCount(int(np.count_nonzero(generated)), 1 + int(np.count_nonzero(kept & ~self.goal)),
                        int(self.f[cut].min()) if cut.any() else no_bound, np.flatnonzero(kept & self.goal),
                        np.flatnonzero(kept & ~self.goal & (self.depth == self.split_depth)))

    def upto(self, bound: int, index: int) -> tuple[int, int]:
        """Nodes generated and expanded above the roots in the iteration with ``bound`` until
        the search meets node ``index`` (in depth-first order, that node included): what the
        serial search counts there when it stops at a goal that is, or lies below, ``index``."""
        met = self.rank <= self.rank[index]
        generated = met & (self.above <= bound)
        kept = generated & (self.f <= bound) & ~self.goal
        return int(np.count_nonzero(generated)), 1 + int(np.count_nonzero(kept))

    def chunks(self, roots: np.ndarray, weights: np.ndarray, count: int) -> list[Chunk]:
        """``roots`` (in frontier order, which is depth-first order) cut into runs of
        consecutive roots of about equal total ``weights`` (predicted subtree sizes,
        positive): a root joins the run of the ``count``-th share of the total in which its
        own work starts, and a root heavier than a share starts a new run (so at most
        ``count`` runs, and one more for each such root)."""
        if len(roots) == 0:
            return []
        weights = np.asarray(weights, dtype=np.float64)
        share = weights.sum() / count
        run = np.floor((np.cumsum(weights) - weights) / share)
        cuts = np.flatnonzero((np.diff(run) > 0) | (weights[1:] >= share)) + 1
        return [Chunk(ids, self.boards[ids], self.depth[ids], self.last[ids], self.q[ids])
                for ids in np.split(roots, cuts)]

    def path(self, index: int) -> str:
        """The moves from the start to node ``index``."""
        return "".join(MOVES[m] for m in self.moves[index].tolist() if m >= 0)


def expand(tiles: tuple[int, ...], size: int, goal: tuple[int, ...], H, split_depth: int,
           fsm: np.ndarray | None = None) -> Frontier:
    """The :class:`Frontier` of the board ``tiles`` to ``split_depth`` moves.

    ``H`` is the search's kernel heuristic; ``fsm`` the pruning automaton's transitions
    (:attr:`solver.fsm.Automaton.full`), or None for parent pruning alone.
    """
    nbr = neighbours(size).astype(np.int64)
    goal_board = np.array(goal, dtype=np.int8)
    level = _Level(np.array([tiles], dtype=np.int8), np.array([-1]), np.array([0]), np.array([-1]),
                   np.zeros(1, bool), np.zeros((1, 0), dtype=np.int8))
    levels = []
    for depth in range(1, split_depth + 1):
        level = _children(level, nbr, fsm)
        level.goal = (level.boards == goal_board).all(axis=1)
        h = h_many(level.boards, size, H)
        level.f = depth + h
        levels.append(level)
    return _assemble(levels, split_depth)


@dataclass
class _Level:
    boards: np.ndarray
    last: np.ndarray
    q: np.ndarray
    above: np.ndarray
    goal: np.ndarray
    moves: np.ndarray
    f: np.ndarray | None = None


def _children(level: _Level, nbr: np.ndarray, fsm: np.ndarray | None) -> _Level:
    """The next level: each node's children (goals have none) in parent, then move order."""
    blank = np.argmax(level.boards == 0, axis=1)
    target = nbr[blank]                                    # [k, 4]
    moves = np.arange(4)
    allowed = (target >= 0) & (moves[None, :] != 3 - level.last[:, None]) & ~level.goal[:, None]
    q = np.zeros_like(target)
    if fsm is not None:
        q = fsm[level.q[:, None] * 4 + moves[None, :]].astype(np.int64)
        allowed &= q >= 0
    parent, move = np.nonzero(allowed)
    boards = level.boards[parent].copy()
    rows = np.arange(len(parent))
    cells = target[parent, move]
    boards[rows, blank[parent]] = boards[rows, cells]
    boards[rows, cells] = 0
    above = level.above[parent] if level.f is None else np.maximum(level.above[parent], level.f[parent])
    path = np.concatenate([level.moves[parent], move[:, None].astype(np.int8)], axis=1)
    return _Level(boards, move, q[parent, move], above, np.zeros(len(parent), bool), path)


def _assemble(levels: list[_Level], split_depth: int) -> Frontier:
    depth = np.concatenate([np.full(len(lv.last), d, dtype=np.int64) for d, lv in enumerate(levels, 1)])
    moves = np.full((len(depth), split_depth), -1, dtype=np.int8)
    start = 0
    for lv in levels:
        moves[start:start + len(lv.last), :lv.moves.shape[1]] = lv.moves
        start += len(lv.last)
    order = np.lexsort(moves.T[::-1])  # by the first move, then the second, ...; -1 (shorter) first
    rank = np.empty(len(depth), dtype=np.int64)
    rank[order] = np.arange(len(depth))

    def cat(name, dtype=np.int64):
        return np.concatenate([getattr(lv, name) for lv in levels]).astype(dtype)

    return Frontier(split_depth, np.concatenate([lv.boards for lv in levels]), depth, cat("f"), cat("last"),
                    cat("q"), cat("above"), cat("goal", bool), moves, rank)
