"""Effective branching factor."""

from __future__ import annotations


def effective_branching_factor(nodes: int, depth: int) -> float | None:
    """The b with ``1 + b + b^2 + ... + b^depth = nodes``; None for depth 0.

    Solved by bisection on the monotone polynomial; a perfect tree of branching 3 and
    depth 4 (121 nodes) gives exactly 3.0.
    """
    if depth <= 0 or nodes < 1:
        return None

    def tree(b: float) -> float:
        if abs(b - 1.0) > 1e-3:
            return (b ** (depth + 1) - 1.0) / (b - 1.0)
        total = 0.0
        for _ in range(depth + 1):  # Horner's rule: no cancellation near b = 1
            total = total * b + 1.0
        return total

    lo, hi = 0.0, float(nodes) ** (1.0 / depth) + 1e-9  # tree(b) >= b^depth
    for _ in range(200):
        mid = (lo + hi) / 2
        if tree(mid) < nodes:
            lo = mid
        else:
            hi = mid
        if hi - lo < 1e-12:
            break
    return round((lo + hi) / 2, 9)
