"""Effective branching factor."""

from __future__ import annotations

import numpy as np

from .jit import kernel

DIGITS = 9  # an EBF is kept to this many decimal places


@kernel
def _tree_size(b, depth):
    """``1 + b + ... + b^depth``; Horner's rule near b = 1, where the closed form cancels."""
    if abs(b - 1.0) > 1e-3:
        return (b ** (depth + 1) - 1.0) / (b - 1.0)
    total = 0.0
    for _ in range(depth + 1):
        total = total * b + 1.0
    return total


@kernel
def _bisect(nodes, depth):
    lo, hi = 0.0, nodes ** (1.0 / depth) + 1e-9  # tree(b) >= b^depth
    for _ in range(200):
        mid = (lo + hi) / 2
        if _tree_size(mid, depth) < nodes:
            lo = mid
        else:
            hi = mid
        if hi - lo < 1e-12:
            break
    return (lo + hi) / 2


def effective_branching_factor(nodes: int, depth: int) -> float | None:
    """The b with ``1 + b + b^2 + ... + b^depth = nodes``; None for depth 0.

    Solved by bisection on the monotone polynomial (compiled: a sweep computes one per
    row); a perfect tree of branching 3 and depth 4 (121 nodes) gives exactly 3.0.
    """
    if depth <= 0 or nodes < 1:
        return None
    return round(float(_bisect(float(nodes), int(depth))), DIGITS)


def round_digits(values: np.ndarray) -> np.ndarray:
    """``round(v, DIGITS)`` of each value, exactly as Python rounds, for a whole array.

    ``rint(v * 10**DIGITS) / 10**DIGITS`` is the same double whenever the scaled value is
    not within its rounding error of a half (the division is correctly rounded, as is
    Python's decimal conversion); the few that are go through Python's ``round``.
    """
    scaled = values * 10.0 ** DIGITS
    out = np.rint(scaled) / 10.0 ** DIGITS
    near_half = np.flatnonzero(np.abs(scaled - np.floor(scaled) - 0.5) < 1e-5)
    for i in near_half:
        out[i] = round(float(values[i]), DIGITS)
    return out
