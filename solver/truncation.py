"""epsilon-truncation of CDP's conditional distributions (Lelis, Zilles & Holte, "Improved
prediction of IDA*'s performance via epsilon-truncation", SoCS 2011; "Predicting the size of
IDA*'s search tree", Artificial Intelligence 196, 2013).

CDP spreads a node's children over every h its type has ever shown, however rarely; in one
tree a rare child is there or not (their *discretization effect*), and a rare low h carries a
large subtree, so fractional rare children add up to overestimates. epsilon-truncation sets
the conditional probabilities of a type at or below a per-type cutoff epsilon_t to zero and
renormalises the rest. Here a type t is (blank cell, h) and its probabilities are those of
its moves, p(offset | cell, move, h) (:func:`solver.cdp.conditionals`). epsilon_t is chosen
per type from a sample, never from the instances predicted: the cutoff among the type's own
probabilities (0 included) whose one-level prediction, the expected number of neighbours at
each change of h, is nearest in absolute error to what the sample shows (the least cutoff on
a tie), the error summed over *groups* of nodes of the type:

- ``states``: each sampled state a group of its own (the states the tables count: every
  state on the 8-puzzle; the uniform and tilted states of :mod:`solver.hdist`);
- ``trees``: the nodes of the type at one level of one real IDA* iteration, searched from
  uniform random start states (:func:`tree_groups`): a level of many such nodes asks for
  their mean, a level of one or two for a whole number, as a tree has.

A cutoff never empties a move: it stays below the largest probability of each. These
criteria are not claimed to be the papers' own procedure for choosing epsilon_t, only to
share its aim.
"""

from __future__ import annotations

import numpy as np

from .geometry import neighbours
from .hdist import legal_moves, moved, tally
from .search import heuristic_values

MOST_CHILDREN = 4


def child_counts(boards: np.ndarray, size: int, H, spread: int, top: int) -> np.ndarray:
    """``int64[n, top, 2 * spread + 1, MOST_CHILDREN + 1]``: the sampled states by blank cell,
    h, offset of a child's h and the number of their children (every legal move) at that
    offset. Offsets beyond ``spread`` and h beyond ``top - 1`` are clipped into the table."""
    n, width = size * size, 2 * spread + 1
    h = heuristic_values(boards, size, H)
    blank = np.argmax(boards == 0, axis=1)
    rows, m = legal_moves(blank, size)
    child_h = heuristic_values(moved(boards[rows], size, m), size, H)
    per_state = np.zeros((len(boards), width), dtype=np.int64)
    np.add.at(per_state, (rows, np.clip(child_h - h[rows] + spread, 0, width - 1)), 1)
    cells = np.repeat(blank, width)
    hs = np.repeat(np.minimum(h, top - 1), width)
    offsets = np.tile(np.arange(width), len(boards))
    return tally((n, top, width, MOST_CHILDREN + 1), (cells, hs, offsets, per_state.ravel()))


def _error(expected: np.ndarray, nodes: np.ndarray, children: np.ndarray) -> float:
    """Sum over groups and offsets of |nodes x expected - children| (``expected``: ``[W]``
    per node; ``nodes``: ``[G]``; ``children``: ``[G, W]``)."""
    return float(np.abs(nodes[:, None] * expected[None, :] - children).sum())


def type_epsilon(probabilities: np.ndarray, nodes: np.ndarray, children: np.ndarray) -> float:
    """epsilon of one type: ``probabilities`` ``[moves, W]`` (its legal moves' conditional
    distributions); ``nodes`` ``[G]`` and ``children`` ``[G, W]``: its sampled groups, each
    with its nodes and their neighbours at each offset. 0 when nothing was sampled."""
    if len(nodes) == 0 or len(probabilities) == 0:
        return 0.0
    ceiling = probabilities.max(axis=1).min()  # a cutoff at or above it would empty a move
    best, best_error = 0.0, _error(probabilities.sum(axis=0), nodes, children)
    for cut in np.unique(probabilities[(probabilities > 0) & (probabilities < ceiling)]):
        kept = np.where(probabilities > cut, probabilities, 0.0)
        error = _error((kept / kept.sum(axis=1, keepdims=True)).sum(axis=0), nodes, children)
        if error < best_error - 1e-9 * max(best_error, 1.0):
            best, best_error = float(cut), error
    return best


def state_groups(counts: np.ndarray):
    """:func:`child_counts` as groups of one state: per (cell, h), (nodes, children) arrays."""
    n, top, width, most = counts.shape
    out = {}
    for c, v in zip(*np.nonzero(counts.sum(axis=(2, 3)))):
        # [W, K]: states by offset and number of neighbours there; each column rebuilt on its own (the
        # error is a sum over offsets, so how the columns pair up does not matter)
        per = counts[c, v]
        states = int(per[0].sum())
        children = np.zeros((states, width))
        for j in range(width):
            children[:, j] = np.repeat(np.arange(most), per[j])
        out[c, v] = (np.ones(states), children)
    return out


def epsilons(one: np.ndarray, groups: dict) -> np.ndarray:
    """``float64[n, H]``: epsilon per (blank cell, h) from the one-step fractions ``one``
    (``[n, 4, H, W]``) and ``groups`` ({(cell, h): (nodes, children)}, :func:`state_groups`
    or :func:`tree_groups`); an h never sampled on a cell takes the nearest sampled h's."""
    n, _, top, _ = one.shape
    size = int(round(np.sqrt(n)))
    legal = neighbours(size) >= 0
    out = np.zeros((n, top))
    for c in range(n):
        seen = sorted(v for (cell, v) in groups if cell == c and v < top)
        for v in seen:
            out[c, v] = type_epsilon(one[c, legal[c], v], *groups[c, v])
        if seen:  # its table row is the nearest sampled h's (solver.cdp.conditionals), so is its epsilon
            seen = np.array(seen)
            out[c] = out[c, seen[np.abs(np.arange(top)[:, None] - seen[None, :]).argmin(axis=1)]]
    return out


def tree_groups(starts: np.ndarray, size: int, H, spread: int, slacks, step: int, most_nodes: int = 2_000_000):
    """{(cell, h): (nodes, children)}: the expanded nodes of each type at each level of the
    IDA* iterations with thresholds h(start) + step x slack (``slacks``) from each of
    ``starts``, searched for real level by level with parent pruning (a level above
    ``most_nodes`` nodes ends that iteration's sample), and their neighbours (every legal
    move) at each offset of h."""
    width = 2 * spread + 1
    rows = {}
    for start in starts:
        h0 = int(heuristic_values(start[None, :], size, H)[0])
        for slack in slacks:
            _sample_iteration(start, size, H, h0 + step * int(slack), spread, width, most_nodes, rows)
    return {key: (np.array([r[0] for r in got], dtype=np.float64), np.array([r[1] for r in got], dtype=np.float64))
            for key, got in rows.items()}


def _sample_iteration(start, size, H, bound, spread, width, most_nodes, rows) -> None:
    """Add the groups of one iteration (:func:`tree_groups`) to ``rows``."""
    boards, last = start[None, :].astype(np.int8), np.array([-1])
    h = heuristic_values(boards, size, H)
    for g in range(bound + 1):
        keep = h <= bound - g
        boards, last, h = boards[keep], last[keep], h[keep]
        if len(boards) == 0 or len(boards) > most_nodes:
            return
        blank = np.argmax(boards == 0, axis=1)
        r, m = legal_moves(blank, size)
        child_h = heuristic_values(moved(boards[r], size, m), size, H)
        offsets = np.clip(child_h - h[r] + spread, 0, width - 1)
        key = blank.astype(np.int64) * 10_000 + h
        types, inverse, nodes = np.unique(key, return_inverse=True, return_counts=True)
        children = np.zeros((len(types), width))
        np.add.at(children, (inverse[r], offsets), 1.0)
        for t, count, kids in zip(types, nodes, children):
            rows.setdefault((int(t // 10_000), int(t % 10_000)), []).append((float(count), kids))
        expand = m != (3 - last[r])  # parent pruning: not the move that undoes the last
        boards, last, h = moved(boards[r[expand]], size, m[expand]), m[expand], child_h[expand]


def truncate(one: np.ndarray, eps: np.ndarray) -> np.ndarray:
    """``one`` with each probability at or below its type's epsilon (``eps``: ``[n, H]``) set
    to 0 and each move's distribution renormalised."""
    kept = np.where(one > eps[:, None, :, None], one, 0.0)
    totals = kept.sum(axis=-1, keepdims=True)
    return np.where(totals > 0, kept / np.where(totals > 0, totals, 1.0), one)
