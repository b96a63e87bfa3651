"""A sweep's kernels compiled once per machine, before its first chunk is timed.

numba compiles a kernel in the process that first calls it and saves it in its on-disk
cache; another process then loads it in a fraction of a second. Processes that start at
once (a sweep's workers) would each compile the same kernels, so each warms them under
one file lock beside that cache (:func:`compile_lock`): the first compiles, the others
wait and load. The fork server of a sweep's embedded cluster compiles them on both cores:
a second process compiles a part into the cache while it compiles the rest
(:func:`_warm_two_at_once`). What a sweep's chunk calls for a spec is
:func:`warm_sweep_kernels`; every kernel a sweep or a solve can call, for ``tilesweep
warm``, is :func:`warm_steps`.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import threading
from contextlib import ExitStack, contextmanager
from dataclasses import dataclass
from functools import partial
from pathlib import Path
from typing import Callable

from tilesweep.pdb_store.build import warm_build
from tilesweep.pdb_store.files import file_lock
from tilesweep.pdb_store.manifest import read_manifest
from tilesweep.pdb_store.paths import table_filename
from tilesweep.solver.board import goal_tiles
from tilesweep.solver.geometry import SIZES
from tilesweep.solver.heuristics import BLANK_AWARE, heuristic_names, parse_heuristic
from tilesweep.solver.jit import watch_compiles
from tilesweep.solver.solve import ALGORITHMS, INFORMED
from tilesweep.solver.warmup import kernel_family, warm_solve, warm_split, warm_sweep

from .instances import seeded_boards
from .sources import InstanceSource

LOCK_NAME = "tilesweep-compile.lock"
WAIT_UNSAID = 1.0  # seconds: the holder is loading kernels from the cache, not compiling them


def cache_folder() -> Path:
    """numba's cache folder of the solver's kernels: under ``$NUMBA_CACHE_DIR`` if set,
    else ``__pycache__`` beside the source, else (a read-only install) numba's per-user one."""
    from tilesweep.solver.astar import _rehash
    return Path(_rehash._cache._cache_path)  # numba's own choice of folder, read back


@contextmanager
def compile_lock(on_wait=None, family: str | None = None):
    """Hold the machine's compile lock (an ``flock`` in :func:`cache_folder`) for the block;
    ``on_wait()`` runs if another process holds it for more than :data:`WAIT_UNSAID`.
    A ``family`` of kernels that no other warm-up compiles (``builds``) has a lock of its
    own, so it compiles beside them.

    Where the lock cannot be made (a folder numba cannot write either), the block runs
    without it.
    """
    name = LOCK_NAME if family is None else LOCK_NAME.replace(".lock", f"-{family}.lock")
    with ExitStack() as stack:
        try:
            folder = cache_folder()
            folder.mkdir(parents=True, exist_ok=True)
            stack.enter_context(file_lock(folder / name, on_wait, patience=WAIT_UNSAID))
        except OSError:
            pass
        yield


def warm_sweep_kernels(size: int, goal: tuple[int, ...], combos, prune: str = "parent",
                       instances: str | None = None, on_wait=None, two_at_once: bool = False) -> None:
    """Compile, or load from numba's cache, every kernel a chunk of this sweep calls, under
    :func:`compile_lock` (``on_wait`` as there); ``instances``: the sweep's source, whose
    generator a chunk runs when it is seeded (``uniform``, ``walk:K``); ``two_at_once``: a
    second process compiles a part of them meanwhile (:func:`_warm_two_at_once`)."""
    with compile_lock(on_wait):
        if two_at_once:
            _warm_two_at_once(size, goal, combos, prune, instances)
        else:
            _warm_chunk(size, goal, combos, prune, instances)


def split_families(size: int, goal: tuple[int, ...], combos, prune: str) -> tuple[list, list]:
    """(the combinations of the first kernel family, those of the others), families as
    :func:`~tilesweep.solver.warmup.kernel_family` names them."""
    families: dict[tuple, list] = {}
    for algorithm, name in combos:
        families.setdefault(kernel_family(size, goal, algorithm, name, prune), []).append((algorithm, name))
    groups = list(families.values()) or [[]]
    return groups[0], [combo for group in groups[1:] for combo in group]


def _warm_two_at_once(size: int, goal: tuple[int, ...], combos, prune: str, instances: str | None) -> None:
    """Warm the first kernel family here; once a kernel has to compile (not when all load
    from numba's cache), a second process compiles the other families into the cache on
    the other core meanwhile (:func:`warm_beside`), and this one then loads them."""
    first, rest = split_families(size, goal, combos, prune)
    beside = []

    def start_beside() -> None:
        if rest:
            ask = json.dumps({"size": size, "goal": list(goal), "combos": rest, "prune": prune})
            beside.append(subprocess.Popen([sys.executable, "-c", BESIDE, ask], stdin=subprocess.DEVNULL,
                                           stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL))

    with watch_compiles(start_beside):
        _warm_chunk(size, goal, first, prune, instances)
    for process in beside:  # a process that failed leaves its part to be compiled here
        process.wait()
    _warm_chunk(size, goal, rest, prune, None)


BESIDE = "import sys; from tilesweep.jobs.kernels import warm_beside; warm_beside(sys.argv[1])"


def warm_beside(ask: str) -> None:
    """The second process of :func:`_warm_two_at_once`: warm the combinations that ``ask``
    (JSON) names, without the compile lock, which the process that started it holds."""
    ask = json.loads(ask)
    with leaving_with_parent():
        _warm_chunk(ask["size"], tuple(ask["goal"]), [tuple(c) for c in ask["combos"]], ask["prune"], None)


@contextmanager
def leaving_with_parent(poll: float = 0.5):
    """Exit this process if the one that started it goes (a Ctrl-C, a finished no-op run):
    a process busy compiling reads nothing that could tell it so."""
    parent, done = os.getppid(), threading.Event()

    def watch():
        while not done.wait(poll):
            if os.getppid() != parent:
                os._exit(0)

    watcher = threading.Thread(target=watch, daemon=True)
    watcher.start()
    try:
        yield
    finally:
        done.set()
        watcher.join()


def _warm_chunk(size: int, goal: tuple[int, ...], combos, prune: str, instances: str | None) -> None:
    source = None if instances is None else InstanceSource.parse(instances)
    if source is not None and source.seeded:
        seeded_boards(source, 0, size, tuple(goal), 0, 1)
    warm_sweep(size, tuple(goal), combos, prune)


def warm_missing_builds(store: str, size: int, goal: tuple[int, ...], heuristics) -> None:
    """Compile, or load, the kernels that build the tables of ``heuristics`` that ``store``
    lacks (none when it holds them all), under the lock of the ``builds`` family.

    ``tilesweep sweep`` runs it in a thread while the embedded cluster's fork server
    compiles the search kernels: the two compile on two cores, and the worker that builds
    the tables then loads them."""
    tables = [t for name in heuristics if name != "none" for t in parse_heuristic(name, size, goal).tables]
    held = read_manifest(Path(store)) if Path(store).is_dir() else {}
    missing = [g for g, kind in tables if kind == BLANK_AWARE and table_filename(size, goal, g, kind) not in held]
    if missing:  # blank-ignoring builds have one small kernel, compiled by the build itself
        with compile_lock(family="builds"):
            warm_build(size, missing)


@dataclass(frozen=True)
class WarmStep:
    """One part of :func:`warm_steps`: what it warms, and ``run()`` to warm it (without
    the compile lock: a caller holds it around each step)."""

    label: str
    run: Callable[[], None]
    family: str | None = None  # of its compile lock (:func:`compile_lock`)


def warm_steps(sizes=SIZES, algorithms=ALGORITHMS, heuristics=None) -> list[WarmStep]:
    """Every kernel a sweep or a solve of these boards can call, in steps: for each size,
    sweeps and solves (seeded instances, every algorithm with every heuristic, or those
    given), the same with ``--prune fsm``, parallel IDA*, and pattern-database builds.
    A heuristic not offered for a size is left out there."""
    steps = []
    for size in sizes:
        goal = goal_tiles("blank-last", size)
        names = list(heuristics or heuristic_names(size))
        combos = list(dict.fromkeys((a, h if a in INFORMED else "none") for a in algorithms for h in names))
        board = f"{size}x{size}"
        steps.append(WarmStep(f"{board} sweeps and solves", partial(_sweeps_and_solves, size, goal, combos, "parent")))
        steps.append(WarmStep(f"{board} sweeps and solves, --prune fsm",
                              partial(_sweeps_and_solves, size, goal, combos, "fsm:2")))
        if "idastar" in algorithms:
            steps.append(WarmStep(f"{board} parallel IDA*", partial(warm_split, size, goal, names)))
        if any("pdb:" in name for name in names):
            steps.append(WarmStep(f"{board} pattern-database builds", partial(warm_build, size), "builds"))
    return steps


def _sweeps_and_solves(size: int, goal: tuple[int, ...], combos, prune: str) -> None:
    """A sweep's chunk kernels (both seeded generators) and ``solve``'s, for ``combos``."""
    for instances in ("uniform", "walk:2"):
        _warm_chunk(size, goal, combos, prune, instances)
    warm_solve(size, goal, combos, prune)
