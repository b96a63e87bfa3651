"""IDA*'s iteration loop, written once for the contour kernels, and the limits it works in.

:func:`deepening` turns a kernel's contour (one depth-first pass below the start under a
bound) into the whole search: bounds from h of the start upwards, each the least f that
the previous contour cut off, the root counted once (not once per iteration), and the
nodes generated in each iteration recorded on every exit, whatever stopped the search.
The loop is generated per contour and inlined (numba's ``inline="always"``), so each
kernel compiles one loop around its own contour with no call or argument passing per
iteration. The per-tile kernel (:func:`solver.idastar_tiles._idastar_tiles_in`) keeps a copy of
this loop, which measured faster around its contour; ``tests/test_deepening.py`` holds every
kernel to the same accounting.
"""

import numpy as np

from .jit import inline_kernel, kernel
from .limits import start_counts
from .status import RUNNING, TOO_MANY_ITERATIONS

MAX_DEPTH = 256  # deeper than any optimal solution up to 5x5 (at most 208 moves)
MAX_ITERATIONS = 1024
NO_BOUND = 1 << 40  # the next bound when no child was cut off


@kernel
def outputs():
    """Fresh output arrays: path, bounds and nodes per iteration."""
    return (np.zeros(MAX_DEPTH, dtype=np.int8), np.zeros(MAX_ITERATIONS, dtype=np.int64),
            np.zeros(MAX_ITERATIONS, dtype=np.int64))


def deepening(contour):
    """The IDA* search around ``contour``, an inline kernel
    ``deepen(ctx, h0, limits, path, bounds, iter_nodes)``.

    ``contour(ctx, bound, generated, expanded, check_at, limits, deadline)`` searches below
    the start with ``bound`` (``ctx``: whatever the contour needs, one tuple) and returns
    ``(status, generated, expanded, next_bound, cost, check_at)``: RUNNING when it searched
    its whole tree, else SOLVED (the moves in ``path[:cost]``) or what stopped it; the
    counters carried on; ``next_bound`` the least f of a cut-off child (NO_BOUND: none).

    ``deepen`` returns what every IDA* kernel returns: ``status, path, cost, generated,
    expanded, bounds, iter_nodes, n_iter, h0`` (bound and nodes generated of iteration
    ``i`` in ``bounds[i]``, ``iter_nodes[i]`` for ``i < n_iter``; they sum to ``generated``).
    """

    @inline_kernel
    def deepen(ctx, h0, limits, path, bounds, iter_nodes):
        generated, expanded, deadline, check_at = start_counts(limits)
        bound = h0
        n_iter = 0
        while n_iter < MAX_ITERATIONS:
            start_generated = generated - 1 if n_iter == 0 else generated
            bounds[n_iter] = bound
            n_iter += 1
            expanded += 1
            status, generated, expanded, next_bound, cost, check_at = contour(
                ctx, bound, generated, expanded, check_at, limits, deadline)
            iter_nodes[n_iter - 1] = generated - start_generated
            if status != RUNNING:
                return status, path, cost, generated, expanded, bounds, iter_nodes, n_iter, h0
            bound = next_bound
        return TOO_MANY_ITERATIONS, path, 0, generated, expanded, bounds, iter_nodes, n_iter, h0

    return deepen
