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

from dataclasses import dataclass

from distributed import Client, as_completed, get_worker

from tilesweep.solver.fsm import automaton as fsm_automaton
from tilesweep.solver.heuristics import kernel_heuristic, parse_heuristic
from tilesweep.solver.splitsearch import split_runner
from tilesweep.solver.status import RUNNING
from tilesweep.solver.subtrees import Chunk, ChunkResult, subtrees_call, warmed

from .connect import ClusterError
from .plugin import SweepPlugin
from .run import check_workers_version, register
from .share import ensure_tables
from .tables import pdb_heuristics, resolve

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


def search_chunk(job: SubtreeJob, chunk: Chunk, bound: int, stop_at_goal: bool, limits) -> ChunkResult:
    """The task: one iteration below the roots of ``chunk``."""
    return _search(job, get_worker())(chunk, bound, stop_at_goal, limits)


def warm(job: SubtreeJob, dask_worker=None) -> None:
    """Compile (or load) the chunk kernel in this worker."""
    warmed(_search(job, dask_worker), job.size, job.goal)


def dask_chunks(client: Client, job: SubtreeJob):
    """``run_chunks`` of :func:`solver.splitsearch.split_idastar`: one task per chunk;
    after a goal (or a limit) the iteration's other tasks are cancelled if ``stop_at_goal``."""
    def run(chunks, bound, stop_at_goal, limits):
        futures = [client.submit(search_chunk, job, chunk, int(bound), stop_at_goal, limits, pure=False,
                                 retries=RETRIES) for chunk in chunks]
        results = []
        try:
            for future in as_completed(futures):
                results.append(future.result())
                if results[-1].status != RUNNING or stop_at_goal and results[-1].solved >= 0:
                    break
        except Exception as err:  # noqa: BLE001 - a task's remote failure arrives as any type
            raise ClusterError(f"a parallel IDA* task failed on the cluster ({type(err).__name__}: {err})") from None
        finally:
            client.cancel(futures)
        return results
    return run


def worker_count(client: Client) -> int:
    return len(client.scheduler_info()["workers"])


def dask_runner(client: Client, store: str | None, split_depth: int, complete_last_iteration: bool = False,
                small_here: bool = True):
    """A ``split=`` runner for :func:`solver.solve.solve` on ``client``'s workers.

    ``store`` is the pattern-database store of a ``pdb:`` heuristic (its tables are built
    once if missing and copied to workers without them); the workers build the solve's
    heuristic from its name. ``small_here``: the first, small iterations run in this
    process (:func:`solver.splitsearch.split_idastar`)."""
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

    return split_runner(run_chunks_for, worker_count(client), split_depth, complete_last_iteration, small_here)
