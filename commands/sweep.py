"""``tilesweep sweep``: every instance with every algorithm x heuristic on Dask, resumable.

The options and what is printed live here; the run itself, the same for the Python API, is
:func:`tilesweep.cluster.runner.run_sweep`.
"""

from __future__ import annotations

import os
from typing import Annotated, Optional

import typer

from tilesweep.cluster.events import SweepEvents
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

# What the sweep solves: these decide its rows, its name and folder.
SpecFileArg = Annotated[Optional[str], typer.Argument(help="A TOML sweep spec; options given here override it.")]
SweepSizeOpt = Annotated[Optional[int], typer.Option(
    "--size", parser=typed("size"), help="Board width 3, 4 or 5 (default 3; korf100: 4; korf50-24: 5).")]
SweepGoalOpt = Annotated[Optional[str], typer.Option("--goal", help="blank-last (default), blank-first or tiles.")]
CountOpt = Annotated[Optional[int], typer.Option(
    "--count", parser=typed("count"), help="Number of instances (default 100; a file, korf100 or korf50-24: all).")]
SeedOpt = Annotated[Optional[int], typer.Option(
    "--seed", parser=typed("seed"), help="Seed of uniform and walk:K instances (default 0).")]
InstancesOpt = Annotated[Optional[str], typer.Option(
    "--instances", parser=typed("instances"),
    help="uniform, walk:K, korf100, korf50-24 or a file with one board a line.")]
AlgorithmsOpt = Annotated[Optional[list[str]], typer.Option(
    "--algorithm", "-a", help="astar, idastar, bfs, dfs; repeat for several.")]
HeuristicsOpt = Annotated[Optional[list[str]], typer.Option(
    "--heuristic", "-H", help=f"{HEURISTIC_NAMES_AND_PLUGINS}; repeat for several (all pairs run).")]
OutOpt = Annotated[Optional[str], typer.Option("--out", help="Folder holding sweeps (default ./sweeps).")]
NameOpt = Annotated[Optional[str], typer.Option("--name", help="Sweep name (default derived from the spec).")]
ChunkSizeOpt = Annotated[Optional[str], typer.Option(
    "--chunk-size", parser=typed("chunk_size"), help="Instances per task, or auto (tasks of ~2 s).")]
SweepMaxNodesOpt = Annotated[Optional[int], typer.Option(
    "--max-nodes", parser=typed("max_nodes"), help="Node budget per solve (status budget_exceeded).")]
RepeatOpt = Annotated[Optional[int], typer.Option(
    "--repeat", parser=typed("repeat"),
    help="Time each solved row this many times (default 1), for timing studies of small boards: min and median "
         "seconds kept, nodes must agree (else the row is an error).")]
SweepPruneOpt = Annotated[Optional[str], typer.Option(
    "--prune", help="parent (default) or fsm[:DEPTH]; the pruning column of the rows.")]

# Where it runs: never part of its identity.
SchedulerFileOpt = Annotated[Optional[str], typer.Option(
    "--scheduler-file",
    help="A Dask scheduler file (dask scheduler --scheduler-file FILE writes it) naming the scheduler; waits for"
         " it to appear. For a sweep inside one batch allocation: tilesweep sbatch-script.")]
ParallelAboveOpt = Annotated[Optional[int], typer.Option(
    "--parallel-above", parser=typed("parallel_above"),
    help="IDA* rows that pass this many nodes are stopped and, once the other tasks are done, solved by parallel"
         " IDA* on every worker (the same rows).")]
ClusterOpt = Annotated[Optional[str], typer.Option(
    "--cluster", parser=typed("cluster"),
    help="local (default) or slurm (pbs, sge): workers as batch jobs through dask-jobqueue (pip install "
         "'tilesweep\\[hpc]'), set up by Dask's jobqueue.yaml.")]
JobsOpt = Annotated[Optional[int], typer.Option(
    "--jobs", parser=typed("jobs"), help="Batch jobs of workers to keep (--cluster slurm; default 1).")]
MaxJobsOpt = Annotated[Optional[int], typer.Option(
    "--max-jobs", parser=typed("max_jobs"),
    help="Adaptive batch jobs, from none up to this many while there is work (--cluster slurm).")]
ClusterOptionOpt = Annotated[Optional[list[str]], typer.Option(
    "--cluster-option",
    help="KEY=VALUE overriding a jobqueue.yaml setting of the batch jobs (account, queue, walltime, cores, "
         "memory, job_script_prologue, job_extra_directives, interface, ...); the value is JSON or text; "
         "repeatable.")]
WorkerWaitOpt = Annotated[Optional[float], typer.Option(
    "--worker-wait", parser=typed("worker_wait"),
    help="Seconds the sweep waits while the scheduler has no worker, then stops with the resume command (default"
         " 300; with --cluster slurm, pbs or sge 1800, for jobs queued; after 10 s without one it says so).")]
WaitForWorkersOpt = Annotated[Optional[int], typer.Option(
    "--wait-for-workers", parser=typed("wait_for_workers"),
    help="Submit the first task only once this many workers have joined (e.g. every worker of --jobs N; the"
         " split of --parallel-above rows is sized by the workers there); stops with the resume command after"
         " --worker-wait seconds without them.")]

# This run: in the background, again for errors, checked first; how the summary compares.
DetachOpt = Annotated[bool, typer.Option(
    "--detach",
    help="Plan the sweep, run its client in the background (log in the sweep's folder) and return; follow it "
         "with tilesweep status, stop it with tilesweep cancel.")]
RetryErrorsOpt = Annotated[bool, typer.Option(
    "--retry-errors", help="Rerun the chunks whose rows have status error (kept by default).")]
CheckHeuristicsOpt = Annotated[bool, typer.Option(
    "--check-heuristics",
    help="First check each heuristic as tilesweep check-heuristic does (8-puzzle: every board; 15-puzzle: a "
         "sample of 10 solved with the strongest built-in); an inadmissible one stops the sweep before any work "
         "(exit 1).")]
DryRunOpt = Annotated[bool, typer.Option(
    "--dry-run",
    help="Print the plan (instances, runs, chunks, folder) and, for IDA*, the nodes KRE and CDP predict and the "
         "CPU-hours at this machine's measured speed; solve and write nothing.")]
PredictOpt = Annotated[Optional[bool], typer.Option(
    "--predict/--no-predict",
    help="With --dry-run: --predict samples the distributions and builds the tables a prediction needs; "
         "--no-predict prints the plan alone (default: predict from what the store holds, 8-puzzles exactly).")]
BaselineOpt = Annotated[Optional[str], typer.Option(
    "--baseline", help="Heuristic the summary compares with (default: the first, if several).")]


def sweep(
    spec_file: SpecFileArg = None,
    size: SweepSizeOpt = None,
    goal: SweepGoalOpt = None,
    count: CountOpt = None,
    seed: SeedOpt = None,
    instances: InstancesOpt = None,
    algorithm: AlgorithmsOpt = None,
    heuristic: HeuristicsOpt = None,
    out: OutOpt = None,
    name: NameOpt = None,
    store: StoreOpt = None,
    scheduler: SchedulerOpt = None,
    scheduler_file: SchedulerFileOpt = None,
    workers: WorkersOpt = None,
    parallel_above: ParallelAboveOpt = None,
    chunk_size: ChunkSizeOpt = None,
    max_nodes: SweepMaxNodesOpt = None,
    time_limit: TimeLimitOpt = None,
    cpu_time_limit: CpuTimeLimitOpt = None,
    max_memory: MaxMemoryOpt = None,
    repeat: RepeatOpt = None,
    cluster: ClusterOpt = None,
    jobs: JobsOpt = None,
    max_jobs: MaxJobsOpt = None,
    cluster_option: ClusterOptionOpt = None,
    detach: DetachOpt = False,
    worker_wait: WorkerWaitOpt = None,
    wait_for_workers: WaitForWorkersOpt = None,
    retry_errors: RetryErrorsOpt = False,
    prune: SweepPruneOpt = None,
    conventions: ConventionsOpt = None,
    plugin: PluginOpt = None,
    check_heuristics: CheckHeuristicsOpt = False,
    baseline: BaselineOpt = None,
    dry_run: DryRunOpt = False,
    predict: PredictOpt = None,
    fmt: FormatOpt = "table",
    wide: WideOpt = False,
) -> None:
    """Solve every instance with every algorithm x heuristic on Dask; write Parquet; print a summary.

    Example: tilesweep sweep --size 3 --count 1000 --algorithm astar --heuristic manhattan --heuristic linear-conflict --out sweeps
    """  # noqa: E501 (help prints the example as it is written: one line to copy)
    from tilesweep.jobs.options import SweepOptions
    from tilesweep.jobs.spec import build_spec

    options = SweepOptions(size=size, goal=goal, count=count, seed=seed, instances=instances,
                           algorithms=tuple(algorithm or ()), heuristics=tuple(heuristic or ()), out=out,
                           name=name, store=store, scheduler=scheduler, scheduler_file=scheduler_file,
                           max_nodes=max_nodes, chunk_size=chunk_size, workers=workers, parallel_above=parallel_above,
                           time_limit=time_limit, max_memory=max_memory, prune=prune, cpu_time_limit=cpu_time_limit,
                           repeat=repeat, worker_wait=worker_wait, wait_for_workers=wait_for_workers,
                           cluster=cluster, jobs=jobs, max_jobs=max_jobs,
                           cluster_options=tuple(cluster_option or ()), plugin_files=tuple(plugin or ()),
                           conventions=conventions)
    spec, run = run_guarded(lambda: build_spec(options, spec_file, os.cpu_count() or 1))
    if dry_run:
        from tilesweep.commands.dry_run import print_plan
        return print_plan(spec, run, predict)
    printer = Printer(run, check_heuristics)
    if detach:
        return _detach(spec, run, retry_errors, printer)
    summary = run_guarded(lambda: _run(spec, run, retry_errors, baseline, printer))
    _print_summary(summary, fmt, wide)


BATCH_NAMES = {"slurm": "Slurm", "pbs": "PBS", "sge": "SGE"}
QUEUE_COMMANDS = {"slurm": "squeue --me", "pbs": "qstat -u $USER", "sge": "qstat"}

# How the user invoked us, for the resume command a sweep prints; cli.py run as a script
# (``python cli.py``) sets it to that.
PROGRAM = "tilesweep"


def _run(spec, run, retry_errors: bool, baseline: str | None, printer: "Printer"):
    """The sweep's run; an interrupt once it is planned, or a cluster that fails it, ends it
    with the resume command."""
    from tilesweep.cluster.runner import STOPS, SchedulerGoneError, run_sweep
    try:
        return run_sweep(spec, run, retry_errors=retry_errors, baseline=baseline, events=printer, program=PROGRAM)
    except KeyboardInterrupt:
        if printer.plan is None:  # planning: the command line's own "interrupted"
            raise
        _stop(spec, run, retry_errors, "\ninterrupted", 130)
    except STOPS as err:
        _stop(spec, run, retry_errors,
              "the scheduler did not come back" if isinstance(err, SchedulerGoneError) else f"error: {err}", 1)


def _print_summary(frame, fmt: str, wide: bool) -> None:
    from tilesweep.jobs.summary import format_summary
    typer.echo(format_summary(frame, fmt, wide))


class Printer(SweepEvents):
    """A sweep's run on stderr: its plan, a progress bar, table builds, kernels, and what
    befalls the cluster."""

    def __init__(self, run, check_heuristics: bool = False):
        self.run, self.checking, self.plan = run, check_heuristics, None
        self.bar, self.build_line = ProgressBar(), BuildProgressLine()

    def check(self, spec, store) -> None:
        if self.checking:
            _check_heuristics(spec, store)

    def scheduler_file_wait(self, path, seconds) -> None:
        typer.echo(f"waiting up to {seconds:g} s for the Dask scheduler file {path!r}", err=True)

    def planned(self, plan) -> None:
        self.plan, spec = plan, plan.spec
        _report_repairs(plan)
        typer.echo(f"sweep {spec.name}: {spec.count} instances x {len(spec.combos)} runs in "
                   f"{spec.n_chunks} chunks ({len(plan.done)} already done) -> {spec.folder}", err=True)

    def kernels(self, event) -> None:
        self.bar.kernels(event)

    def progress(self, progress) -> None:
        self.bar(progress)

    def layer(self, progress) -> None:
        self.build_line(progress)

    def tables(self, names, store) -> None:
        typer.echo(f"pattern databases for {', '.join(names)}: store {store} (missing tables are built once)",
                   err=True)

    def dashboard(self, link) -> None:
        typer.echo(f"dashboard: {link}", err=True)

    def parallel_row(self, index, heuristic) -> None:
        typer.echo(f"instance {index} (idastar, {heuristic}) passed {self.run.parallel_above:,} nodes: "
                   "parallel IDA* on every worker", err=True)

    def no_workers(self, seconds, address, wait, jobs) -> None:
        stops = f"the sweep stops after {wait:g} s without one (--worker-wait)"
        if jobs is not None:
            typer.echo(f"\nwaiting for workers: 0 of {jobs} {BATCH_NAMES[self.run.cluster]} job(s) submitted run a "
                       f"worker after {seconds:.0f} s (the queue says why: {QUEUE_COMMANDS[self.run.cluster]}); "
                       f"{stops}", err=True)
        else:
            typer.echo(f"\nno Dask worker at the scheduler {address} for {seconds:.0f} s; {stops}", err=True)

    def scheduler_lost(self, error, wait) -> None:
        typer.echo(f"error: {error}", err=True)
        typer.echo(f"waiting up to {wait:g} s for the scheduler to come back ($TILESWEEP_RECONNECT_SECONDS)",
                   err=True)

    def ran(self, seconds, isolated) -> None:
        typer.echo(f"wall time {seconds:.1f} s", err=True)
        if isolated:
            typer.echo(f"{isolated} solve(s) killed every worker that ran them and are recorded with status "
                       "error (reason worker_died); rerun with --retry-errors to try them again", err=True)


def _report_repairs(plan) -> None:
    """One line per file the resume moved aside or rebuilt, and the count of parts adopted."""
    if plan.rebuilt:
        typer.echo(plan.rebuilt, err=True)
    for source, target, why in plan.moved:
        typer.echo(f"moved aside: {str(source)!r} {why}; it is now {str(target)!r}", err=True)
    if plan.adopted:
        typer.echo(f"adopted {plan.adopted} part(s) written before part checksums were recorded: each read in "
                   "full and recorded in manifest.jsonl", err=True)


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


def _detach(spec, run, retry_errors: bool, printer: Printer) -> None:
    """Plan the sweep and start its client in the background, in a session of its own (a
    closed terminal does not stop it), its output in the sweep's folder; record it and say
    how to follow it."""
    import shlex
    import signal
    import subprocess
    import sys

    from tilesweep.cluster.runner import plan_sweep, resume_command
    from tilesweep.jobs.client import LOG, record_client

    plan, _ = run_guarded(lambda: plan_sweep(spec, run, retry_errors, printer, background=True))
    _report_repairs(plan)
    command = resume_command(spec, run, retry_errors, PROGRAM)
    args = shlex.split(resume_command(spec, run, retry_errors))[1:]
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


def _stop(spec, run, retry_errors: bool, reason: str, code: int) -> None:
    """End an unfinished sweep with ``reason``, the chunks saved and the resume command."""
    from tilesweep.cluster.runner import resume_command
    from tilesweep.jobs.resume import saved_parts

    saved = len(saved_parts(spec))  # from disk: Ctrl-C may land between a part's rename and its count
    resume = resume_command(spec, run, retry_errors, PROGRAM)
    typer.echo(f"{reason}: {saved} of {spec.n_chunks} chunks are saved in {spec.folder}; resume with:\n"
               f"  {resume}", err=True)
    raise typer.Exit(code)
