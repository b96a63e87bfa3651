"""The worker plugin: one memory-mapped store, the pruning automaton and warm numba kernels
per worker process."""

from __future__ import annotations

import importlib
import threading

from distributed import WorkerPlugin

import tilesweep
from tilesweep.jobs.kernels import warm_sweep_kernels
from tilesweep.solver.errors import TilesweepError

from .compiling import report_kernels, reported_compiles
from .malloc import relax_heap_trimming
from .share import pull_missing
from .tables import open_tables, read_automaton

# The topic on which a worker of another version says so when it joins a running sweep
VERSION_TOPIC = "tilesweep-version-mismatch"


class VersionMismatchError(TilesweepError):
    """A worker runs another tilesweep version than the client."""


def check_version(expected: str, worker) -> None:
    """Raise :class:`VersionMismatchError` unless this process runs tilesweep ``expected``."""
    if tilesweep.__version__ != expected:
        raise VersionMismatchError(f"worker {worker.address} runs tilesweep {tilesweep.__version__} but this "
                                   f"client runs tilesweep {expected}; install the same version on every "
                                   "worker and the client")


class VersionPlugin(WorkerPlugin):
    """Checks, on every worker (and every worker that joins later), that it runs the
    client's tilesweep version; registered before any task is submitted.

    A worker that joins later runs this check when it registers, where a failure reaches
    no client: it also logs the mismatch as an event on :data:`VERSION_TOPIC`, which the
    sweep's client follows (:class:`~.watch.WorkerWatch`) and stops on.
    """

    def __init__(self, version: str = tilesweep.__version__):
        self.version = version

    def setup(self, worker) -> None:
        try:
            check_version(self.version, worker)
        except VersionMismatchError as err:
            worker.log_event(VERSION_TOPIC, str(err))
            raise


class SweepPlugin(WorkerPlugin):
    """Opens the store once per worker and keeps one sweep's tables mapped read-only.

    Only the store path, heuristic names and where each table can be copied from travel
    (pickled with the plugin); the ``uint8`` tables are mapped from disk in each worker
    process, so the processes of a host share one copy in the page cache.

    ``setup`` runs on the worker's event loop (for a worker that joins later, before it
    starts heartbeating), so it only checks the version. The slow part, copying tables the
    store lacks, mapping them and compiling the kernels (minutes on a loaded machine), is
    :meth:`prepare`, run by the worker's first task in its thread pool while the event loop
    goes on answering the scheduler.
    """

    def __init__(self, name: str, store: str | None, size: int, goal: tuple[int, ...], combos,
                 sources: dict | None = None, prune: str = "parent", instances: str | None = None):
        self.name = name
        self.store = store
        self.size = size
        self.goal = tuple(goal)
        self.combos = tuple(combos)
        self.sources = dict(sources or {})   # file -> (manifest entry, workers holding it)
        self.prune = prune
        self.instances = instances
        self.handle = None
        self.tables: dict = {}
        self.version = tilesweep.__version__
        self.lock = None
        self.prepared = False
        self.refusal: VersionMismatchError | None = None  # setup's, on a worker of another version

    def setup(self, worker) -> None:
        try:
            check_version(self.version, worker)
        except VersionMismatchError as err:
            self.refusal = err
            raise
        relax_heap_trimming()
        self.lock = threading.Lock()
        # pyarrow imports pandas when a chunk builds its first table (0.3 s): load it now,
        # while the worker waits for its first task
        threading.Thread(target=importlib.import_module, args=("pandas",), daemon=True).start()

    def prepare(self) -> None:
        """Copy missing tables from other workers, map the tables, compile the kernels; once.

        Refused on a worker of another version, whose :meth:`setup` failed (Dask keeps
        the plugin all the same): the task fails with the mismatch, not half set up.
        """
        if self.refusal is not None:
            raise self.refusal
        with self.lock:
            if self.prepared:
                return
            heuristics = [h for _, h in self.combos]
            if self.store is not None:
                pull_missing(self.store, self.sources)
                self.handle, self.tables = open_tables(self.store, heuristics, self.size, self.goal)
                read_automaton(self.store, self.prune, self.size)
            with reported_compiles():
                warm_sweep_kernels(self.size, self.goal, self.combos, self.prune, self.instances,
                                   on_wait=lambda: report_kernels("waiting"))
            self.prepared = True

    def teardown(self, worker) -> None:
        close = getattr(self.handle, "close", None)
        if close is not None:
            close()
        self.tables = {}

    def tables_for(self, heuristic: str) -> tuple:
        return self.tables[heuristic]
