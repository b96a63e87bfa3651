"""The one place JIT options are set, so every kernel compiles (and caches) alike.

Every numba kernel of the package is made by one of these decorators;
``tests/test_jit.py`` checks each compiled function of every module against
:data:`JIT_OPTIONS`.
"""

import numba

JIT_OPTIONS = dict(cache=True, nogil=True, boundscheck=False, error_model="numpy")


def kernel(func):
    """Compile ``func`` as a tilesweep numba kernel."""
    return numba.njit(**JIT_OPTIONS)(func)


def inline_kernel(func):
    """Compile a small helper that numba inlines into its callers.

    Inlining at numba's level spares each call the copying and reference counting of the
    heuristic's many arrays, which otherwise dominates the cost of a node.
    """
    return numba.njit(inline="always", **JIT_OPTIONS)(func)


def parallel_kernel(func):
    """Compile ``func`` as a tilesweep numba kernel that may use ``numba.prange``."""
    return numba.njit(parallel=True, **JIT_OPTIONS)(func)
