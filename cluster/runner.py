"""One run of a sweep, from the store check to its summary: the sequence ``tilesweep sweep``
and :meth:`tilesweep.api.Sweep.run` both follow, and what it does when the cluster fails.

:func:`plan_sweep` checks the sweep's plugins, store and cluster, has the embedded cluster's
fork server compile the sweep's kernels meanwhile, and plans the chunks (taking the sweep's
lock); :func:`run_sweep` then records the run, runs the pending chunks on Dask and writes
the summary. When the cluster fails mid-run:

* the scheduler is lost (:class:`~.run.SchedulerLostError`): the run waits up to
  ``$TILESWEEP_RECONNECT_SECONDS`` (:func:`~.connect.reconnect_seconds`) for it to answer
  again, reads the parts saved meanwhile and goes on; one that does not come back ends the
  run with :class:`SchedulerGoneError`;
* no worker for ``worker_wait`` seconds (:class:`~.watch.NoWorkersError`) or a worker of
  another version (:class:`~.plugin.VersionMismatchError`) ends it at once.

These endings (:data:`STOPS`), like an interrupt, keep every part written: a rerun resumes.
The caller hears what the run does through :class:`~.events.SweepEvents`.
"""

from __future__ import annotations

import importlib
import os
import tempfile
import threading
import time
from functools import partial
from pathlib import Path

from tilesweep.jobs import sweep as sweep_plan
from tilesweep.jobs.client import record_this_client
from tilesweep.jobs.options import RunOptions
from tilesweep.jobs.plugins import ensure as ensure_plugins
from tilesweep.jobs.resume import done_chunks, saved_parts
from tilesweep.jobs.runrecord import record_run
from tilesweep.jobs.spec import SweepSpec
from tilesweep.solver.fsm import parse_pruning

from .connect import (
    check_workers,
    connect,
    dashboard_link,
    fork_server_started,
    probe_scheduler,
    reconnect_seconds,
    scheduler_address,
    start_fork_server,
    wait_for_scheduler,
)
from .events import SweepEvents
from .forkwarm import follow, request
from .jobqueue import batch_options
from .parallel import solve_stopped_rows
from .plugin import VersionMismatchError
from .run import SchedulerLostError, run_plan
from .tables import check_store, pdb_heuristics, resolve
from .watch import NoWorkersError, worker_wait


class SchedulerGoneError(SchedulerLostError):
    """The scheduler was lost mid-run and did not answer again in time."""


#: The endings of a run that leave it to be resumed, beside an interrupt.
STOPS = (NoWorkersError, VersionMismatchError, SchedulerGoneError)


def resume_command(spec: SweepSpec, run: RunOptions, retry_errors: bool = False, program: str = "tilesweep") -> str:
    """The command that runs the sweep's remaining chunks as this run would."""
    return spec.command(run, program) + (" --retry-errors" if retry_errors else "")


def run_sweep(spec: SweepSpec, run: RunOptions, *, retry_errors: bool = False, baseline: str | None = None,
              events: SweepEvents | None = None, program: str = "tilesweep"):
    """Plan the sweep, run its pending chunks on the cluster ``run`` names and summarise
    every row (:func:`~tilesweep.jobs.sweep.finish`); return the summary DataFrame.

    ``retry_errors``: the chunks with ``error`` rows run again. ``baseline``: the heuristic
    the summary compares with (:meth:`~tilesweep.jobs.spec.SweepSpec.summary_baseline`).
    ``program``: how the resume command recorded for the sweep's client starts.

    Raises one of :data:`STOPS` when the cluster fails as the module says, and any other
    :class:`~tilesweep.solver.errors.TilesweepError` for bad input or a failed task.
    """
    events = events or SweepEvents()
    plan, warming = plan_sweep(spec, run, retry_errors, events)
    with plan:  # the sweep's lock, held until the summary is written
        events.planned(plan)
        if plan.pending:
            record_run(spec.folder, scheduler_address(run.scheduler, run.scheduler_file, events.scheduler_file_wait),
                       run.workers)
            record_this_client(spec.folder, resume_command(spec, run, retry_errors, program))
            _run_pending(plan, run, retry_errors, events, warming)
        return sweep_plan.finish(spec, spec.summary_baseline(baseline))


def plan_sweep(spec: SweepSpec, run: RunOptions, retry_errors: bool = False, events: SweepEvents | None = None,
               background: bool = False):
    """Check the sweep's plugins, store (and ``events.check``) and cluster (a scheduler file
    not there yet is waited for: ``events.scheduler_file_wait``), start compiling
    its kernels in the embedded cluster's fork server, and plan its chunks.

    ``background``: another process runs the chunks (``sweep --detach``): nothing is
    compiled here, and a scheduler given is probed now, as that process's log is not where
    a user looks first.

    Returns the :class:`~tilesweep.jobs.sweep.Plan`, which holds the sweep's lock until
    released, and the fork server's status file (None when nothing compiles there).
    """
    events = events or SweepEvents()
    ensure_plugins(spec.plugins)  # a spec read from its folder: each recorded plugin version, checked
    check_store(spec, run.store)
    events.check(spec, run.store)
    warming = None
    # a malformed address is bad input, before any work; batch jobs start their own workers
    address = None if run.batch else scheduler_address(run.scheduler, run.scheduler_file, events.scheduler_file_wait)
    if not run.batch and address is None:
        check_workers(run.workers)  # processes this machine starts
        warming = None if background else _warm_kernels(spec, run.store)
    elif address is not None and background:
        probe_scheduler(address)
    return sweep_plan.prepare(spec, retry_errors), warming


def _run_pending(plan, run: RunOptions, retry_errors: bool, events: SweepEvents, warming: Path | None) -> None:
    """Run the pending chunks; a lost scheduler is waited for and the run goes on."""
    while True:
        try:
            return _run_once(plan, run, events, warming)
        except SchedulerLostError as err:
            wait = reconnect_seconds()
            events.scheduler_lost(err, wait)
            if not wait_for_scheduler(run.scheduler, wait, scheduler_file=run.scheduler_file):
                raise SchedulerGoneError(f"the Dask scheduler did not come back in {wait:g} s "
                                         "($TILESWEEP_RECONNECT_SECONDS); finished parts are kept and a rerun "
                                         "resumes") from None
            plan.done = done_chunks(plan.spec, saved_parts(plan.spec), retry_errors)


def _run_once(plan, run: RunOptions, events: SweepEvents, warming: Path | None) -> None:
    """Connect to the cluster and run the pending chunks (:func:`~.run.run_plan`)."""
    start = time.perf_counter()
    # the summary's pandas and DuckDB load while the workers start, not after the run
    threading.Thread(target=importlib.import_module, args=("tilesweep.jobs.summary",), daemon=True).start()
    if warming is not None:  # the fork server's compile, before the cluster's start holds a Ctrl-C
        follow(warming, events.kernels)
    with connect(run.scheduler, run.workers, batch=batch_options(plan.spec, run), scheduler_file=run.scheduler_file,
                 on_wait=events.scheduler_file_wait) as client:
        link = dashboard_link(client)
        if link:
            events.dashboard(link)
            if plan.lock is not None:  # for the web UI's sweep page
                plan.lock.note(dashboard=link)
        wait = worker_wait(run)

        def no_workers(seconds, address):
            events.no_workers(seconds, address, wait, len(client.cluster.workers) if run.batch else None)

        isolated = run_plan(client, plan, run.store, events.progress, events.tables, events.layer,
                            run.parallel_above, partial(solve_stopped_rows, client, run.store,
                                                        on_row=events.parallel_row, folder=plan.spec.folder),
                            events.kernels, wait, no_workers, run.wait_for_workers)
    events.ran(time.perf_counter() - start, isolated)


def _warm_kernels(spec: SweepSpec, store: str | None) -> Path | None:
    """Start the embedded cluster's fork server, compiling the sweep's kernels while this
    process plans (a pruning automaton comes from the store: the workers compile those);
    beside it, in a thread, compile the kernels that build the tables the store lacks.
    Returns the status file the server reports in (:func:`~.forkwarm.follow`); None when
    it compiles nothing: fsm pruning, or a server already running (an earlier sweep of this
    process, a notebook's, started it)."""
    warm = status = None
    if not fork_server_started() and parse_pruning(spec.prune, spec.size).kind == "parent":
        handle, name = tempfile.mkstemp(prefix="tilesweep-warm-")
        os.close(handle)
        status = Path(name)
        instances = str(spec.instances) if spec.instances.seeded else None
        warm = request(spec.size, spec.goal_tuple, spec.combos, instances, status)
    start_fork_server(warm)
    names = pdb_heuristics([h for _, h in spec.combos], spec.size, spec.goal_tuple)
    if names:
        threading.Thread(target=_warm_builds, args=(resolve(store), spec.size, spec.goal_tuple, names),
                         daemon=True).start()
    return status


def _warm_builds(store: str, size: int, goal, names) -> None:
    from tilesweep.jobs.kernels import warm_missing_builds
    try:
        warm_missing_builds(store, size, goal, names)
    # A store that cannot be read is the sweep's to report, in one line, when it opens it.
    except Exception:  # noqa: BLE001
        pass
