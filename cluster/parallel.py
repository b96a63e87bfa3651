"""Parallel IDA* of one board on Dask: a split search whose chunks are tasks.

:func:`dask_runner` gives :func:`solver.solve.solve` (``split=``) a split search
(:mod:`solver.splitsearch`) whose chunks of subtree roots run as Dask tasks, one
iteration at a time. A task carries the chunk, the bound and the heuristic's name; the
worker builds the heuristic from tables its plugin mapped once (:class:`cluster.plugin.
SweepPlugin`). Before the first iteration every worker compiles (or loads) the kernels, so
``seconds`` holds search and Dask round trips, not compilation. When a task finds a goal,
the iteration's other tasks are cancelled unless the whole last iteration is asked for. A
task whose worker dies is run again elsewhere (its result is the same).
"""

from __future__ import annotations

from dataclasses import dataclass, replace

import numpy as np
import pyarrow as pa
from distributed import Client, as_completed, get_worker

from tilesweep.jobs.checkpoints import folder_checkpoints
from tilesweep.jobs.schema import normalise_row, rows_to_table
from tilesweep.jobs.work import ChunkJob, solve_one, stopped_rows, worker_label
from tilesweep.solver.fsm import automaton as fsm_automaton
from tilesweep.solver.heuristics import kernel_heuristic, parse_heuristic
from tilesweep.solver.limits import LIMIT_NODES
from tilesweep.solver.options import check_split_depth
from tilesweep.solver.splitsearch import split_runner
from tilesweep.solver.status import RUNNING
from tilesweep.solver.subtrees import Chunk, ChunkResult, subtrees_call, warmed

from .connect import ClusterError
from .plugin import SweepPlugin
from .run import check_workers_version, register
from .share import ensure_tables
from .tables import open_tables, pdb_heuristics, read_automaton, resolve

RETRIES = 2


@dataclass(frozen=True)
class SubtreeJob:
    """What a worker needs, besides a chunk, to search it: the search's names."""

    size: int
    goal: tuple[int, ...]
    heuristic: str
    fsm_depth: int  # 0: parent pruning
    plugin: str | None  # the worker plugin holding the tables, None without tables


def _search(job: SubtreeJob, worker):
    """The chunk search of ``job`` in ``worker``'s process."""
    tables = ()
    if job.plugin is not None:
        plugin = worker.plugins[job.plugin]
        plugin.prepare()
        tables = plugin.tables_for(job.heuristic)
    H = kernel_heuristic(parse_heuristic(job.heuristic, job.size, job.goal), job.size, job.goal, tables)
    fsm = fsm_automaton(job.size, job.fsm_depth) if job.fsm_depth else None
    return subtrees_call(job.size, job.goal, H, fsm)


# The limits arrays of the chunk searches running in this worker process, by task key:
# a kernel cannot be interrupted, but it reads its node budget every CHECK_EVERY nodes.
_RUNNING: dict[str, np.ndarray] = {}


def search_chunk(job: SubtreeJob, chunk: Chunk, bound: int, stop_at_goal: bool, limits) -> ChunkResult:
    """The task: one iteration below the roots of ``chunk`` (:func:`stop_chunks` stops it)."""
    worker = get_worker()
    key = worker.get_current_task()
    _RUNNING[key] = limits = limits.copy()
    try:
        return _search(job, worker)(chunk, bound, stop_at_goal, limits)
    finally:
        _RUNNING.pop(key, None)


async def stop_chunks(keys: list[str], dask_worker=None) -> None:
    """Stop the running chunk searches of ``keys`` in this worker, within a check of their
    limits (a millisecond or so): their node budget drops to 0. A coroutine, so the client
    need not wait for it (``client.run(..., wait=False)``)."""
    for key in keys:
        limits = _RUNNING.get(key)
        if limits is not None:
            limits[LIMIT_NODES] = 0


def warm(job: SubtreeJob, dask_worker=None) -> None:
    """Compile (or load) the chunk kernel in this worker."""
    warmed(_search(job, dask_worker), job.size, job.goal)


def dask_chunks(client: Client, job: SubtreeJob):
    """``run_chunks`` of :func:`solver.splitsearch.split_idastar`: one task per chunk, run in
    the chunks' order (Dask priorities). With ``stop_at_goal``, once a chunk meets a goal the
    later chunks are cancelled and the earlier ones awaited; a limit hit cancels the rest.
    ``on_chunk(result)`` hears of each chunk searched, as it comes in."""
    def run(chunks, bound, stop_at_goal, limits, on_chunk=None):
        futures = [client.submit(search_chunk, job, chunk, int(bound), stop_at_goal, limits, pure=False,
                                 retries=RETRIES, priority=len(chunks) - i) for i, chunk in enumerate(chunks)]
        place = {future.key: i for i, future in enumerate(futures)}
        results, needed = {}, len(chunks)  # the chunks before `needed` are awaited
        try:
            for future in as_completed(futures):
                i = place[future.key]
                if i >= needed:
                    continue
                result = results[i] = future.result()
                if result.status != RUNNING:
                    break
                if on_chunk is not None:
                    on_chunk(result)
                if stop_at_goal and result.solved >= 0:
                    needed = i + 1
                    later = [future.key for future in futures[needed:] if not future.done()]
                    client.cancel(futures[needed:])
                    client.run(stop_chunks, later, wait=False)
                if sum(j < needed for j in results) == needed:
                    break
        except Exception as err:  # noqa: BLE001 - a task's remote failure arrives as any type
            raise ClusterError(f"a parallel IDA* task failed on the cluster ({type(err).__name__}: {err})") from None
        finally:
            left = [future for future in futures if not future.done()]
            client.cancel(left)
            if left:  # the ones already running stop too, not to hold a core for a chunk
                client.run(stop_chunks, [future.key for future in left], wait=False)
        return [results[i] for i in sorted(results) if i < needed]
    return run


def worker_count(client: Client) -> int:
    return len(client.scheduler_info()["workers"])


def dask_runner(client: Client, store: str | None, split_depth: int, complete_last_iteration: bool = False,
                small_here: bool = True, checkpoints=None):
    """A ``split=`` runner for :func:`solver.solve.solve` on ``client``'s workers.

    ``store`` is the pattern-database store of a ``pdb:`` heuristic (its tables are built
    once if missing and copied to workers without them); the workers build the solve's
    heuristic from its name. ``small_here``: the first, small iterations run in this
    process (:func:`solver.splitsearch.split_idastar`). ``checkpoints``: where the search
    records its progress and resumes from (:func:`tilesweep.jobs.checkpoints.folder_checkpoints`)."""
    def run_chunks_for(size, goal, heuristic, H, automaton):
        check_workers_version(client)
        plugin = None
        if pdb_heuristics([heuristic], size, goal):
            root = resolve(store)
            shared = ensure_tables(client, root, [heuristic], size, goal, f"tilesweep-parallel-{size}-tables")
            plugin = f"tilesweep-parallel-{abs(hash((root, size, goal, heuristic))):x}"
            register(client, SweepPlugin(plugin, root, size, goal, (("idastar", heuristic),), shared.sources), plugin)
        job = SubtreeJob(size, tuple(goal), heuristic, 0 if automaton is None else automaton.depth, plugin)
        client.run(warm, job)
        return dask_chunks(client, job)

    return split_runner(run_chunks_for, worker_count(client), split_depth, complete_last_iteration, small_here,
                        checkpoints)


def solve_stopped_rows(client: Client, store: str | None, job: ChunkJob, table: pa.Table, on_row=None,
                       folder=None) -> pa.Table:
    """``table`` with each of its :func:`stopped_rows` solved again by parallel IDA* on
    ``client``'s workers (default split depth), the row exactly as the task would have made
    it without a node budget (counts and moves: the split search stops where serial IDA*
    does), but for ``seconds`` and ``cpu_seconds`` (the stopped attempt's and the parallel search's) and
    ``worker`` (``parallel:N@`` this process). ``on_row(index, heuristic)`` is told of each.
    With a sweep ``folder``, each search records its progress in its checkpoints and goes on
    from there when the sweep is run again (:mod:`tilesweep.jobs.checkpoints`)."""
    positions = stopped_rows(job, table)
    if not positions:
        return table
    root = resolve(store)
    _, tables = open_tables(root, [h for _, h in job.combos], job.size, job.goal)
    read_automaton(root, job.prune, job.size)
    depth = check_split_depth(None, job.size)
    label = f"parallel:{worker_count(client)}@{worker_label()}"
    instances = list(job.instances)
    rows = table.to_pylist()
    for i in positions:
        (index, tiles), (algorithm, heuristic) = instances[i // len(job.combos)], job.combos[i % len(job.combos)]
        if on_row is not None:
            on_row(index, heuristic)
        spent, spent_cpu = rows[i]["seconds"] or 0.0, rows[i]["cpu_seconds"] or 0.0
        left = None if job.time_limit is None else max(1e-3, job.time_limit - spent)
        left_cpu = None if job.cpu_time_limit is None else max(1e-3, job.cpu_time_limit - spent_cpu)
        checkpoints = None if folder is None else folder_checkpoints(
            folder, {"sweep": job.sweep, "instance": index, "algorithm": algorithm, "heuristic": heuristic})
        runner = dask_runner(client, store, depth, checkpoints=checkpoints)
        row = solve_one(replace(job, parallel_above=None, time_limit=left, cpu_time_limit=left_cpu), index, tiles,
                        algorithm, heuristic, lambda name: tables[name], split=runner)
        rows[i] = normalise_row(row) | {"seconds": spent + (row.get("seconds") or 0.0),
                                        "cpu_seconds": spent_cpu + (row.get("cpu_seconds") or 0.0),
                                        "worker": label, "time_limit": job.time_limit,
                                        "cpu_time_limit": job.cpu_time_limit}
    return rows_to_table(rows)
