"""Solving one chunk of a sweep: the pure function every Dask task (and the local loop) runs.

No Dask here. :func:`solve_chunk_table` is what a task runs: it takes plain data (a
:class:`ChunkJob`) and a ``tables_for(heuristic_name)`` callback that returns a ``pdb:``
heuristic's tables (the worker plugin keeps them memory-mapped once per process), and
solves the chunk's boards in batches; :func:`solve_one` solves one board where a batch
cannot (and for the checks that solve a recorded row again).
"""

from __future__ import annotations

import os
import socket
import statistics
from dataclasses import dataclass, replace

import numpy as np
import pyarrow as pa

from tilesweep.solver.batch import FIGURES, kernel_boards, solve_boards, tiles_texts
from tilesweep.solver.board import Board, goal_label
from tilesweep.solver.heuristics import NO_HEURISTIC, search_heuristic
from tilesweep.solver.plugins import PREFIX as PLUGIN_PREFIX, negative_message
from tilesweep.solver.solve import solve

from .instances import InstanceRange, file_boards
from .plugins import ensure as ensure_plugins
from .schema import RESULT_SCHEMA, columns_to_table, normalise_row, rows_to_table
from .spec import SweepSpec


@dataclass(frozen=True)
class ChunkJob:
    """Everything one task needs; small and picklable (tiles, names; never tables)."""

    sweep: str
    chunk: int
    size: int
    goal: tuple[int, ...]
    combos: tuple[tuple[str, str], ...]
    max_nodes: int | None
    # (index, tiles) pairs: an InstanceRange for seeded sources, made where it is solved
    instances: InstanceRange | tuple[tuple[int, tuple[int, ...]], ...]
    time_limit: float | None = None
    max_memory: int | None = None
    prune: str = "parent"
    # IDA* rows stop at this many nodes, to be solved again by parallel IDA* (a run
    # setting, ``--parallel-above``: the rows come out the same, cluster.parallel)
    parallel_above: int | None = None
    # (name, sha256, source, file) of the plugin heuristics of the sweep, registered
    # where the task runs (a worker need not see the files)
    plugins: tuple = ()
    cpu_time_limit: float | None = None
    repeat: int = 1  # times each solved row is timed (:func:`retime`)
    conventions: str = "korf"  # what the searches do and count (solver.conventions)


def node_budget(job: ChunkJob, algorithm: str) -> int | None:
    """The node budget a row runs under in its task: the spec's, or for IDA* the smaller
    ``parallel_above`` (the row's ``max_nodes`` column still records the spec's)."""
    if algorithm != "idastar" or job.parallel_above is None:
        return job.max_nodes
    return min(job.parallel_above, job.max_nodes or job.parallel_above)


def stopped_rows(job: ChunkJob, table: pa.Table) -> list[int]:
    """Positions in ``table`` (``job``'s rows) of the IDA* rows that ``job.parallel_above``,
    not the spec's node budget, stopped."""
    if job.parallel_above is None or node_budget(job, "idastar") == job.max_nodes:
        return []
    rows = table.select(["algorithm", "status"]).to_pylist()
    return [i for i, row in enumerate(rows) if row["algorithm"] == "idastar" and row["status"] == "budget_exceeded"]


def chunk_jobs(spec: SweepSpec) -> list[ChunkJob]:
    """Split the instances into ``spec.chunk_size`` runs of consecutive indices.

    A seeded source's chunk carries its index range only (O(chunks), whatever the count);
    a file's boards are read here and travel with the task (a worker may not see the file).
    """
    boards = None if spec.instances.seeded else file_boards(spec)
    jobs = []
    for chunk in range(spec.n_chunks):
        lo, hi = chunk * spec.chunk_size, min(spec.count, (chunk + 1) * spec.chunk_size)
        if boards is None:
            instances = InstanceRange(spec.instances, spec.seed, spec.size, spec.goal_tuple, lo, hi)
        else:
            instances = tuple((i, boards[i]) for i in range(lo, hi))
        jobs.append(ChunkJob(spec.name, chunk, spec.size, spec.goal_tuple, spec.combos,
                             spec.max_nodes, instances, spec.time_limit, spec.max_memory, spec.prune,
                             plugins=spec.plugins, cpu_time_limit=spec.cpu_time_limit, repeat=spec.repeat,
                             conventions=spec.conventions))
    return jobs


def worker_label() -> str:
    """``host:pid`` of this process: the ``worker`` column, in a Dask worker and in-process alike."""
    return f"{socket.gethostname()}:{os.getpid()}"


def error_row(base: dict, algorithm: str, heuristic: str, reason: str, message: str) -> dict:
    """A row with status ``error``: ``reason`` a token of :data:`solver.status.REASONS`."""
    return {**base, "algorithm": algorithm, "heuristic": heuristic, "status": "error",
            "status_reason": reason, "error": message, "nodes_generated": 0, "nodes_expanded": 0}


def solve_one(job: ChunkJob, index: int, tiles: tuple[int, ...], algorithm: str, heuristic: str,
              tables_for, max_memory: int | None = None, split=None) -> dict:
    """One result row; a solve that raises becomes a row with status ``error``. ``split``:
    IDA* by split search (:func:`solver.solve.solve`)."""
    board = Board(tiles, job.size)
    base = {"sweep": job.sweep, "instance": index, "size": job.size, "tiles": board.text()}
    spec = search_heuristic(heuristic, job.size, job.goal)
    tables = tables_for(heuristic) if spec.is_pdb else ()
    try:
        row = solve(board, job.goal, algorithm, spec, tables, node_budget(job, algorithm), job.time_limit,
                    job.max_memory or max_memory, job.prune, split, job.cpu_time_limit, job.conventions).to_dict()
        row["max_nodes"] = job.max_nodes
        if row["status_reason"] == "heuristic":  # the search stopped at a plugin's negative h
            row["error"] = negative_message(heuristic)
    # The task boundary: a solve that raises, whatever the cause, becomes its row's
    # status error (the message kept), and the chunk goes on; a sweep never dies of one board.
    except Exception as err:  # noqa: BLE001
        row = error_row(base, algorithm, heuristic, "exception", f"{type(err).__name__}: {err}")
    row.update(base)
    row["goal"] = goal_label(job.goal)
    row["pruning"] = job.prune
    row["conventions"] = job.conventions
    row["heuristic_version"] = None if heuristic == NO_HEURISTIC else spec.heuristic_version
    return row


def _boards(job: ChunkJob) -> tuple[np.ndarray, np.ndarray]:
    """(instance indices, ``int8[k, N]`` boards) of ``job``."""
    if isinstance(job.instances, InstanceRange):
        return np.arange(job.instances.lo, job.instances.hi), job.instances.boards()
    pairs = list(job.instances)
    return (np.array([i for i, _ in pairs], dtype=np.int64),
            np.array([t for _, t in pairs], dtype=np.int8).reshape(len(pairs), job.size * job.size))


def _batch_table(job, algorithm, heuristic, tables_for, budget, indices, boards, texts, label) -> pa.Table:
    """The rows of one (algorithm, heuristic) on ``boards``, solved by :func:`solve_boards`."""
    spec = search_heuristic(heuristic, job.size, job.goal)
    tables = tables_for(heuristic) if spec.is_pdb else ()
    cols = solve_boards(boards, job.size, job.goal, algorithm, spec, tables, node_budget(job, algorithm),
                        job.time_limit, job.max_memory or budget, job.prune, job.cpu_time_limit, job.conventions)
    k = len(indices)
    columns = {name: getattr(cols, name) for name in FIGURES}
    # max_nodes is the job's, as solve_one writes it: the request's may be the parallel cut-off
    constants = {**cols.request.as_dict(), "sweep": job.sweep, "size": job.size, "goal": goal_label(job.goal),
                 "algorithm": algorithm, "max_nodes": job.max_nodes, "worker": label}
    columns.update({name: pa.repeat(pa.scalar(value, RESULT_SCHEMA.field(name).type), k)
                    for name, value in constants.items()})
    return columns_to_table({**columns, "instance": pa.array(indices, pa.int64()), "tiles": texts})


def solve_chunk_table(job: ChunkJob, tables_for=lambda name: (), memory_budget=lambda: None) -> pa.Table:
    """Rows of every (instance, algorithm, heuristic) of ``job``, instance-major, in spec order,
    as an Arrow table (a ``repeat`` job's solved rows timed again, :func:`retime`).

    ``memory_budget()`` gives the bytes a graph search may store when the job sets no
    ``max_memory`` (what is free changes as a worker runs).
    """
    table = _solve_chunk_once(job, tables_for, memory_budget)
    if job.repeat == 1:
        return table
    return retime(job, table, lambda again: _solve_chunk_once(again, tables_for, memory_budget))


def _solve_chunk_once(job: ChunkJob, tables_for, memory_budget) -> pa.Table:
    """Every row of ``job``, each solve timed once.

    Each (algorithm, heuristic) solves the chunk's boards in one :func:`solve_boards` call,
    so no Python runs per solve beyond the kernel call; boards the kernels do not take
    (unsolvable, already the goal) and every board of a batch that raised go through
    :func:`solve_one`. ``memory_budget()`` is asked once per (algorithm, heuristic).
    """
    ensure_plugins(job.plugins)
    label = worker_label()
    indices, boards = _boards(job)
    texts = tiles_texts(boards)
    in_batch = kernel_boards(boards, job.goal, job.size)
    pieces, order = [], []
    for c, (algorithm, heuristic) in enumerate(job.combos):
        budget = memory_budget() if job.max_memory is None and algorithm != "idastar" else None
        # a plugin heuristic runs in its own kernels, board by board
        chosen = np.flatnonzero(in_batch) if PLUGIN_PREFIX not in heuristic else np.zeros(0, np.int64)
        everyone = len(chosen) == len(indices)  # the usual case: no copy of the text column
        try:
            pieces.append(_batch_table(job, algorithm, heuristic, tables_for, budget, indices[chosen],
                                       boards[chosen], texts if everyone else texts.take(chosen), label))
        # The same boundary for a whole batch: which board raised is unknown, so
        # each is solved again on its own by solve_one, where one that raises becomes an error row.
        except Exception:  # noqa: BLE001
            chosen = np.zeros(0, dtype=np.int64)
        order.append(chosen * len(job.combos) + c)
        if len(chosen) == len(indices):
            continue
        rest = np.setdiff1d(np.arange(len(indices)), chosen)
        rows = [normalise_row(solve_one(job, int(indices[i]), tuple(boards[i].tolist()), algorithm, heuristic,
                                        tables_for, budget)) | {"worker": label} for i in rest]
        pieces.append(rows_to_table(rows))
        order.append(rest * len(job.combos) + c)
    table = pa.concat_tables(pieces)
    if len(pieces) == 1:  # one configuration whose batch took every board: the rows are in order
        return table
    return table.take(np.argsort(np.concatenate(order), kind="stable"))


# What every timing of a solve must reproduce (the kernels are deterministic)
AGREEING = ("status", "cost", "moves", "nodes_generated", "nodes_expanded")
# What an error row of disagreeing timings keeps: which solve it is, and under what limits
IDENTIFYING = ("sweep", "instance", "size", "goal", "tiles", "worker", "max_nodes", "time_limit", "max_memory",
               "pruning", "heuristic_version", "cpu_time_limit", "conventions")


def retime(job: ChunkJob, table: pa.Table, solve_again) -> pa.Table:
    """``table`` (``job``'s rows, timed once) with each solved row timed ``job.repeat`` times
    in all: ``solve_again(job)`` solves a job of the solved boards of one configuration again
    (``job.repeat - 1`` times, each pass over every such board, so a burst of load on the
    machine falls on one timing of a solve rather than all). Rows that did not solve are
    timed once: under a limit their node counts depend on the clock."""
    rows = table.to_pylist()
    instances = list(job.instances)
    per = len(job.combos)
    for c, combo in enumerate(job.combos):
        positions = [i for i in range(c, len(rows), per) if rows[i]["status"] == "solved"]
        if not positions:
            continue
        again = replace(job, combos=(combo,), instances=tuple(instances[i // per] for i in positions), repeat=1)
        passes = [solve_again(again).to_pylist() for _ in range(job.repeat - 1)]
        for k, i in enumerate(positions):
            rows[i] = timed_row(rows[i], [p[k] for p in passes])
    return rows_to_table(rows)


def timed_row(first: dict, others: list[dict]) -> dict:
    """One row of a solve timed ``1 + len(others)`` times: ``first`` with the min and median
    of its wall and CPU seconds (``seconds`` and ``cpu_seconds`` the medians), or, where the
    timings disagree on any of :data:`AGREEING`, an ``error`` row (reason ``repeat``) that
    lists every timing's values of the columns that differ."""
    timings = [first, *others]
    differ = [name for name in AGREEING if len({t[name] for t in timings}) > 1]
    if differ:
        listed = "; ".join(f"{name} " + ", ".join(str(t[name]) for t in timings) for name in differ)
        message = (f"{len(timings)} timings of this solve disagree ({listed}); expected the same "
                   f"{', '.join(AGREEING)} each time")
        base = {name: first[name] for name in IDENTIFYING}
        row = error_row(base, first["algorithm"], first["heuristic"], "repeat", message)
        return normalise_row(row) | {"timings": len(timings)}
    out = dict(first, timings=len(timings))
    for column in ("seconds", "cpu_seconds"):
        values = [t[column] for t in timings]
        if any(v is None for v in values):  # unknown on one timing: no statistic of them
            continue
        out[column] = out[f"{column}_median"] = statistics.median(values)
        out[f"{column}_min"] = min(values)
    return out
