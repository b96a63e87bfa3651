"""The rows of a chunk one :func:`~tilesweep.solver.solve.solve` at a time: the reference the
batch path (:func:`~tilesweep.jobs.work.solve_chunk_table`, what every task runs) is held to.
No task runs it."""

from __future__ import annotations

import tilesweep.jobs.work as work
from tilesweep.jobs.plugins import ensure as ensure_plugins
from tilesweep.jobs.schema import normalise_row


def solve_chunk(job: work.ChunkJob, tables_for=lambda name: (), memory_budget=lambda: None) -> list[dict]:
    """Rows of every (instance, algorithm, heuristic) of ``job``, instance-major, in spec order.

    ``memory_budget()`` gives the bytes a graph search may store when the job sets no
    ``max_memory`` (asked before each solve). ``work.solve_one`` is looked up at each call,
    so a test's wrapper of it (``tests/faults.py``) applies here too.
    """
    ensure_plugins(job.plugins)
    label = work.worker_label()
    rows = []
    for index, tiles in job.instances:
        for algorithm, heuristic in job.combos:
            budget = memory_budget() if job.max_memory is None and algorithm != "idastar" else None
            row = normalise_row(work.solve_one(job, index, tiles, algorithm, heuristic, tables_for, budget))
            row["worker"] = label
            rows.append(row)
    return rows
