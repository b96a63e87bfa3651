"""The one place JIT options are set, so every kernel compiles (and caches) alike."""

import numba

JIT_OPTIONS = dict(cache=True, nogil=True, boundscheck=False, error_model="numpy")


def kernel(func):
    """Compile ``func`` as a tilesweep numba kernel."""
    return numba.njit(**JIT_OPTIONS)(func)
