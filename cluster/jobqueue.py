"""Workers as batch jobs: a dask-jobqueue cluster (Slurm; PBS and SGE by the same path).

The site's settings (account, queue, walltime, cores and memory per job, ``module load``
lines, extra directives) come from Dask's own ``jobqueue.yaml`` as dask-jobqueue reads them;
``--cluster-option KEY=VALUE`` overrides one for a sweep, its value read as JSON, else as
text (``cores=2``, ``job_extra_directives=["--exclusive"]``, ``walltime=02:00:00``).
dask-jobqueue gives each worker the job's memory divided by its processes as its memory
limit, which the solves' memory budget is taken from (:func:`.memory.default_budget`): both
agree with the job's ``--mem``.

dask-jobqueue is an optional extra (``tilesweep[hpc]``), imported only here.
"""

from __future__ import annotations

import importlib
import json
import signal
import subprocess
import tempfile
import threading
from contextlib import contextmanager
from pathlib import Path

import dask

from tilesweep.solver.errors import InvalidOptionError

CLUSTERS = {"slurm": "SLURMCluster", "pbs": "PBSCluster", "sge": "SGECluster"}
# The dashboard of the scheduler this client starts: loopback (an SSH tunnel reaches it).
# The scheduler itself listens where the worker jobs can reach it (the ``interface`` setting).
SCHEDULER_OPTIONS = {"dashboard_address": "127.0.0.1:0"}


def settings(items) -> dict:
    """``KEY=VALUE`` texts (:func:`~tilesweep.jobs.options.parse_cluster_options`) as keyword
    arguments of the cluster class. A value that reads as JSON is that value (``cores=4``,
    ``job_extra_directives=["--exclusive"]``), any other is text (``walltime=02:00:00``)."""
    out = {}
    for item in items or ():
        key, _, text = item.partition("=")
        try:
            value = json.loads(text)
        except ValueError:
            value = text
        out[key.strip().replace("-", "_")] = value
    return out


def cluster_class(kind: str):
    previous = signal.getsignal(signal.SIGINT)
    try:
        module = importlib.import_module("dask_jobqueue")
    except ImportError:
        raise InvalidOptionError(f"cluster {kind!r} needs dask-jobqueue, which is not installed; expected "
                                 "pip install 'tilesweep[hpc]'") from None
    finally:
        # Importing it makes a Ctrl-C (and `tilesweep cancel`) exit 0 in silence (its runner
        # module's handler calls sys.exit()): the sweep's own handling is put back.
        if threading.current_thread() is threading.main_thread():
            signal.signal(signal.SIGINT, previous)
    return getattr(module, CLUSTERS[kind])


def job_options(kind: str, options: dict, logs: Path | None) -> dict:
    """The cluster's keyword arguments: one single-threaded worker process per core (numba
    kernels never share a GIL), job logs in ``logs``; ``options`` win."""
    out = {"scheduler_options": dict(SCHEDULER_OPTIONS)}
    cores = options.get("cores", dask.config.get(f"jobqueue.{kind}.cores", None))
    if cores and "processes" not in options and not dask.config.get(f"jobqueue.{kind}.processes", None):
        out["processes"] = cores
    if logs is not None and not dask.config.get(f"jobqueue.{kind}.log-directory", None):
        out["log_directory"] = str(logs)
    scheduler = options.pop("scheduler_options", None) or {}
    out.update(options)
    out["scheduler_options"].update(scheduler)
    return out


def batch_options(spec, run) -> dict | None:
    """The keyword arguments of :func:`job_cluster` for a sweep whose workers are batch jobs
    (``run``: its :class:`~tilesweep.jobs.options.RunOptions`), their logs in the sweep's
    ``jobs/`` folder; None for other clusters."""
    if not run.batch:
        return None
    return dict(kind=run.cluster, options=run.cluster_options, jobs=run.jobs, max_jobs=run.max_jobs,
                logs=spec.folder / "jobs")


@contextmanager
def job_cluster(kind: str, options, jobs: int | None, max_jobs: int | None, logs: Path | None = None):
    """Yield a started dask-jobqueue cluster of ``kind`` (``options``: ``KEY=VALUE`` texts) scaled to ``jobs``
    (fixed) or adaptive from 0 to ``max_jobs``; closing it cancels its jobs."""
    cls = cluster_class(kind)
    kwargs = job_options(kind, settings(options), logs)
    try:
        cluster = cls(**kwargs)
    except (TypeError, ValueError) as err:  # an unknown option, or cores/memory not set anywhere
        raise InvalidOptionError(f"cluster {kind!r} cannot be made from its settings ({err}); expected "
                                 f"jobqueue.{kind} in Dask's jobqueue.yaml or --cluster-option KEY=VALUE "
                                 "(e.g. cores=4 memory=8GB)") from None
    with cluster:
        if kind == "slurm":
            check_slurm_job(cluster.job_script(), options)
        if max_jobs is not None:
            cluster.adapt(minimum_jobs=0, maximum_jobs=max_jobs)
        else:
            cluster.scale(jobs=jobs or 1)
        yield cluster


def check_slurm_job(script: str, options) -> None:
    """Ask Slurm whether it would take a worker job (``sbatch --test-only``: nothing is
    submitted), so a job no node can satisfy is one line now, not a traceback from the
    cluster's background submission and a wait for workers that never come."""
    with tempfile.NamedTemporaryFile("w", suffix=".sh") as file:
        file.write(script)
        file.flush()
        try:
            done = subprocess.run(["sbatch", "--test-only", file.name], capture_output=True, text=True, timeout=60)
        except (OSError, subprocess.TimeoutExpired) as err:
            raise InvalidOptionError(f"cluster 'slurm' cannot submit a job ({err}); expected sbatch on PATH "
                                     "and a Slurm controller that answers") from None
    if done.returncode != 0:
        errors = [line.removeprefix("sbatch: error: ").strip() for line in done.stderr.splitlines() if line.strip()]
        reason = "; ".join(errors) or f"sbatch exit {done.returncode}"
        given = " ".join(options or ()) or "none"
        raise InvalidOptionError(f"Slurm refuses the worker job ({reason}); "
                                 f"--cluster-option given: {given}; expected cores, memory, walltime and partition "
                                 "that a node of this cluster can satisfy")
