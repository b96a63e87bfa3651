"""Undo Dask's aggressive heap trimming in worker processes (glibc only).

Dask's nanny starts workers with ``MALLOC_TRIM_THRESHOLD_=65536`` so they hand freed
memory back to the OS quickly. Each solve allocates and frees some 100 KB of scratch
arrays, so with that setting every solve shrinks the heap and faults the pages back
in, which doubled the time of small solves (measured: 0.36 s vs 0.70 s for 2,000
8-puzzle solves). A worker raises the threshold again at start-up.
"""

from __future__ import annotations

import ctypes
import ctypes.util

M_TRIM_THRESHOLD = -1
TRIM_THRESHOLD = 64 << 20  # still return memory after a large (PDB-build) free


def relax_heap_trimming() -> bool:
    """Set glibc's trim threshold to 64 MiB; False where there is no glibc ``mallopt``."""
    name = ctypes.util.find_library("c")
    if name is None:
        return False
    try:
        mallopt = ctypes.CDLL(name).mallopt
    except (OSError, AttributeError):
        return False
    return bool(mallopt(M_TRIM_THRESHOLD, TRIM_THRESHOLD))
