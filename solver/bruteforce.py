"""The brute-force search tree IDA* prunes: how many nodes it has at each depth, by blank cell.

Korf, Reid & Edelkamp ("Time complexity of iterative-deepening-A*", Artificial Intelligence
129, 2001) predict IDA*'s nodes from N_i, the number of nodes at depth i of the tree IDA*
would search with no heuristic, under the same move pruning. That tree is a walk of the
blank, so N_i follows exactly from a dynamic programme over the *kinds* of node a search
can be in: the blank's cell, the last move (parent pruning: the move undoing it is never
made) and the state of the pruning automaton (``--prune fsm``, :mod:`solver.fsm`). A node
of one kind has the same children's kinds wherever it is, so the count of each kind at
depth i + 1 is a sum over the kinds at depth i (:meth:`Tree.counts`); no node is visited.
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import lru_cache

import numpy as np

from .fsm import Pruning, automaton
from .geometry import inverse_move, neighbours

NO_MOVE = 4  # the last move of the root


@dataclass(frozen=True)
class Tree:
    """The kinds of node of the pruned tree below a root with the blank on ``root_cell``.

    ``cell[k]`` is the blank's cell of kind ``k`` (``int64[K]``) and ``last[k]`` the move
    that made it (:data:`NO_MOVE` for the root); an edge ``src[e] -> dst[e]``
    (``int64[E]``) is a child a node of kind ``src[e]`` generates, by move ``last[dst[e]]``.
    Kind 0 is the root.
    """

    size: int
    root_cell: int
    cell: np.ndarray
    last: np.ndarray
    src: np.ndarray
    dst: np.ndarray

    @property
    def children(self) -> np.ndarray:
        """``int64[K]``: how many children a node of each kind generates."""
        return np.bincount(self.src, minlength=len(self.cell))

    def counts(self, depth: int, dtype=np.float64) -> np.ndarray:
        """``dtype[depth + 1, K]``: nodes of each kind at each depth 0..``depth``
        (``np.int64`` is exact while the counts fit: to about depth 55 on the 15-puzzle)."""
        out = np.zeros((depth + 1, len(self.cell)), dtype=dtype)
        out[0, 0] = 1
        for i in range(depth):
            np.add.at(out[i + 1], self.dst, out[i, self.src])
        return out

    def kind_index(self) -> np.ndarray:
        """``int64[size * size, 5]``: the kind of each (cell, last move) under parent pruning
        (-1 where none); with the automaton a (cell, last move) has several kinds."""
        out = np.full((self.size * self.size, NO_MOVE + 1), -1, dtype=np.int64)
        out[self.cell, self.last] = np.arange(len(self.cell))
        return out

    def by_cell(self, depth: int, dtype=np.float64) -> np.ndarray:
        """``dtype[depth + 1, size * size]``: nodes at each depth by the blank's cell."""
        counts = self.counts(depth, dtype)
        out = np.zeros((depth + 1, self.size * self.size), dtype=dtype)
        for c in range(self.size * self.size):
            out[:, c] = counts[:, self.cell == c].sum(axis=1)
        return out


@lru_cache(maxsize=128)
def tree(size: int, root_cell: int, pruning: Pruning) -> Tree:
    """The kinds of node below a root with the blank on ``root_cell``, found breadth-first
    from the root's kind (cell, no last move, the automaton's start state)."""
    nbr = neighbours(size)
    fsm = automaton(size, pruning.depth).full if pruning.kind == "fsm" else None
    index = {(root_cell, NO_MOVE, 0): 0}
    queue = [(root_cell, NO_MOVE, 0)]
    src, dst = [], []
    while queue:
        kind = queue.pop()
        cell, last, q = kind
        for m in range(4):
            target = int(nbr[cell, m])
            if target < 0 or (last != NO_MOVE and m == inverse_move(last)):
                continue
            nq = 0 if fsm is None else int(fsm[q * 4 + m])
            if nq < 0:
                continue
            child = (target, m, nq)
            if child not in index:
                index[child] = len(index)
                queue.append(child)
            src.append(index[kind])
            dst.append(index[child])
    kinds = np.array(list(index), dtype=np.int64)
    return Tree(size, root_cell, kinds[:, 0].copy(), kinds[:, 1].copy(), np.array(src, dtype=np.int64),
                np.array(dst, dtype=np.int64))
