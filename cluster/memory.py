"""How much memory a graph search may fill with boards, from the limit its process runs under.

The limit is the Dask worker's memory limit inside a worker, else the cgroup's (a
container or a systemd slice), else the machine's physical memory. A search may fill
:data:`FILL_FRACTION` of it, less what the process already holds (interpreter, Dask,
the mapped tables it has touched): Dask's nanny pauses a worker at 80 % of its limit
and restarts it at 95 %, so a search that stops at 75 % ends as ``budget_exceeded``
(reason ``memory``) before anything kills it.
"""

from __future__ import annotations

import os
from pathlib import Path

import psutil

NO_BUDGET_ENV = "TILESWEEP_NO_MEMORY_BUDGET"
FILL_FRACTION = 0.75
MIN_BUDGET = 1 << 20
CGROUP_FILES = ("/sys/fs/cgroup/memory.max", "/sys/fs/cgroup/memory/memory.limit_in_bytes")


def cgroup_limit() -> int | None:
    """The memory limit of this process's cgroup (v2 or v1), or None when unlimited."""
    for name in CGROUP_FILES:
        try:
            text = Path(name).read_text().strip()
        except OSError:
            continue
        if text.isdigit() and int(text) < psutil.virtual_memory().total:
            return int(text)
        return None
    return None


def dask_worker_limit() -> int | None:
    """The memory limit of the Dask worker running this code, or None (not in a worker, or none)."""
    try:
        from distributed import get_worker
        limit = get_worker().memory_manager.memory_limit
    except (ImportError, ValueError, AttributeError):
        return None
    return int(limit) if limit else None


def memory_limit() -> int:
    """The limit this process runs under: Dask worker, cgroup, or physical memory."""
    return dask_worker_limit() or cgroup_limit() or psutil.virtual_memory().total


def default_budget(limit: int | None = None) -> int | None:
    """Bytes a search may still fill under ``limit`` (default :func:`memory_limit`); None
    when ``$TILESWEEP_NO_MEMORY_BUDGET`` is set (a test switch: searches may outgrow it)."""
    if os.environ.get(NO_BUDGET_ENV):
        return None
    limit = memory_limit() if limit is None else limit
    in_use = psutil.Process().memory_info().rss
    return max(MIN_BUDGET, int(limit * FILL_FRACTION) - in_use)
