"""What a sweep is: its spec, read from CLI options and/or a TOML file, validated up front.

A :class:`SweepSpec` holds everything that decides the result rows: board size, goal,
instance source, count, seed, algorithms x heuristics, node budget and chunk size. Its
:meth:`SweepSpec.fingerprint` identifies the sweep on disk; a sweep folder whose
``sweep.json`` has another fingerprint is refused rather than mixed.

Execution settings (where it runs: scheduler, workers, store) are kept apart in
:class:`RunOptions` because they never change a row.
"""

from __future__ import annotations

import hashlib
import json
import math
import re
import tomllib
from dataclasses import asdict, dataclass, fields, replace
from pathlib import Path

from tilesweep.solver.board import goal_label, goal_tiles
from tilesweep.solver.errors import InvalidOptionError
from tilesweep.solver.fsm import parse_pruning
from tilesweep.solver.heuristics import HeuristicSpec, parse_heuristic
from tilesweep.solver.options import MAX_NODES, check_size, parse_seconds, whole_number
from tilesweep.solver.solve import INFORMED, check_algorithm, check_memory, check_time_limit, check_time_limits

from .plugins import load_files, used_plugins
from .sources import InstanceSource, file_instances_info

SPEC_VERSION = 1
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
             "jobs": "jobs", "max-jobs": "max_jobs", "max_jobs": "max_jobs",
             "cluster-option": "cluster_options", "cluster_options": "cluster_options",
             "plugins": "plugin_files", "plugin": "plugin_files", "repeat": "repeat"}
RUN_KEYS = ("store", "scheduler", "workers", "parallel_above", "worker_wait", "cluster", "jobs", "max_jobs",
            "cluster_options", "scheduler_file")
# Where a sweep's workers come from besides a scheduler address: this machine, or batch jobs
CLUSTER_KINDS = ("local", "slurm", "pbs", "sge")
OPTIONAL_LIMITS = ("time_limit", "max_memory", "cpu_time_limit")


# Limits a sweep is checked against before any work. A billion instances is 28 CPU hours
# of the fastest solves (0.1 ms); each chunk is a task on the scheduler and an entry of the
# plan, which holds them all (72 MB and 5 s for 100,000 here).
MAX_COUNT = 10**9
MAX_CHUNKS = 100_000
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
                  "max_memory": check_memory, "instances": InstanceSource.parse, "cluster": parse_cluster,
                  "jobs": _whole("jobs", 1), "max_jobs": _whole("max-jobs", 1),
                  "cluster_options": parse_cluster_options, "repeat": _whole("repeat", 1, MAX_REPEAT)}


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
                        heuristics=("manhattan",), out="sweeps", prune="parent", plugin_files=(), repeat=1)


TARGET_TASK_SECONDS = 2.0
# Solve times are heavy-tailed (one random 15-puzzle can take 100 times the median), so
# each worker gets several tasks: the last one to finish then leaves a core idle only
# briefly. More is not better: every task costs the client and scheduler a few ms of a
# core the solves need (measured on 2 workers: the solving threads were off-CPU 10 % of
# the time with 30 tasks per worker, 4 % with 8).
TASKS_PER_WORKER = 8
# Rough seconds per solve, used only to pick a default chunk size (tasks of ~2 s). A
# random 15-puzzle takes IDA* seconds with Manhattan distance but milliseconds with a
# large pattern database (measured here: 7-8 ~0.015 s, 6-6-3 ~0.1 s, 5-5-5 ~1 s), so the
# largest PDB group sets the 15-puzzle figure; too small a chunk spends the workers' time
# on per-task overhead. A random 8-puzzle takes A* or IDA* 20-100 us with any heuristic
# (the batch kernels), BFS or DFS (no heuristic) about a millisecond.
SECONDS_PER_SOLVE = {3: 1e-3, 4: 0.5, 5: 30.0}
INFORMED_SECONDS_PER_SOLVE_3X3 = 1e-4
PDB_SECONDS_PER_SOLVE_4X4 = {8: 0.02, 7: 0.05, 6: 0.2}  # by the largest group's tile count
WALK_SECONDS_PER_SOLVE = 2e-3


@dataclass(frozen=True)
class SweepSpec:
    """A validated sweep; ``combos`` are the (algorithm, heuristic) pairs every instance runs."""

    size: int
    goal: str
    instances: InstanceSource
    count: int
    seed: int
    algorithms: tuple[str, ...]
    heuristics: tuple[str, ...]
    max_nodes: int | None
    chunk_size: int
    name: str
    out: str
    instances_sha256: str | None = None
    version: int = SPEC_VERSION
    time_limit: float | None = None
    max_memory: int | None = None
    prune: str = "parent"
    # (name, source sha256, source, file) of each plugin heuristic used: the source goes to
    # the workers with the tasks; the name and hash are part of the identity
    plugins: tuple[tuple[str, str, str, str], ...] = ()
    cpu_time_limit: float | None = None  # seconds of the solving thread's CPU time (or time_limit: wall)
    repeat: int = 1  # times each solved row is timed (--repeat; its nodes must agree every time)

    @property
    def combos(self) -> tuple[tuple[str, str], ...]:
        return combinations(self.algorithms, self.heuristics)

    @property
    def goal_tuple(self) -> tuple[int, ...]:
        return goal_tiles(self.goal, self.size)

    @property
    def folder(self) -> Path:
        return Path(self.out) / self.name

    @property
    def n_chunks(self) -> int:
        return math.ceil(self.count / self.chunk_size)

    def to_dict(self) -> dict:
        """The fields as JSON values (the instance source as its text)."""
        return {**asdict(self), "instances": str(self.instances)}

    def identity(self) -> dict:
        """The fields that decide the rows (everything but where the folder lives)."""
        data = self.to_dict()
        data.pop("out")
        for key in OPTIONAL_LIMITS:  # unset: left out, so sweeps from before them keep their fingerprint
            if data[key] is None:
                data.pop(key)
        if data["prune"] == "parent":  # the default, as before --prune existed
            data.pop("prune")
        if data["repeat"] == 1:  # the default, as before --repeat existed
            data.pop("repeat")
        if data["plugins"]:
            data["plugins"] = [[name, sha] for name, sha, *_ in self.plugins]
        else:  # none: left out, as before plugins existed
            data.pop("plugins")
        return data

    def fingerprint(self) -> str:
        """sha256 of :meth:`identity` as canonical JSON."""
        text = json.dumps(self.identity(), sort_keys=True, separators=(",", ":"))
        return hashlib.sha256(text.encode()).hexdigest()

    def to_json(self) -> str:
        return json.dumps({**self.to_dict(), "fingerprint": self.fingerprint()}, indent=2, sort_keys=True)

    @classmethod
    def from_json(cls, text: str) -> "SweepSpec":
        data = json.loads(text)
        data.pop("fingerprint", None)
        data["algorithms"] = tuple(data["algorithms"])
        data["heuristics"] = tuple(data["heuristics"])
        data["instances"] = InstanceSource.parse(data["instances"])
        data["plugins"] = tuple(tuple(p) for p in data.get("plugins", ()))
        return cls(**data)

    def command(self, run: "RunOptions | None" = None, prog: str = "tilesweep") -> str:
        """A ``tilesweep sweep`` command line that reruns (and so resumes) this sweep."""
        args = [prog, "sweep", *[x for p in self.plugins for x in ("--plugin", _quote(p[3]))],
                "--size", str(self.size), "--goal", _quote(self.goal),
                "--instances", _quote(str(self.instances)), "--count", str(self.count),
                "--seed", str(self.seed)]
        args += [x for a in self.algorithms for x in ("--algorithm", a)]
        args += [x for h in self.heuristics for x in ("--heuristic", _quote(h))]
        if self.max_nodes is not None:
            args += ["--max-nodes", str(self.max_nodes)]
        if self.time_limit is not None:
            args += ["--time-limit", repr(self.time_limit)]
        if self.cpu_time_limit is not None:
            args += ["--cpu-time-limit", repr(self.cpu_time_limit)]
        if self.max_memory is not None:
            args += ["--max-memory", str(self.max_memory)]
        if self.prune != "parent":
            args += ["--prune", self.prune]
        if self.repeat != 1:
            args += ["--repeat", str(self.repeat)]
        args += ["--chunk-size", str(self.chunk_size), "--name", _quote(self.name),
                 "--out", _quote(self.out)]
        if run is not None:
            args += run.args()
        return " ".join(args)


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

    def args(self) -> list[str]:
        out = []
        for key in RUN_KEYS:
            value = getattr(self, key)
            if key == "cluster_options":
                out += [x for item in value or () for x in ("--cluster-option", _quote(item))]
            elif value is not None:
                out += [f"--{key.replace('_', '-')}", _quote(str(value))]
        return out

    @property
    def batch(self) -> bool:
        """Whether the workers are batch jobs (Slurm, PBS, SGE)."""
        return self.cluster not in (None, "local")


def _quote(text: str) -> str:
    return text if re.fullmatch(r"[\w.:/+,=@%-]+", text) else "'" + text.replace("'", "'\\''") + "'"


def combinations(algorithms, heuristics) -> tuple[tuple[str, str], ...]:
    """Every informed algorithm with every heuristic; uninformed ones once, with ``none``."""
    out = []
    for algorithm in algorithms:
        for heuristic in (heuristics if algorithm in INFORMED else ("none",)):
            if (algorithm, heuristic) not in out:
                out.append((algorithm, heuristic))
    return tuple(out)


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


def _names(name: str, value) -> tuple[str, ...]:
    if isinstance(value, str):
        value = (value,)
    if not isinstance(value, (list, tuple)) or not value or not all(isinstance(v, str) for v in value):
        raise InvalidOptionError(f"{name} {value!r} is not a list of names")
    return tuple(dict.fromkeys(value))


def _size_goal(size: int | None, goal, source: InstanceSource) -> tuple[int, str]:
    """Size and goal label; a bundled set (korf100, korf50-24) fixes both and refuses others."""
    if goal is not None and not isinstance(goal, str):
        raise InvalidOptionError(f"goal {goal!r} is not a goal name or tile list")
    bundled = source.bundled
    if bundled is not None:
        if size not in (None, bundled.size):
            raise InvalidOptionError(f"size {size!r} does not fit instances {source.kind!r}, which are "
                                     f"{bundled.what} (size {bundled.size})")
        if goal is not None and goal_tiles(goal, bundled.size) != goal_tiles(bundled.goal, bundled.size):
            raise InvalidOptionError(f"goal {goal!r} does not fit instances {source.kind!r}, whose goal "
                                     f"is {bundled.goal}")
        return bundled.size, bundled.goal
    size = 3 if size is None else size
    return size, goal_label(goal_tiles(goal or "blank-last", size))


def seconds_per_solve(size: int, source: InstanceSource, heuristic: HeuristicSpec | None) -> float:
    """A rough guess of one solve's time, for :func:`auto_chunk_size` only."""
    if source.kind == "walk" and size > 3:
        return WALK_SECONDS_PER_SOLVE
    if size == 3 and heuristic is not None:
        return INFORMED_SECONDS_PER_SOLVE_3X3
    if size == 4 and heuristic is not None and heuristic.is_pdb:
        return PDB_SECONDS_PER_SOLVE_4X4.get(max(len(g) for g in heuristic.groups), SECONDS_PER_SOLVE[4])
    return SECONDS_PER_SOLVE[size]


def auto_chunk_size(size: int, source: InstanceSource, count: int, heuristics, workers: int, repeat: int = 1) -> int:
    """Instances per task so a task takes ~2 s, with at least ``TASKS_PER_WORKER`` per worker.

    ``heuristics`` holds one parsed heuristic (None for an uninformed algorithm) per
    (algorithm, heuristic) pair that every instance runs, each solve ``repeat`` times.
    """
    per_instance = repeat * (sum(seconds_per_solve(size, source, h) for h in heuristics) or SECONDS_PER_SOLVE[size])
    by_time = int(TARGET_TASK_SECONDS / per_instance)
    by_balance = math.ceil(count / (TASKS_PER_WORKER * max(1, workers)))
    return max(1, min(by_time, by_balance), math.ceil(count / MAX_CHUNKS))


def default_name(rows: dict, fingerprint: str) -> str:
    """``8puzzle-uniform-n1000-s0-<hash>``: readable, unique per spec (``rows``: its fields)."""
    slug = rows["instances"].slug()
    return f"{rows['size'] ** 2 - 1}puzzle-{slug}-n{rows['count']}-s{rows['seed']}-{fingerprint[:8]}"


def build_spec(options: SweepOptions | dict, toml_path: str | None = None,
               workers: int = 2) -> tuple[SweepSpec, RunOptions]:
    """Merge a TOML spec (if any) with the command line's ``options`` (these win; None means
    not given) over :data:`DEFAULTS`.

    Values may be typed or text (a library caller's dict); both go through :func:`parse_options`.

    Raises
    ------
    InvalidOptionError, InvalidBoardError, UnknownNameError
        One line quoting the first bad value.
    """
    base = DEFAULTS if toml_path is None else read_toml(toml_path).over(DEFAULTS)
    merged = SweepOptions.parse(options).over(base)
    run = merged.run_options()
    check_cluster(run)
    return _validate(merged, workers if run.workers is None else run.workers), run


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
    if run.batch and (run.scheduler is not None or run.scheduler_file is not None or run.workers is not None):
        given = ("--scheduler" if run.scheduler is not None else
                 "--scheduler-file" if run.scheduler_file is not None else "--workers")
        raise InvalidOptionError(f"{given} and --cluster {run.cluster} both given; expected one: the batch jobs "
                                 "start their own scheduler and workers")


def _validate(opts: SweepOptions, workers: int) -> SweepSpec:
    """The spec of ``opts`` (defaults filled in), every value checked; its name and chunk
    size chosen last, as they depend on the rest."""
    source, size = opts.instances, opts.size
    digest, available = None, (source.bundled.count if source.bundled else None)
    if source.kind == "file":
        size, available, digest = file_instances_info(source.path, size)
    size, goal = _size_goal(size, opts.goal, source)
    count = (available or 100) if opts.count is None else opts.count
    if available is not None and count > available:
        raise InvalidOptionError(f"count {count!r} is more than the {available} instances of {str(source)!r}")
    algorithms = tuple(check_algorithm(a) for a in _names("algorithm", opts.algorithms))
    heuristics = _names("heuristic", opts.heuristics)
    goal_tuple = goal_tiles(goal, size)
    load_files(opts.plugin_files)
    for h in heuristics:
        parse_heuristic(h, size, goal_tuple)
    used = used_plugins([h for a, h in combinations(algorithms, heuristics)], size, goal_tuple)
    rows = dict(size=size, goal=goal, instances=source, count=count, seed=opts.seed, algorithms=algorithms,
                heuristics=heuristics, max_nodes=opts.max_nodes, out=str(opts.out), instances_sha256=digest,
                time_limit=opts.time_limit, max_memory=opts.max_memory, prune=str(parse_pruning(opts.prune, size)),
                plugins=used, cpu_time_limit=check_time_limits(opts.time_limit, opts.cpu_time_limit)[1],
                repeat=opts.repeat)
    name = opts.name or default_name(rows, _unchunked(rows).fingerprint())
    if not isinstance(name, str) or not re.fullmatch(r"[\w.-]+", name) or name.startswith("."):
        raise InvalidOptionError(f"name {name!r} is not a folder name; use letters, digits, '.', '_' and '-'")
    return _check_chunks(SweepSpec(**rows, name=name, chunk_size=_chunk_size(rows, name, opts.chunk_size, workers)))


def _unchunked(rows: dict, name: str = "") -> SweepSpec:
    """The spec of ``rows`` before its chunk size (0) and, unnamed, its name ("") are chosen:
    what a default name hashes and a stored chunk size is matched on, as they always were."""
    return SweepSpec(**rows, name=name, chunk_size=0)


def _check_chunks(spec: SweepSpec) -> SweepSpec:
    """``spec`` if it has at most :data:`MAX_CHUNKS` chunks, else an error naming the chunk size it needs."""
    if spec.n_chunks > MAX_CHUNKS:
        raise InvalidOptionError(f"chunk-size {spec.chunk_size} splits {spec.count:,} instances into "
                                 f"{spec.n_chunks:,} chunks; expected at most {MAX_CHUNKS:,} chunks (each is a task): "
                                 f"a chunk size of at least {math.ceil(spec.count / MAX_CHUNKS):,}")
    return spec


def _chunk_size(rows: dict, name: str, given, workers: int) -> int:
    """The given chunk size; else the one of an existing sweep of this spec; else automatic."""
    if given not in (None, "auto"):
        return given
    spec = _unchunked(rows, name)
    stored = spec.folder / "sweep.json"
    if stored.is_file():
        try:
            old = SweepSpec.from_json(stored.read_text())
        except (ValueError, TypeError, KeyError):
            old = None  # reported when the folder is opened
        if old is not None and {**old.identity(), "chunk_size": 0} == spec.identity():
            return old.chunk_size
    heuristics = [parse_heuristic(h, spec.size, spec.goal_tuple) if h != "none" else None for _, h in spec.combos]
    return auto_chunk_size(spec.size, spec.instances, spec.count, heuristics, workers, spec.repeat)
