"""CDP: IDA*'s nodes per iteration for one start state, from the conditional distribution of
a child's h given its parent's (Zahavi, Felner, Burch & Holte, "Predicting the performance
of IDA* using conditional distributions", JAIR 37, 2010).

The tree below the start is followed level by level as expected numbers of nodes of each
*type*: the node's kind in the brute-force tree (blank cell, last move, pruning state:
:mod:`solver.bruteforce`) and its h. A node at depth i with h <= d - i is expanded; each
of its children, by move m, gets h' with the probability sampled for (parent's blank
cell, m, parent's h) (:mod:`solver.hdist`). Nodes generated are the root and every
child of an expanded node. With ``two_step`` the type also carries the change of h across
the move that made the node, and the child's h is drawn given (parent's cell, that move,
that change, parent's h, m): the paper's deeper conditioning, which sees a heuristic's
move-to-move correlations (a tile moved away tends to be moved back).

Where a parent's h was never sampled on a cell and move, the change of h seen at the
nearest sampled h is used (:func:`conditionals`); where a two-step context was never
sampled, the one-step distribution.
"""

from __future__ import annotations

import numpy as np

from .bruteforce import NO_MOVE, Tree
from .hdist import legal_moves, moved
from .jit import kernel
from .search import heuristic_values


def _fill_nearest(counts: np.ndarray) -> np.ndarray:
    """Fractions over the last axis of ``counts`` (``[..., H, W]``); an h with no counts
    takes the fractions of the nearest h that has some (on the same leading indices)."""
    totals = counts.sum(axis=-1)
    flat = counts.reshape(-1, *counts.shape[-2:]).astype(np.float64)
    seen = totals.reshape(-1, counts.shape[-2]) > 0
    for row, ok in zip(flat, seen):
        if ok.any():
            have = np.flatnonzero(ok)
            nearest = have[np.abs(np.arange(len(ok))[:, None] - have[None, :]).argmin(axis=1)]
            row[:] = row[nearest] / row[nearest].sum(axis=1, keepdims=True)
    return flat.reshape(counts.shape)


def conditionals(step: np.ndarray, step2: np.ndarray) -> tuple[np.ndarray, np.ndarray, bool]:
    """(one-step fractions ``float64[n, 4, H, W]``, two-step fractions
    ``float64[n, 4, W, H, 4, W]`` with the one-step ones where a context has no sample,
    whether two steps are available) from the counts of :class:`~solver.hdist.Distributions`."""
    one = _fill_nearest(step)
    if step2.shape[0] == 0:
        return one, np.zeros((1, 4, 1, 1, 4, 1)), False
    two = step2.astype(np.float64)
    totals = two.sum(axis=-1, keepdims=True)
    fallback = np.broadcast_to(np.moveaxis(one, 2, 1)[:, None, None], two.shape)  # [n, 1, 1, H, 4, W]
    two = np.where(totals > 0, two / np.maximum(totals, 1), fallback)
    return one, np.ascontiguousarray(two), True


@kernel
def _cdp(cell, last, src, dst, now, depth0, bound, one, two, use_two, spread):
    """Nodes generated (float) below depth ``depth0`` by the IDA* iteration with threshold
    ``bound``, given ``now`` (``float64[K, W, bound + 1]``): the expected nodes at depth
    ``depth0`` by kind, offset of their h from their parent's, and h, those with h above
    ``bound - depth0`` left out. The tree's kinds ``cell``, ``last`` (``int64[K]``) and edges
    ``src``, ``dst`` (``int64[E]``); ``one``/``two``: :func:`conditionals`'s tables."""
    k = cell.shape[0]
    width = 2 * spread + 1
    top = one.shape[2] - 1
    generated = 0.0
    for depth in range(depth0, bound + 1):
        room = bound - depth  # a node at this depth with h <= room is expanded
        nxt = np.zeros((k, width, bound + 1))
        for e in range(src.shape[0]):
            a, b = src[e], dst[e]
            c, m = cell[a], last[b]
            for jp in range(width):
                for v in range(room + 1):
                    mass = now[a, jp, v]
                    if mass == 0.0:
                        continue
                    hv = min(v, top)
                    for j in range(width):
                        if use_two and last[a] < 4:
                            p = two[c, last[a], jp, hv, m, j]
                        else:
                            p = one[c, m, hv, j]
                        if p == 0.0:
                            continue
                        generated += mass * p
                        v2 = max(v + j - spread, 0)
                        if v2 <= room - 1:
                            nxt[b, j, v2] += mass * p
        now = nxt
    return generated


def real_start(tiles, size: int, H, t: Tree, bound: int, depth: int, spread: int) -> tuple[float, np.ndarray]:
    """(nodes generated down to ``depth``, the expected-nodes array :func:`_cdp` continues
    from) of the IDA* iteration with threshold ``bound`` from ``tiles``, searched for real
    down to ``depth`` (all its nodes at once, level by level, h by the batch kernels): the
    prediction starts from the actual nodes there (Zahavi et al.'s start at level r)."""
    boards = np.asarray(tiles, dtype=np.int8)[None, :]
    last = np.array([NO_MOVE])
    h = heuristic_values(boards, size, H)
    offset = np.zeros(1, dtype=np.int64)
    generated = 1.0
    for g in range(depth):
        keep = h <= bound - g
        boards, last, h = boards[keep], last[keep], h[keep]
        blank = np.argmax(boards == 0, axis=1)
        rows, moves = legal_moves(blank, size, last)
        boards = moved(boards[rows], size, moves)
        child_h = heuristic_values(boards, size, H) if len(boards) else np.zeros(0, dtype=np.int64)
        offset, h, last = child_h - h[rows], child_h, moves
        generated += len(boards)
    now = np.zeros((len(t.cell), 2 * spread + 1, bound + 1))
    keep = h <= bound - depth
    kinds = t.kind_index()[np.argmax(boards[keep] == 0, axis=1), last[keep]]
    np.add.at(now, (kinds, np.clip(offset[keep] + spread, 0, 2 * spread), h[keep]), 1.0)
    return generated, now


def cdp(tree: Tree, tiles, size: int, H, one: np.ndarray, two: np.ndarray, use_two: bool, spread: int,
        bounds, depth: int = 0) -> np.ndarray:
    """``float64[len(bounds)]``: nodes generated (the root included) predicted for the
    iterations with thresholds ``bounds`` from start ``tiles`` (its blank the root of
    ``tree``; ``H`` its heuristic), the first ``depth`` levels searched for real."""
    out = []
    for d in bounds:
        real, now = real_start(tiles, size, H, tree, int(d), min(depth, int(d)), spread)
        out.append(real + _cdp(tree.cell, tree.last, tree.src, tree.dst, now, min(depth, int(d)), int(d), one, two,
                               bool(use_two), int(spread)))
    return np.array(out)
