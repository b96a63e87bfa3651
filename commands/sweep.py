"""``tilesweep sweep``: every instance with every algorithm x heuristic on Dask, resumable."""

from __future__ import annotations

import importlib
import os
import tempfile
import threading
import time
from functools import partial
from pathlib import Path
from typing import Annotated, Optional

import typer

from tilesweep.commands.exits import run_guarded
from tilesweep.commands.options import (
    HEURISTIC_NAMES_AND_PLUGINS,
    ConventionsOpt,
    CpuTimeLimitOpt,
    FormatOpt,
    MaxMemoryOpt,
    PluginOpt,
    SchedulerOpt,
    StoreOpt,
    TimeLimitOpt,
    WideOpt,
    WorkersOpt,
    typed,
)
from tilesweep.commands.progress import BuildProgressLine, ProgressBar

BATCH_NAMES = {"slurm": "Slurm", "pbs": "PBS", "sge": "SGE"}
QUEUE_COMMANDS = {"slurm": "squeue --me", "pbs": "qstat -u $USER", "sge": "qstat"}

# How the user invoked us, for the resume command a sweep prints; cli.py run as a script
# (``python cli.py``) sets it to that.
PROGRAM = "tilesweep"


def _print_summary(frame, fmt: str, wide: bool) -> None:
    from tilesweep.jobs.summary import format_summary
    typer.echo(format_summary(frame, fmt, wide))


def sweep(
    spec_file: Annotated[Optional[str], typer.Argument(
        help="A TOML sweep spec; options given here override it.")] = None,
    size: Annotated[Optional[int], typer.Option(
        "--size", parser=typed("size"), help="Board width 3, 4 or 5 (default 3; korf100: 4; korf50-24: 5).")] = None,
    goal: Annotated[Optional[str], typer.Option("--goal", help="blank-last (default), blank-first or tiles.")] = None,
    count: Annotated[Optional[int], typer.Option(
        "--count", parser=typed("count"), help="Number of instances (default 100; a file, korf100 or korf50-24: all)."
    )] = None,
    seed: Annotated[Optional[int], typer.Option(
        "--seed", parser=typed("seed"), help="Seed of uniform and walk:K instances (default 0).")] = None,
    instances: Annotated[Optional[str], typer.Option(
        "--instances", parser=typed("instances"),
        help="uniform, walk:K, korf100, korf50-24 or a file with one board a line.")] = None,
    algorithm: Annotated[Optional[list[str]], typer.Option(
        "--algorithm", "-a", help="astar, idastar, bfs, dfs; repeat for several.")] = None,
    heuristic: Annotated[Optional[list[str]], typer.Option(
        "--heuristic", "-H", help=f"{HEURISTIC_NAMES_AND_PLUGINS}; repeat for several (all pairs run).")] = None,
    out: Annotated[Optional[str], typer.Option("--out", help="Folder holding sweeps (default ./sweeps).")] = None,
    name: Annotated[Optional[str], typer.Option("--name", help="Sweep name (default derived from the spec).")] = None,
    store: StoreOpt = None,
    scheduler: SchedulerOpt = None,
    scheduler_file: Annotated[Optional[str], typer.Option(
        "--scheduler-file",
        help="A Dask scheduler file (dask scheduler --scheduler-file FILE writes it) naming the scheduler; waits for"
             " it to appear. For a sweep inside one batch allocation: tilesweep sbatch-script.")] = None,
    workers: WorkersOpt = None,
    parallel_above: Annotated[Optional[int], typer.Option(
        "--parallel-above", parser=typed("parallel_above"),
        help="IDA* rows that pass this many nodes are stopped and, once the other tasks are done, solved by parallel"
             " IDA* on every worker (the same rows).")] = None,
    chunk_size: Annotated[Optional[str], typer.Option(
        "--chunk-size", parser=typed("chunk_size"), help="Instances per task, or auto (tasks of ~2 s).")] = None,
    max_nodes: Annotated[Optional[int], typer.Option(
        "--max-nodes", parser=typed("max_nodes"), help="Node budget per solve (status budget_exceeded).")] = None,
    time_limit: TimeLimitOpt = None,
    cpu_time_limit: CpuTimeLimitOpt = None,
    max_memory: MaxMemoryOpt = None,
    repeat: Annotated[Optional[int], typer.Option(
        "--repeat", parser=typed("repeat"),
        help="Time each solved row this many times (default 1), for timing studies of small boards: min and median "
             "seconds kept, nodes must agree (else the row is an error).")] = None,
    cluster: Annotated[Optional[str], typer.Option(
        "--cluster", parser=typed("cluster"),
        help="local (default) or slurm (pbs, sge): workers as batch jobs through dask-jobqueue (pip install "
             "'tilesweep\\[hpc]'), set up by Dask's jobqueue.yaml.")] = None,
    jobs: Annotated[Optional[int], typer.Option(
        "--jobs", parser=typed("jobs"), help="Batch jobs of workers to keep (--cluster slurm; default 1).")] = None,
    max_jobs: Annotated[Optional[int], typer.Option(
        "--max-jobs", parser=typed("max_jobs"),
        help="Adaptive batch jobs, from none up to this many while there is work (--cluster slurm).")] = None,
    cluster_option: Annotated[Optional[list[str]], typer.Option(
        "--cluster-option",
        help="KEY=VALUE overriding a jobqueue.yaml setting of the batch jobs (account, queue, walltime, cores, "
             "memory, job_script_prologue, job_extra_directives, interface, ...); the value is JSON or text; "
             "repeatable.")] = None,
    detach: Annotated[bool, typer.Option(
        "--detach",
        help="Plan the sweep, run its client in the background (log in the sweep's folder) and return; follow it "
             "with tilesweep status, stop it with tilesweep cancel.")] = False,
    worker_wait: Annotated[Optional[float], typer.Option(
        "--worker-wait", parser=typed("worker_wait"),
        help="Seconds the sweep waits while the scheduler has no worker, then stops with the resume command (default"
             " 300; with --cluster slurm, pbs or sge 1800, for jobs queued; after 10 s without one it says so)."
    )] = None,
    retry_errors: Annotated[bool, typer.Option(
        "--retry-errors", help="Rerun the chunks whose rows have status error (kept by default).")] = False,
    prune: Annotated[Optional[str], typer.Option(
        "--prune", help="parent (default) or fsm[:DEPTH]; the pruning column of the rows.")] = None,
    conventions: ConventionsOpt = None,
    plugin: PluginOpt = None,
    check_heuristics: Annotated[bool, typer.Option(
        "--check-heuristics",
        help="First check each heuristic as tilesweep check-heuristic does (8-puzzle: every board; 15-puzzle: a "
             "sample of 10 solved with the strongest built-in); an inadmissible one stops the sweep before any work "
             "(exit 1).")] = False,
    baseline: Annotated[Optional[str], typer.Option(
        "--baseline", help="Heuristic the summary compares with (default: the first, if several).")] = None,
    fmt: FormatOpt = "table",
    wide: WideOpt = False,
) -> None:
    """Solve every instance with every algorithm x heuristic on Dask; write Parquet; print a summary.

    Example: tilesweep sweep --size 3 --count 1000 --algorithm astar --heuristic manhattan --heuristic linear-conflict --out sweeps
    """  # noqa: E501 (help prints the example as it is written: one line to copy)
    from tilesweep.jobs.options import SweepOptions
    from tilesweep.jobs.spec import build_spec
    from tilesweep.jobs.sweep import finish, prepare

    options = SweepOptions(size=size, goal=goal, count=count, seed=seed, instances=instances,
                           algorithms=tuple(algorithm or ()), heuristics=tuple(heuristic or ()), out=out,
                           name=name, store=store, scheduler=scheduler, scheduler_file=scheduler_file,
                           max_nodes=max_nodes, chunk_size=chunk_size, workers=workers, parallel_above=parallel_above,
                           time_limit=time_limit, max_memory=max_memory, prune=prune, cpu_time_limit=cpu_time_limit,
                           repeat=repeat, worker_wait=worker_wait, cluster=cluster, jobs=jobs, max_jobs=max_jobs,
                           cluster_options=tuple(cluster_option or ()), plugin_files=tuple(plugin or ()),
                           conventions=conventions)

    def setup():
        from tilesweep.cluster.connect import check_workers, probe_scheduler, scheduler_address
        from tilesweep.cluster.tables import check_store
        spec, run = build_spec(options, spec_file, os.cpu_count() or 1)
        check_store(spec, run.store)
        if check_heuristics:
            _check_heuristics(spec, run.store)
        warming = None
        # a malformed address is bad input, before any work; batch jobs start their own workers
        address = None if run.batch else scheduler_address(run.scheduler, run.scheduler_file)
        if not run.batch and address is None:
            check_workers(run.workers)  # processes this machine starts
            warming = None if detach else _start_fork_server(spec, run.store)
        elif address is not None and detach:
            probe_scheduler(address)  # the background client's log is not where a user looks first
        return spec, run, prepare(spec, retry_errors), warming

    spec, run, plan, warming = run_guarded(setup)
    if detach:
        return _detach(spec, run, plan, retry_errors)
    base = baseline if baseline is not None else (spec.heuristics[0] if len(spec.heuristics) > 1 else None)
    with plan:  # the sweep's lock, held until the summary is written
        try:
            _report_repairs(plan)
            typer.echo(f"sweep {spec.name}: {spec.count} instances x {len(spec.combos)} runs in "
                       f"{spec.n_chunks} chunks ({len(plan.done)} already done) -> {spec.folder}", err=True)
            if plan.pending:
                from tilesweep.cluster.connect import scheduler_address
                from tilesweep.jobs.client import record_this_client
                from tilesweep.jobs.runrecord import record_run
                record_run(spec.folder, scheduler_address(run.scheduler, run.scheduler_file), run.workers)
                record_this_client(spec.folder, _resume_command(spec, run, retry_errors))
                _run_sweep(spec, run, plan, retry_errors, warming)
        except KeyboardInterrupt:
            _stop(spec, run, plan, retry_errors, "\ninterrupted", 130)
        summary = run_guarded(lambda: finish(spec, base))
    _print_summary(summary, fmt, wide)


def _report_repairs(plan) -> None:
    """One line per file the resume moved aside or rebuilt, and the count of parts adopted."""
    if plan.rebuilt:
        typer.echo(plan.rebuilt, err=True)
    for source, target, why in plan.moved:
        typer.echo(f"moved aside: {str(source)!r} {why}; it is now {str(target)!r}", err=True)
    if plan.adopted:
        typer.echo(f"adopted {plan.adopted} part(s) written before part checksums were recorded: each read in "
                   "full and recorded in manifest.jsonl", err=True)


def _start_fork_server(spec, store) -> Path | None:
    """Start the embedded cluster's fork server, compiling the sweep's kernels while this
    process plans (a pruning automaton comes from the store: the workers compile those);
    beside it, in a thread, compile the kernels that build the tables the store lacks.
    Returns the status file the server reports in (:func:`~tilesweep.cluster.forkwarm.follow`)."""
    from tilesweep.cluster.connect import start_fork_server
    from tilesweep.cluster.forkwarm import request
    from tilesweep.cluster.tables import pdb_heuristics, resolve
    from tilesweep.solver.fsm import parse_pruning
    warm = status = None
    if parse_pruning(spec.prune, spec.size).kind == "parent":
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


def _warm_builds(store, size, goal, names) -> None:
    from tilesweep.jobs.kernels import warm_missing_builds
    try:
        warm_missing_builds(store, size, goal, names)
    # A store that cannot be read is the sweep's to report, in one line, when it opens it.
    except Exception:  # noqa: BLE001
        pass


CHECK_SAMPLE = 10  # boards a 15-puzzle heuristic is checked on by sweep --check-heuristics


def _check_heuristics(spec, store) -> None:
    """Check each heuristic of the sweep (:mod:`tilesweep.jobs.check`), print what was found;
    an overestimate stops the sweep (exit 1). An inconsistent but admissible heuristic (an
    additive PDB) keeps its optimal costs, so it is reported and runs."""
    from tilesweep.commands.check import _print
    from tilesweep.commands.solve import load_tables
    from tilesweep.jobs.check import STRONGEST, check_heuristic, check_sample

    goal = spec.goal_tuple
    for name in dict.fromkeys(h for _, h in spec.combos if h != "none"):
        tables = load_tables(name, spec.size, goal, store, True)
        if spec.size == 3:
            found = check_heuristic(name, spec.size, goal, tables)
        else:
            ref = STRONGEST.get(spec.size, "manhattan")
            found = check_sample(name, spec.size, goal, tables, CHECK_SAMPLE, 0, ref,
                                 load_tables(ref, spec.size, goal, store, True))
        _print(found, err=True)
        if not found.admissible:
            typer.echo(f"error: heuristic {name!r} overestimates the distance of {found.overestimates:,} "
                       f"of {found.boards:,} boards checked; its costs would not be optimal: the sweep "
                       "does not start", err=True)
            raise typer.Exit(1)


def _run_sweep(spec, run, plan, retry_errors: bool = False, warming: Path | None = None) -> None:
    """Run the pending chunks (Ctrl-C keeps the finished parts: :func:`sweep` prints the
    resume command); if the scheduler goes away, wait for it (``$TILESWEEP_RECONNECT_SECONDS``) and go on;
    if it has no worker for ``--worker-wait`` seconds, stop with the resume command."""
    from tilesweep.cluster.connect import connect, dashboard_link, reconnect_seconds, wait_for_scheduler
    from tilesweep.cluster.forkwarm import follow
    from tilesweep.cluster.jobqueue import batch_options
    from tilesweep.cluster.parallel import solve_stopped_rows
    from tilesweep.cluster.plugin import VersionMismatchError
    from tilesweep.cluster.run import SchedulerLostError, run_plan
    from tilesweep.cluster.watch import NoWorkersError, worker_wait as wait_of
    from tilesweep.jobs.resume import done_chunks, saved_parts

    worker_wait = wait_of(run)
    batch_cluster = []  # a batch cluster, once started: the waiting line counts its jobs

    def announce(names, root):
        typer.echo(f"pattern databases for {', '.join(names)}: store {root} (missing tables are built once)", err=True)

    def announce_parallel(index, heuristic):
        typer.echo(f"instance {index} (idastar, {heuristic}) passed {run.parallel_above:,} nodes: "
                   "parallel IDA* on every worker", err=True)

    def announce_no_workers(seconds, address):
        stops = f"the sweep stops after {worker_wait:g} s without one (--worker-wait)"
        if batch_cluster:
            kind = BATCH_NAMES[run.cluster]
            jobs = len(batch_cluster[0].workers)
            typer.echo(f"\nwaiting for workers: 0 of {jobs} {kind} job(s) submitted run a worker after "
                       f"{seconds:.0f} s (the queue says why: {QUEUE_COMMANDS[run.cluster]}); {stops}", err=True)
        else:
            typer.echo(f"\nno Dask worker at the scheduler {address} for {seconds:.0f} s; {stops}", err=True)

    def action():
        start = time.perf_counter()
        # the summary's pandas and DuckDB load while the workers start, not after the run
        threading.Thread(target=importlib.import_module, args=("tilesweep.jobs.summary",), daemon=True).start()
        bar = ProgressBar()
        if warming is not None:  # the fork server's compile, before the cluster's start holds a Ctrl-C
            follow(warming, bar.kernels)
        with connect(run.scheduler, run.workers, batch=batch_options(spec, run),
                     scheduler_file=run.scheduler_file) as client:
            if run.batch:
                batch_cluster.append(client.cluster)
            link = dashboard_link(client)
            if link:
                typer.echo(f"dashboard: {link}", err=True)
                if plan.lock is not None:  # for the web UI's sweep page
                    plan.lock.note(dashboard=link)
            isolated = run_plan(client, plan, run.store, bar, announce, BuildProgressLine(),
                                run.parallel_above, partial(solve_stopped_rows, client, run.store,
                                                            on_row=announce_parallel, folder=spec.folder), bar.kernels,
                                worker_wait, announce_no_workers)
        typer.echo(f"wall time {time.perf_counter() - start:.1f} s", err=True)
        if isolated:
            typer.echo(f"{isolated} solve(s) killed every worker that ran them and are recorded with status "
                       "error (reason worker_died); rerun with --retry-errors to try them again", err=True)

    def attempt() -> bool:
        try:
            action()
            return True
        except SchedulerLostError as err:
            typer.echo(f"error: {err}", err=True)
            return False
        except (NoWorkersError, VersionMismatchError) as err:
            _stop(spec, run, plan, retry_errors, f"error: {err}", 1)

    while not run_guarded(attempt):
        wait = reconnect_seconds()
        typer.echo(f"waiting up to {wait:g} s for the scheduler to come back ($TILESWEEP_RECONNECT_SECONDS)", err=True)
        if not wait_for_scheduler(run.scheduler, wait, scheduler_file=run.scheduler_file):
            _stop(spec, run, plan, retry_errors, "the scheduler did not come back", 1)
        plan.done = run_guarded(lambda: done_chunks(spec, saved_parts(spec), retry_errors))


def _detach(spec, run, plan, retry_errors: bool) -> None:
    """Start the sweep's client in the background, in a session of its own (a closed terminal
    does not stop it), its output in the sweep's folder; record it and say how to follow it."""
    import shlex
    import signal
    import subprocess
    import sys

    from tilesweep.jobs.client import LOG, record_client

    _report_repairs(plan)
    command = _resume_command(spec, run, retry_errors)
    args = shlex.split(_resume_command(spec, run, retry_errors, "tilesweep"))[1:]
    with open(spec.folder / LOG, "ab") as log:
        # `cancel` stops the client with SIGINT, which a shell's background job (`... &` in a
        # script) ignores and passes on as ignored: the client takes it as Ctrl-C again.
        client = subprocess.Popen([sys.executable, "-m", "tilesweep.cli", *args], stdin=subprocess.DEVNULL,
                                  stdout=log, stderr=subprocess.STDOUT, start_new_session=True,
                                  preexec_fn=lambda: signal.signal(signal.SIGINT, signal.SIG_DFL))
    record_client(spec.folder, client.pid, command)
    typer.echo(f"sweep {spec.name}: {len(plan.done)} of {spec.n_chunks} chunks done; its client runs in the "
               f"background (pid {client.pid}, log {spec.folder / LOG})\n"
               f"  follow:  {PROGRAM} status {shlex.quote(str(spec.folder))} --watch\n"
               f"  stop:    {PROGRAM} cancel {shlex.quote(str(spec.folder))}")
    typer.echo(str(spec.folder))


def _resume_command(spec, run, retry_errors: bool, program: str | None = None) -> str:
    """The command that runs the sweep's remaining chunks as this run would."""
    return spec.command(run, program or PROGRAM) + (" --retry-errors" if retry_errors else "")


def _stop(spec, run, plan, retry_errors: bool, reason: str, code: int) -> None:
    """End an unfinished sweep with ``reason``, the chunks saved and the resume command."""
    from tilesweep.jobs.resume import saved_parts

    saved = len(saved_parts(spec))  # from disk: Ctrl-C may land between a part's rename and its count
    resume = _resume_command(spec, run, retry_errors)
    typer.echo(f"{reason}: {saved} of {len(plan.jobs)} chunks are saved in {spec.folder}; resume with:\n"
               f"  {resume}", err=True)
    raise typer.Exit(code)
