"""KRE: IDA*'s nodes in the iteration with threshold d, from the brute-force tree and the
equilibrium distribution of h (Korf, Reid & Edelkamp, "Time complexity of
iterative-deepening-A*", Artificial Intelligence 129, 2001).

A node at depth i is expanded when g + h = i + h <= d, so the iteration expands
E(d) = sum_i N_i P(d - i) nodes, N_i the nodes at depth i of the brute-force tree and P(v)
the fraction of them with h <= v. Deep in the tree the states at depth i with the blank on
cell c are spread like all states with the blank on c (the tree's equilibrium), so P is
taken per blank cell from the distribution of h over the states with the blank there,
weighted by the tree's own nodes at depth i on each cell, kind by kind
(:mod:`solver.bruteforce`). Nodes *generated*, what tilesweep counts, are the root and the
children of every expanded node: G(d) = 1 + sum_i sum_k N_i(k) P_c(k)(d - i) b(k), b(k) the
children of a node of kind k. The prediction says nothing of the start state but its blank's
cell: its claim is for start states drawn independently of h, on average.
"""

from __future__ import annotations

import numpy as np

from .bruteforce import Tree


def at_most(cells: np.ndarray) -> np.ndarray:
    """``float64[n, H]``: per blank cell, the fraction of states with h <= v (``cells``:
    counts by cell and h, as :class:`~solver.hdist.Distributions` holds them)."""
    totals = np.maximum(cells.sum(axis=1, keepdims=True), 1)
    return np.cumsum(cells, axis=1) / totals


def _fraction(table: np.ndarray, cells: np.ndarray, v: int) -> np.ndarray:
    """P_c(v) for the cells ``cells`` (0 below 0, 1 above the table)."""
    if v < 0:
        return np.zeros(len(cells))
    return table[cells, min(v, table.shape[1] - 1)]


def kre(tree: Tree, cells: np.ndarray, bounds) -> tuple[np.ndarray, np.ndarray]:
    """(nodes generated, nodes expanded) predicted for the iterations with thresholds
    ``bounds`` below the root of ``tree``; ``cells``: counts of states by blank cell and h.
    Both ``float64[len(bounds)]``; generated counts the root."""
    bounds = [int(b) for b in bounds]
    counts = tree.counts(max(bounds, default=0))
    table = at_most(cells)
    children = tree.children
    generated, expanded = np.zeros(len(bounds)), np.zeros(len(bounds))
    for j, d in enumerate(bounds):
        for i in range(d + 1):
            p = counts[i] * _fraction(table, tree.cell, d - i)
            expanded[j] += p.sum()
            generated[j] += (p * children).sum()
        generated[j] += 1
    return generated, expanded
