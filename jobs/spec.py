"""What a sweep is: its spec, built from its options (:mod:`tilesweep.jobs.options`: the
command line's over a TOML file's over the defaults) and validated up front.

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
import shlex
from dataclasses import asdict, dataclass
from pathlib import Path

from tilesweep.solver.board import goal_label, goal_tiles
from tilesweep.solver.conventions import parse_conventions
from tilesweep.solver.errors import InvalidOptionError
from tilesweep.solver.fsm import parse_pruning
from tilesweep.solver.heuristics import HeuristicSpec, parse_heuristic, search_heuristic
from tilesweep.solver.solve import INFORMED, check_algorithm, check_conventions, check_time_limits

from .options import RunOptions, SweepOptions, check_cluster, merge_options
from .plugins import load_files, used_plugins
from .sources import InstanceSource, file_instances_info

SPEC_VERSION = 1
OPTIONAL_LIMITS = ("time_limit", "max_memory", "cpu_time_limit")
# Chunks a sweep may have, checked before any work: each chunk is a task on the scheduler and
# an entry of the plan, which holds them all (72 MB and 5 s for 100,000 here).
MAX_CHUNKS = 100_000

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
    conventions: str = "korf"  # what the searches do and count (solver.conventions), canonical text

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

    def summary_baseline(self, chosen: str | None = None) -> str | None:
        """The heuristic the summary compares with: ``chosen``, else the first of several."""
        return chosen if chosen is not None else (self.heuristics[0] if len(self.heuristics) > 1 else None)

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
        if data["conventions"] == "korf":  # the default, as before --conventions existed
            data.pop("conventions")
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
        if not isinstance(data, dict):
            raise InvalidOptionError(f"sweep.json holds {type(data).__name__} {data!r:.60}; expected an object")
        data.pop("fingerprint", None)
        _check_types(data)
        data["algorithms"] = tuple(check_algorithm(a) for a in data["algorithms"])
        data["heuristics"] = tuple(data["heuristics"])
        data["instances"] = InstanceSource.parse(data["instances"])
        data["plugins"] = tuple(tuple(p) for p in data.get("plugins", ()))
        return cls(**data)

    def command(self, run: "RunOptions | None" = None, prog: str = "tilesweep") -> str:
        """A ``tilesweep sweep`` command line that reruns (and so resumes) this sweep."""
        args = ["sweep", *[x for p in self.plugins for x in ("--plugin", p[3])],
                "--size", str(self.size), "--goal", self.goal,
                "--instances", str(self.instances), "--count", str(self.count), "--seed", str(self.seed)]
        args += [x for a in self.algorithms for x in ("--algorithm", a)]
        args += [x for h in self.heuristics for x in ("--heuristic", h)]
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
        if self.conventions != "korf":
            args += ["--conventions", self.conventions]
        args += ["--chunk-size", str(self.chunk_size), "--name", self.name, "--out", self.out]
        if run is not None:
            args += run.args()
        return f"{prog} {shlex.join(args)}"  # prog may be several words (python -m tilesweep)


# The JSON type of each field of sweep.json (a bool is no number here, though Python says so).
_INT, _NUMBER, _NAMES = (int,), (int, float), "names"
FIELD_TYPES = {"size": _INT, "goal": (str,), "instances": (str,), "count": _INT, "seed": _INT,
               "algorithms": _NAMES, "heuristics": _NAMES, "max_nodes": _INT + (type(None),),
               "chunk_size": _INT, "name": (str,), "out": (str,), "instances_sha256": (str, type(None)),
               "version": _INT, "time_limit": _NUMBER + (type(None),), "max_memory": _INT + (type(None),),
               "prune": (str,), "plugins": "plugins", "cpu_time_limit": _NUMBER + (type(None),),
               "repeat": _INT, "conventions": (str,)}
_WHAT = {_INT: "a whole number", _NAMES: "a list of names", "plugins": "a list of [name, sha256, source, file]"}


def _check_types(data: dict) -> None:
    """Refuse a field of ``sweep.json`` of the wrong JSON type, naming it and its value."""
    for key, value in data.items():
        expected = FIELD_TYPES.get(key)
        if expected is None:
            raise InvalidOptionError(f"sweep.json field {key!r} is not known; expected only {', '.join(FIELD_TYPES)}")
        if not _has_type(value, expected):
            what = _WHAT.get(expected) or " or ".join("null" if t is type(None) else t.__name__ for t in expected)
            raise InvalidOptionError(f"sweep.json field {key!r} is {value!r}; expected {what}")


def _has_type(value, expected) -> bool:
    if expected == _NAMES:
        return isinstance(value, list) and all(isinstance(v, str) for v in value)
    if expected == "plugins":
        return isinstance(value, list) and all(
            isinstance(p, list) and len(p) == 4 and all(isinstance(x, str) for x in p) for p in value)
    return isinstance(value, expected) and not isinstance(value, bool)


def combinations(algorithms, heuristics) -> tuple[tuple[str, str], ...]:
    """Every informed algorithm with every heuristic; uninformed ones once, with ``none``."""
    out = []
    for algorithm in algorithms:
        for heuristic in (heuristics if algorithm in INFORMED else ("none",)):
            if (algorithm, heuristic) not in out:
                out.append((algorithm, heuristic))
    return tuple(out)


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
    """The spec and run options of the command line's ``options`` laid over the TOML spec's
    (if any) over the defaults (:func:`~tilesweep.jobs.options.merge_options`; None means not
    given). Values may be typed or text (a library caller's dict); both are parsed.

    Raises
    ------
    InvalidOptionError, InvalidBoardError, UnknownNameError
        One line quoting the first bad value.
    """
    merged = merge_options(options, toml_path)
    run = merged.run_options()
    check_cluster(run)
    return _validate(merged, workers if run.workers is None else run.workers), run


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
    pruning, conventions = parse_pruning(opts.prune, size), parse_conventions(opts.conventions)
    for a, h in combinations(algorithms, heuristics):
        check_conventions(conventions, a, search_heuristic(h, size, goal_tuple), pruning)
    rows = dict(size=size, goal=goal, instances=source, count=count, seed=opts.seed, algorithms=algorithms,
                heuristics=heuristics, max_nodes=opts.max_nodes, out=str(opts.out), instances_sha256=digest,
                time_limit=opts.time_limit, max_memory=opts.max_memory, prune=str(pruning),
                plugins=used, cpu_time_limit=check_time_limits(opts.time_limit, opts.cpu_time_limit)[1],
                repeat=opts.repeat, conventions=conventions.name)
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
