"""Running a sweep's pending chunks on Dask and writing each part as it arrives.

One task per chunk, keyed ``{name}-{fingerprint[:8]}-chunk-{i}`` (stable across reruns),
with ``retries=2``. A worker that dies costs its running tasks a restart elsewhere, never
rows: a part is written only from a finished task's result, once, by this client. A task
that kills every worker it runs on (Dask's ``KilledWorker``: ``allowed-failures`` + 1
deaths) is split into one task per solve, so one poison instance costs one ``error`` row
and the sweep finishes.
"""

from __future__ import annotations

import time
from concurrent.futures import CancelledError
from dataclasses import dataclass, field, replace
from typing import TYPE_CHECKING

import pyarrow as pa
from distributed import Client, as_completed, get_worker
from distributed.comm import CommClosedError
from distributed.scheduler import KilledWorker

import tilesweep
from tilesweep.jobs.parts import write_part
from tilesweep.jobs.plugins import ensure as ensure_plugins
from tilesweep.jobs.schema import normalise_row, rows_to_table
from tilesweep.jobs.work import ChunkJob, error_row, solve_chunk_table, stopped_rows
from tilesweep.pdb_store import BuildProgress
from tilesweep.solver.board import Board, goal_label
from tilesweep.solver.errors import TilesweepError

from .compiling import KERNELS_TOPIC, reported_compiles
from .connect import ClusterError
from .memory import default_budget
from .plugin import SweepPlugin, VersionMismatchError, VersionPlugin
from .share import ensure_tables
from .tables import BUILD_TOPIC, pdb_heuristics, resolve
from .watch import WORKER_WAIT_SECONDS, WorkerWatch, wait_for_workers

if TYPE_CHECKING:  # the plan's module imports the summary's pandas and DuckDB, which workers never need
    from tilesweep.jobs.sweep import Plan

RETRIES = 2
TASK_SECONDS = "tilesweep.task_seconds"


@dataclass
class Progress:
    """What the progress callback receives after each part.

    The pace is measured on the tasks alone (``measured_solves`` in ``measured_seconds`` of
    task time, :func:`run_chunk`), never on the wall clock since the start, which holds
    the workers' start, their tables and, on a first run, compiling the kernels.
    """

    chunks_done: int
    chunks_total: int
    solves_done: int
    solves_total: int
    solves_new: int
    elapsed: float
    measured_solves: int = 0
    measured_seconds: float = 0.0
    workers: int = 1  # tasks that run at once

    @property
    def rate(self) -> float | None:
        """Solves a second at the measured pace, all workers together; None before a measure."""
        if not self.measured_solves or self.measured_seconds <= 0:
            return None
        return self.measured_solves / self.measured_seconds * self.workers

    @property
    def eta(self) -> float | None:
        """Seconds left at the measured pace (the chunks left share the workers); None before
        a measure."""
        if self.rate is None:
            return None
        chunks_left = self.chunks_total - self.chunks_done
        at_once = max(1, min(self.workers, chunks_left))
        return (self.solves_total - self.solves_done) / (self.rate / self.workers * at_once)


def chunk_key(plan: Plan, chunk: int) -> str:
    return f"{plan.spec.name}-{plan.spec.fingerprint()[:8]}-chunk-{chunk:05d}"


def plugin_name(plan: Plan) -> str:
    return f"tilesweep-{plan.spec.fingerprint()[:16]}"


def run_chunk(job: ChunkJob, plugin: str) -> pa.Table:
    """The task: solve one chunk with the worker's mapped tables.

    The rows travel as an Arrow table, built here: it pickles as a few column buffers,
    where a list of row dicts cost the worker and this client ~50 us of serialisation
    per row (measured: a fifth of the wall time of short 8-puzzle solves). Its schema
    metadata carries the task's seconds (:data:`TASK_SECONDS`) without the worker's setup
    and any compiling: the pace the client's ETA is taken from.
    """
    ensure_plugins(job.plugins)  # before the tables: a max(...) may name a plugin
    handle = get_worker().plugins.get(plugin)
    tables_for = lambda name: ()  # noqa: E731
    if handle is not None:
        handle.prepare()
        tables_for = handle.tables_for
    with reported_compiles() as watch:
        start = time.perf_counter()
        table = solve_chunk_table(job, tables_for, memory_budget=default_budget)
        seconds = time.perf_counter() - start - watch.seconds
    return table.replace_schema_metadata({**(table.schema.metadata or {}), TASK_SECONDS: str(seconds)})


def task_seconds(table: pa.Table) -> float | None:
    """The seconds a :func:`run_chunk` task measured for ``table``, or None (not from one)."""
    value = (table.schema.metadata or {}).get(TASK_SECONDS.encode())
    return None if value is None else float(value)


def _build_progress(message: dict) -> BuildProgress:
    """A builder's progress from its event (Dask adds the worker's address)."""
    fields = {name: message[name] for name in BuildProgress._fields}
    return BuildProgress(**dict(fields, group=tuple(fields["group"])))


def prepare_tables(client: Client, plan: Plan, store: str | None, on_build=None,
                   on_layer=None) -> tuple[str | None, dict]:
    """Resolve the store, build missing tables once and give every worker a verified copy.

    ``on_layer`` receives the builder's :class:`~tilesweep.pdb_store.BuildProgress` as it goes.

    Returns the store path (None when the sweep uses no ``pdb:`` heuristic) and where each
    table can be copied from (:attr:`~.share.Shared.sources`, for workers that join later).
    """
    spec = plan.spec
    names = pdb_heuristics([h for _, h in spec.combos], spec.size, spec.goal_tuple)
    if not names:
        return None, {}
    root = resolve(store)
    if on_build is not None:
        on_build(names, root)
    if on_layer is not None:
        client.subscribe_topic(BUILD_TOPIC, lambda event: on_layer(_build_progress(event[1])))
    try:
        shared = ensure_tables(client, root, names, spec.size, spec.goal_tuple,
                               f"{spec.name}-{spec.fingerprint()[:8]}-tables")
    finally:
        if on_layer is not None:
            client.unsubscribe_topic(BUILD_TOPIC)
    return root, shared.sources


class UnreachableWorkerError(ClusterError):
    """The scheduler could not reach a worker to set it up for the sweep."""


def register(client: Client, plugin, name: str) -> None:
    """``client.register_plugin``: the scheduler sends ``plugin`` to every worker and waits
    for each to answer. A worker it cannot reach (cut off, stopped) fails the call with a
    closed connection once the scheduler gives up on it: one line naming that worker."""
    before = set(client.scheduler_info(n_workers=-1)["workers"])
    try:
        client.register_plugin(plugin, name=name)
    except OSError as err:  # CommClosedError among them
        try:
            gone = sorted(before - set(client.scheduler_info(n_workers=-1)["workers"])) or sorted(before)
        except OSError:
            gone = sorted(before)
        raise UnreachableWorkerError(
            f"worker {', '.join(repr(w) for w in gone)} did not answer the scheduler, which expected every worker "
            f"to acknowledge the sweep's setup ({name}), and dropped it ({type(err).__name__}); check that the "
            "scheduler can reach every worker, or stop the unreachable one, and rerun (finished parts are "
            "kept)") from None


def check_workers_version(client: Client) -> None:
    """Register :class:`VersionPlugin`: every worker checks it runs this client's tilesweep
    version, before any task is submitted (a mismatch is one line naming both versions)."""
    try:
        register(client, VersionPlugin(), "tilesweep-version")
    except TilesweepError:
        raise
    # Raised on a worker that cannot even load the check (an ImportError or
    # AttributeError from another tilesweep, ...): it arrives as its own type, and is one line here.
    except Exception as err:  # noqa: BLE001
        raise ClusterError(f"a worker cannot run tilesweep {tilesweep.__version__}'s version check "
                           f"({type(err).__name__}: {err}); install tilesweep {tilesweep.__version__} "
                           "on every worker") from None


def _task_error(err: BaseException) -> ClusterError:
    if isinstance(err, VersionMismatchError):  # a task on a worker of another version: its own line
        return err
    if isinstance(err, CancelledError):
        return SchedulerLostError("the connection to the Dask scheduler was lost (it stopped or restarted); "
                                  "finished parts are kept and a rerun resumes")
    return ClusterError(f"a sweep task failed on the cluster ({type(err).__name__}: {err}); finished "
                        "parts are kept and a rerun resumes")


class SchedulerLostError(ClusterError):
    """The scheduler went away mid-sweep; its tasks are lost, the parts written are kept."""


@dataclass
class _Split:
    """A chunk whose task killed its workers, rerun one (instance, algorithm, heuristic) a task."""

    job: ChunkJob
    tables: dict = field(default_factory=dict)  # piece key -> rows

    def pieces(self, key: str) -> dict[str, ChunkJob]:
        return {f"{key}-{index}-{c}": replace(self.job, instances=((index, tiles),), combos=(combo,))
                for index, tiles in self.job.instances for c, combo in enumerate(self.job.combos)}


def killed_rows(job: ChunkJob, err: BaseException) -> pa.Table:
    """The ``error`` row of a single solve whose task killed every worker that ran it."""
    (index, tiles), ((algorithm, heuristic),) = next(iter(job.instances)), job.combos
    base = {"sweep": job.sweep, "instance": index, "size": job.size, "tiles": Board(tiles, job.size).text(),
            "goal": goal_label(job.goal), "max_nodes": job.max_nodes, "time_limit": job.time_limit,
            "max_memory": job.max_memory, "cpu_time_limit": job.cpu_time_limit}
    message = (f"the worker process running this solve died, {err.allowed_failures + 1} times "
               f"(last on {err.last_worker.address}): killed by its nanny for memory, by a signal, "
               "or by a crash; see that worker's log")
    return rows_to_table([normalise_row(error_row(base, algorithm, heuristic, "worker_died", message))])


# A done task's error or result arrives in well under this; a client closed meanwhile never answers
READ_SECONDS = 300.0


def done_error(client: Client, future) -> BaseException | None:
    """The error of a done task (None when it finished), never waiting for ever: once the
    client is closed under the run (the worker watch stopping it), a future's state may
    never settle, and reading its error would wait on a loop that no longer answers."""
    if future.status == "finished":
        return None
    if client.status != "running":
        return CancelledError()
    try:
        return future.exception(timeout=READ_SECONDS)
    except (TimeoutError, RuntimeError):  # RuntimeError: the client's loop closed meanwhile
        return CancelledError()


class _Runner:
    """Submits chunks, splits those that kill workers, writes each part once it is whole."""

    def __init__(self, client: Client, plan: Plan, plugin: str, on_progress=None):
        self.client, self.plan, self.plugin, self.on_progress = client, plan, plugin, on_progress
        self.held: list[tuple[ChunkJob, pa.Table]] = []  # chunks with rows for parallel IDA*
        self.jobs: dict[str, ChunkJob] = {}
        self.owner: dict[str, str] = {}  # piece key -> the split chunk's key
        self.splits: dict[str, _Split] = {}
        self.start, self.total = time.perf_counter(), plan.solves()
        self.done_solves, self.new_solves = plan.solves(plan.done_jobs()), 0
        self.isolated = 0
        self.measured_solves, self.measured_seconds = 0, 0.0
        self.workers = max(1, sum(client.nthreads().values()))

    def submit(self, jobs: dict[str, ChunkJob], retries: int) -> list:
        self.jobs.update(jobs)
        return [self.client.submit(run_chunk, job, self.plugin, key=key, retries=retries, pure=False)
                for key, job in jobs.items()]

    def run(self, jobs: dict[str, ChunkJob]) -> None:
        queue = as_completed(self.submit(jobs, RETRIES))
        for future in queue:
            key, err = future.key, done_error(self.client, future)
            job = self.jobs.pop(key)
            if isinstance(err, KilledWorker) and key not in self.owner:
                split = self.splits[key] = _Split(job)
                pieces = split.pieces(key)
                self.owner.update(dict.fromkeys(pieces, key))
                for piece in self.submit(pieces, 0):
                    queue.add(piece)
                continue
            if isinstance(err, KilledWorker):
                table, self.isolated = killed_rows(job, err), self.isolated + 1
            elif err is not None or future.status != "finished":
                raise _task_error(err if err is not None else CancelledError())
            else:
                table = future.result(timeout=READ_SECONDS)
            future.release()
            self.collect(key, job, table)

    def collect(self, key: str, job: ChunkJob, table: pa.Table) -> None:
        """Write ``table`` as its chunk's part, or keep it until its split chunk is whole."""
        owner = self.owner.pop(key, None)
        if owner is not None:
            split = self.splits[owner]
            split.tables[key] = table
            if len(split.tables) < len(split.job.instances) * len(split.job.combos):
                return
            job = self.splits.pop(owner).job
            # pieces that ran one by one, some on workers that died: no pace to measure
            table = pa.concat_tables([split.tables[k] for k in split.pieces(owner)]).replace_schema_metadata(None)
        if stopped_rows(job, table):
            self.held.append((job, table))
        else:
            self.write(job, table)

    def write(self, job: ChunkJob, table: pa.Table) -> None:
        seconds = task_seconds(table)
        write_part(self.plan.spec, job.chunk, table)
        self.plan.done.add(job.chunk)
        self.done_solves += table.num_rows
        self.new_solves += table.num_rows
        if seconds is not None:
            self.measured_solves += table.num_rows
            self.measured_seconds += seconds
        if self.on_progress is not None:
            self.on_progress(Progress(len(self.plan.done), len(self.plan.jobs), self.done_solves, self.total,
                                      self.new_solves, time.perf_counter() - self.start, self.measured_solves,
                                      self.measured_seconds, self.workers))


def run_plan(client: Client, plan: Plan, store: str | None = None, on_progress=None,
             on_build=None, on_layer=None, parallel_above: int | None = None, solve_stopped=None,
             on_kernels=None, worker_wait: float = WORKER_WAIT_SECONDS, on_no_workers=None,
             min_workers: int | None = None) -> int:
    """Run every pending chunk of ``plan``, writing its part as each task finishes.

    A chunk whose task killed its workers (:class:`~distributed.KilledWorker`) is rerun
    one solve a task; a solve that still kills them becomes an ``error`` row (reason
    ``worker_died``). Returns the number of such rows.

    ``parallel_above``: IDA* rows stop at that many nodes in their task; once every task
    is done, ``solve_stopped(job, table)`` (:func:`.parallel.solve_stopped_rows` on this
    client) solves them again by parallel IDA* and the chunk's part is written then.

    ``on_kernels(event)`` hears what the workers' kernels do (:data:`.plugin.KERNELS_TOPIC`).

    A scheduler without a worker for ``worker_wait`` seconds stops the run with
    :class:`~.watch.NoWorkersError` (:class:`~.watch.WorkerWatch`, which calls
    ``on_no_workers(seconds, address)`` first, once none has been there for a while).
    ``min_workers``: no task is submitted before that many workers joined (the same
    ``worker_wait`` bounds the wait).
    """
    if not plan.pending:
        return 0
    with WorkerWatch(client, worker_wait, on_no_workers) as watch:
        try:
            if min_workers:
                wait_for_workers(client, min_workers, worker_wait)
            return _run_pending(client, plan, store, on_progress, on_build, on_layer, parallel_above, solve_stopped,
                                on_kernels)
        except Exception:
            watch.check()
            raise


def _run_pending(client: Client, plan: Plan, store, on_progress, on_build, on_layer, parallel_above,
                 solve_stopped, on_kernels) -> int:
    spec = plan.spec
    check_workers_version(client)
    root, sources = prepare_tables(client, plan, store, on_build, on_layer)
    if on_kernels is not None:
        client.subscribe_topic(KERNELS_TOPIC, lambda event: on_kernels(event[1]))
    name = plugin_name(plan)
    instances = str(spec.instances) if spec.instances.seeded else None
    register(client, SweepPlugin(name, root, spec.size, spec.goal_tuple, spec.combos, sources, spec.prune, instances),
             name)
    runner = _Runner(client, plan, name, on_progress)
    try:
        runner.run({chunk_key(plan, job.chunk): replace(job, parallel_above=parallel_above) for job in plan.pending})
        for job, table in runner.held:
            runner.write(job, solve_stopped(job, table))
    except TilesweepError:
        raise
    except (CancelledError, CommClosedError) as err:
        raise _task_error(CancelledError()) from err
    # The boundary with Dask: a task's remote failure, a comm error or a result that
    # cannot be read back arrives as any type; each is one line saying the parts are kept.
    except Exception as err:  # noqa: BLE001
        raise _task_error(err) from None
    return runner.isolated
