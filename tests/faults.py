"""Solves that raise on purpose, for the fault tests; the library knows nothing of them.

``$TILESWEEP_FAULT_INSTANCES`` lists ``SWEEP:INDEX`` items separated by commas: the solves
of those instances raise ``RuntimeError("injected fault on instance INDEX")`` inside the
task, where a real failure of the search would raise, so what the tests see (an ``error``
row, the sweep going on) is the library's own handling of a solve that raises.

Two ways in:

* a Dask worker process: ``dask worker ADDRESS --preload tests/faults.py`` (or
  ``$DASK_DISTRIBUTED__WORKER__PRELOAD``); :func:`dask_setup` installs the faults the
  worker's environment lists;
* one process (local sweeps, direct calls): :func:`install` with pytest's
  ``monkeypatch.setattr``, undone after the test.

The hook wraps three names of :mod:`tilesweep.jobs.work`, which its functions look up at
call time: ``solve_one`` (marks a listed instance's solve), ``solve`` (raises for a marked
solve) and ``_batch_table`` (a batch holding a listed instance raises as a whole, so its
boards go one by one through ``solve_one``, the library's path for a batch that raised).
"""

from __future__ import annotations

import contextvars
import os

import tilesweep.jobs.work as work

ENV = "TILESWEEP_FAULT_INSTANCES"

# The listed instance whose solve runs now in this thread, if any (a worker's threads
# each run their own task).
_FAILING: contextvars.ContextVar[int | None] = contextvars.ContextVar("failing", default=None)


def listed(text: str) -> frozenset[tuple[str, int]]:
    """The (sweep, index) pairs of ``SWEEP:INDEX,...``."""
    pairs = [item.rpartition(":") for item in text.replace(",", " ").split()]
    return frozenset((name, int(index)) for name, _, index in pairs if index.isdigit())


def wrappers(faults: frozenset[tuple[str, int]]) -> dict:
    """Replacements of :mod:`tilesweep.jobs.work`'s names that raise on ``faults``."""
    solve_one, solve, batch_table = work.solve_one, work.solve, work._batch_table

    def marked_solve_one(job, index, *args, **kwargs):
        token = _FAILING.set(index if (job.sweep, index) in faults else None)
        try:
            return solve_one(job, index, *args, **kwargs)
        finally:
            _FAILING.reset(token)

    def raising_solve(*args, **kwargs):
        index = _FAILING.get()
        if index is not None:
            raise RuntimeError(f"injected fault on instance {index} (${ENV})")
        return solve(*args, **kwargs)

    def raising_batch_table(job, algorithm, heuristic, tables_for, budget, indices, *args):
        hit = [int(i) for i in indices if (job.sweep, int(i)) in faults]
        if hit:
            raise RuntimeError(f"injected fault on instances {hit} of a batch (${ENV})")
        return batch_table(job, algorithm, heuristic, tables_for, budget, indices, *args)

    return {"solve_one": marked_solve_one, "solve": raising_solve, "_batch_table": raising_batch_table}


def install(faults: frozenset[tuple[str, int]], setattr=setattr) -> None:
    """Make the solves of ``faults`` raise in this process (``setattr``: pytest's
    ``monkeypatch.setattr`` to undo it after a test)."""
    for name, wrapper in wrappers(faults).items():
        setattr(work, name, wrapper)


def dask_setup(worker) -> None:
    """The preload's entry: the faults of the worker's ``$TILESWEEP_FAULT_INSTANCES``."""
    install(listed(os.environ.get(ENV, "")))
