"""A sweep's options as given: typed, read from a TOML spec, merged.

:class:`SweepOptions` holds every option of a sweep as the command line, a TOML spec file
(:func:`read_toml`) or the Python API gives it, each parsed to its type by the parsers of
:data:`OPTION_PARSERS` (which typer also calls at the command line's edge); None is "not
given". :func:`merge_options` lays the command line's over the file's over :data:`DEFAULTS`;
:func:`tilesweep.jobs.spec.build_spec` then validates the result into a ``SweepSpec`` and
its :class:`RunOptions` (where the sweep runs, never part of its identity).
"""

from __future__ import annotations

import json
import tomllib
from dataclasses import dataclass, fields, replace
from pathlib import Path

from tilesweep.solver.conventions import parse_conventions
from tilesweep.solver.errors import InvalidOptionError
from tilesweep.solver.options import MAX_NODES, check_size, parse_seconds, whole_number
from tilesweep.solver.solve import check_memory, check_time_limit

from .sources import InstanceSource

TOML_KEYS = {"size": "size", "goal": "goal", "instances": "instances", "count": "count",
             "seed": "seed", "algorithm": "algorithms", "algorithms": "algorithms",
             "heuristic": "heuristics", "heuristics": "heuristics", "max-nodes": "max_nodes",
             "max_nodes": "max_nodes", "chunk-size": "chunk_size", "chunk_size": "chunk_size",
             "name": "name", "out": "out", "store": "store", "scheduler": "scheduler",
             "scheduler-file": "scheduler_file", "scheduler_file": "scheduler_file",
             "workers": "workers", "time-limit": "time_limit", "time_limit": "time_limit",
             "cpu-time-limit": "cpu_time_limit", "cpu_time_limit": "cpu_time_limit",
             "max-memory": "max_memory", "max_memory": "max_memory", "prune": "prune",
             "parallel-above": "parallel_above", "parallel_above": "parallel_above",
             "worker-wait": "worker_wait", "worker_wait": "worker_wait", "cluster": "cluster",
             "wait-for-workers": "wait_for_workers", "wait_for_workers": "wait_for_workers",
             "jobs": "jobs", "max-jobs": "max_jobs", "max_jobs": "max_jobs",
             "cluster-option": "cluster_options", "cluster_options": "cluster_options",
             "plugins": "plugin_files", "plugin": "plugin_files", "repeat": "repeat",
             "conventions": "conventions"}
RUN_KEYS = ("store", "scheduler", "workers", "parallel_above", "worker_wait", "cluster", "jobs", "max_jobs",
            "cluster_options", "scheduler_file", "wait_for_workers")
# Where a sweep's workers come from besides a scheduler address: this machine, or batch jobs
CLUSTER_KINDS = ("local", "slurm", "pbs", "sge")


# Instances a sweep may have, checked before any work: a billion is 28 CPU hours of the
# fastest solves (0.1 ms). The chunks they go in are capped too (jobs.spec.MAX_CHUNKS).
MAX_COUNT = 10**9
# Timings of one solve (--repeat): a timing study wants a few, and each costs a solve
MAX_REPEAT = 100


def _whole(name: str, minimum: int, maximum: int | None = None):
    return lambda value: whole_number(name, value, minimum, maximum)


def parse_cluster(value) -> str:
    if value not in CLUSTER_KINDS:
        raise InvalidOptionError(f"cluster {value!r} is not known; expected one of: {', '.join(CLUSTER_KINDS)}")
    return value


def parse_cluster_options(items) -> tuple[str, ...]:
    """``--cluster-option KEY=VALUE`` texts, or a spec's ``[cluster]`` table (each value
    written as JSON, which reads back as the same YAML value), as ``KEY=VALUE`` texts."""
    if isinstance(items, dict):
        items = [f"{key}={json.dumps(value)}" for key, value in items.items()]
    for item in items:
        key, sep, _ = str(item).partition("=")
        if not sep or not key.strip():
            raise InvalidOptionError(f"cluster-option {item!r} is not KEY=VALUE; expected e.g. "
                                     "account=myproject or walltime=02:00:00")
    return tuple(str(item) for item in items)


def parse_chunk_size(value) -> int | str:
    """Instances per task, or ``auto`` (tasks of ~2 s, see :func:`auto_chunk_size`)."""
    return "auto" if value == "auto" else whole_number("chunk-size", value, 1)


# The parsers of the options that are not plain text, shared by the CLI (typer calls them
# when it parses the command line) and by spec files, so a value means the same wherever
# it was given and the spec is built from typed values only.
OPTION_PARSERS = {"size": check_size, "count": _whole("count", 1, MAX_COUNT), "seed": _whole("seed", 0),
                  "max_nodes": _whole("max-nodes", 1, MAX_NODES), "chunk_size": parse_chunk_size,
                  "workers": _whole("workers", 1), "parallel_above": _whole("parallel-above", 1, MAX_NODES),
                  "time_limit": check_time_limit,
                  "cpu_time_limit": lambda value: check_time_limit(value, "cpu-time-limit"),
                  "worker_wait": lambda value: parse_seconds("worker-wait", value, True),
                  "wait_for_workers": _whole("wait-for-workers", 1),
                  "max_memory": check_memory, "instances": InstanceSource.parse, "cluster": parse_cluster,
                  "jobs": _whole("jobs", 1), "max_jobs": _whole("max-jobs", 1),
                  "cluster_options": parse_cluster_options, "repeat": _whole("repeat", 1, MAX_REPEAT),
                  "conventions": lambda value: parse_conventions(value).name}


def parse_options(options: dict) -> dict:
    """``options`` with every value of :data:`OPTION_PARSERS` parsed (None stays None)."""
    return {k: OPTION_PARSERS[k](v) if k in OPTION_PARSERS and v is not None else v for k, v in options.items()}


@dataclass(frozen=True)
class SweepOptions:
    """A sweep's options as given on the command line, in a TOML spec or to the Python API,
    each parsed to its type (:data:`OPTION_PARSERS`); None is "not given". :func:`build_spec`
    lays the command line's over the file's over :data:`DEFAULTS`."""

    # what decides the rows: the fields of SweepSpec
    size: int | None = None
    goal: str | None = None
    instances: InstanceSource | None = None
    count: int | None = None
    seed: int | None = None
    algorithms: tuple[str, ...] | None = None
    heuristics: tuple[str, ...] | None = None
    max_nodes: int | None = None
    chunk_size: int | str | None = None  # or "auto"
    name: str | None = None
    out: str | None = None
    time_limit: float | None = None
    max_memory: int | None = None
    prune: str | None = None
    plugin_files: tuple[str, ...] | None = None
    cpu_time_limit: float | None = None
    repeat: int | None = None
    conventions: str | None = None
    # where it runs: the fields of RunOptions (RUN_KEYS)
    store: str | None = None
    scheduler: str | None = None
    workers: int | None = None
    parallel_above: int | None = None
    worker_wait: float | None = None
    cluster: str | None = None
    jobs: int | None = None
    max_jobs: int | None = None
    cluster_options: tuple[str, ...] | None = None
    scheduler_file: str | None = None
    wait_for_workers: int | None = None

    @classmethod
    def parse(cls, values: "dict | SweepOptions") -> "SweepOptions":
        """Options from text or typed ``values``, each parsed; an empty list is not given
        either (a command line's repeatable option left out)."""
        if isinstance(values, SweepOptions):
            values = {f.name: getattr(values, f.name) for f in fields(values)}
        return cls(**parse_options({k: v for k, v in values.items() if v is not None and v != ()}))

    def over(self, base: "SweepOptions") -> "SweepOptions":
        """``base`` with the options given here in place of its own."""
        return replace(base, **{f.name: getattr(self, f.name) for f in fields(self)
                                if getattr(self, f.name) is not None})

    def run_options(self) -> "RunOptions":
        return RunOptions(**{key: getattr(self, key) for key in RUN_KEYS})


DEFAULTS = SweepOptions(instances=InstanceSource("uniform"), seed=0, algorithms=("idastar",),
                        heuristics=("manhattan",), out="sweeps", prune="parent", plugin_files=(), repeat=1,
                        conventions="korf")


@dataclass(frozen=True)
class RunOptions:
    """Where and how a sweep runs; never part of its identity (``parallel_above`` sends the
    hardest IDA* rows through parallel IDA*, which gives them the same counts)."""

    store: str | None = None
    scheduler: str | None = None
    workers: int | None = None
    parallel_above: int | None = None
    worker_wait: float | None = None  # seconds without a worker before the sweep stops
    cluster: str | None = None  # CLUSTER_KINDS; None: local, unless a scheduler is given
    jobs: int | None = None  # batch jobs of workers, a fixed number
    max_jobs: int | None = None  # or adaptive, from none to this many
    cluster_options: tuple[str, ...] | None = None  # KEY=VALUE settings of the batch jobs
    scheduler_file: str | None = None  # the scheduler's address, in the JSON file Dask writes
    wait_for_workers: int | None = None  # workers that must have joined before the first task

    def args(self) -> list[str]:
        out = []
        for key in RUN_KEYS:
            value = getattr(self, key)
            if key == "cluster_options":
                out += [x for item in value or () for x in ("--cluster-option", item)]
            elif value is not None:
                out += [f"--{key.replace('_', '-')}", str(value)]
        return out

    @property
    def batch(self) -> bool:
        """Whether the workers are batch jobs (Slurm, PBS, SGE)."""
        return self.cluster not in (None, "local")


def read_toml(path: str | Path) -> SweepOptions:
    """Read a sweep spec file into options (its ``max-nodes`` is ``max_nodes``)."""
    path = Path(path)
    if not path.is_file():
        raise InvalidOptionError(f"spec file {str(path)!r} does not exist; expected a TOML sweep spec")
    try:
        data = tomllib.loads(path.read_text())
    except ValueError as err:  # TOMLDecodeError, UnicodeDecodeError, an integer of over 4,300 digits
        raise InvalidOptionError(f"spec file {str(path)!r} is not valid TOML: {err}") from None
    table = data.get("cluster")
    data = data.get("sweep", data)
    out = {}
    if isinstance(table, dict):  # [cluster]: kind, jobs, max-jobs; the rest are the jobs' settings
        table = dict(table)
        data = {**data, **{k: table.pop(k) for k in ("kind", "jobs", "max-jobs", "max_jobs") if k in table}}
        data["cluster"] = data.pop("kind", None)
        out["cluster_options"] = table
    for key, value in data.items():
        if key not in TOML_KEYS:
            raise InvalidOptionError(f"spec file {str(path)!r}: key {key!r} is not known; expected "
                                     f"one of: {', '.join(sorted(TOML_KEYS))}")
        name = TOML_KEYS[key]
        if name in ("algorithms", "heuristics") and isinstance(value, str):
            value = [value]
        if name == "instances":
            value = InstanceSource.parse(value, base=path.parent)  # a file is relative to the spec
        if name == "plugin_files":  # relative to the spec too
            value = tuple(str(path.parent / v) for v in ([value] if isinstance(value, str) else value))
        out[name] = value
    return SweepOptions(**parse_options(out))


def merge_options(options: SweepOptions | dict, toml_path: str | Path | None = None) -> SweepOptions:
    """The command line's ``options`` (typed or text; None: not given) over the TOML spec's
    at ``toml_path`` (if any) over :data:`DEFAULTS`."""
    base = DEFAULTS if toml_path is None else read_toml(toml_path).over(DEFAULTS)
    return SweepOptions.parse(options).over(base)


def check_cluster(run: RunOptions) -> None:
    """Options of batch-job workers only with ``--cluster slurm`` (pbs, sge), and not both scales."""
    scales = [f"--{k.replace('_', '-')}" for k in ("jobs", "max_jobs", "cluster_options") if getattr(run, k)]
    if scales and not run.batch:
        raise InvalidOptionError(f"{scales[0]} sets batch jobs of workers; expected it with --cluster slurm "
                                 "(or pbs, sge)")
    if run.jobs is not None and run.max_jobs is not None:
        raise InvalidOptionError(f"--jobs {run.jobs} and --max-jobs {run.max_jobs} both given; expected one: a "
                                 "fixed number of jobs, or adaptive up to --max-jobs")
    if run.scheduler is not None and run.scheduler_file is not None:
        raise InvalidOptionError(f"--scheduler {run.scheduler} and --scheduler-file {run.scheduler_file} both "
                                 "given; expected one way to the scheduler")
    if run.workers is not None and (run.wait_for_workers or 0) > run.workers:
        raise InvalidOptionError(f"--wait-for-workers {run.wait_for_workers} is more than --workers {run.workers}; "
                                 f"expected at most {run.workers}")
    if run.batch and (run.scheduler is not None or run.scheduler_file is not None or run.workers is not None):
        given = ("--scheduler" if run.scheduler is not None else
                 "--scheduler-file" if run.scheduler_file is not None else "--workers")
        raise InvalidOptionError(f"{given} and --cluster {run.cluster} both given; expected one: the batch jobs "
                                 "start their own scheduler and workers")
