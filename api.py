"""tilesweep from Python: define a sweep, run it on a cluster, follow it, read its rows and
summary as pandas DataFrames, solve one board.

The calls the command line makes, with keyword arguments instead of options::

    import tilesweep
    sweep = tilesweep.define_sweep(size=3, count=200, heuristics=["manhattan", "linear-conflict"])
    summary = sweep.run(workers=2, on_progress=print)
    rows = sweep.results()

Errors are :class:`~tilesweep.solver.errors.TilesweepError` (bad input also a
``ValueError``); each one's text is the line the command line prints. ``docs/python-api.md``
is the guide.
"""

from __future__ import annotations

import logging
import os
import queue
import threading
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass, replace
from pathlib import Path
from typing import TYPE_CHECKING

from tilesweep.cluster.events import SweepEvents
from tilesweep.jobs.options import RUN_KEYS, RunOptions, SweepOptions, check_cluster, parse_options
from tilesweep.jobs.plugins import load_files
from tilesweep.jobs.progress import SPEC_FILE, SweepState, sweep_state
from tilesweep.jobs.spec import SweepSpec, build_spec
from tilesweep.solver import Board, SolveResult, parse_heuristic, solve
from tilesweep.solver.conventions import parse_conventions
from tilesweep.solver.errors import InvalidOptionError
from tilesweep.solver.plugins import negative_message
from tilesweep.solver.solve import check_algorithm, check_conventions, resolve_goal

# Dask and pandas load when a sweep runs or is read, not for solve_board (the CLI's solve
# calls it, and a second of imports would double a small solve's time).
if TYPE_CHECKING:
    import pandas as pd

    from tilesweep.cluster.run import Progress

__all__ = ["Sweep", "SweepRun", "define_sweep", "open_sweep", "predict", "solve_board"]


def _names(value) -> tuple[str, ...]:
    """One name or several, as a tuple."""
    return (value,) if isinstance(value, (str, Path)) else tuple(value or ())


def define_sweep(spec_file: str | Path | None = None, *, size: int | None = None, goal: str | None = None,
                 count: int | None = None, seed: int | None = None, instances: str | None = None,
                 algorithms: str | Sequence[str] = (), heuristics: str | Sequence[str] = (),
                 plugins: str | Path | Sequence[str | Path] = (), out: str | Path | None = None,
                 name: str | None = None, chunk_size: int | str | None = None, max_nodes: int | None = None,
                 time_limit: float | None = None, max_memory: int | str | None = None, prune: str | None = None,
                 store: str | Path | None = None, scheduler: str | None = None, scheduler_file: str | None = None,
                 workers: int | None = None, cluster: str | None = None, jobs: int | None = None,
                 max_jobs: int | None = None, cluster_options: Sequence[str] | dict = (),
                 parallel_above: int | None = None, worker_wait: float | None = None,
                 wait_for_workers: int | None = None, cpu_time_limit: float | None = None, repeat: int | None = None,
                 conventions: str | None = None) -> "Sweep":
    """Define (validate, name) a sweep as ``tilesweep sweep`` does, without running it.

    Parameters
    ----------
    spec_file
        A TOML sweep spec (``docs/sweep-spec.md``); the keywords given override it.
    size, goal, count, seed, instances, algorithms, heuristics, plugins, out, name, chunk_size,
    max_nodes, time_limit, cpu_time_limit, max_memory, prune, repeat, conventions
        What the sweep solves: the options of ``tilesweep sweep`` of the same names
        (``algorithms``, ``heuristics`` and ``plugins`` take one name or a list). They
        decide its rows, so they make its folder ``out/name``.
    store, scheduler, scheduler_file, workers, cluster, jobs, max_jobs, cluster_options, parallel_above, worker_wait,
    wait_for_workers
        Where it runs (the default: an embedded cluster of one worker per core); never
        part of its identity, and :meth:`Sweep.run` may change them.

    Returns
    -------
    Sweep
        Its spec and where it runs; nothing is written before :meth:`Sweep.run`.

    Raises
    ------
    TilesweepError
        The first bad value, quoted (``InvalidOptionError``, ``UnknownNameError``,
        ``PluginError``, ... all ``ValueError`` too).
    """
    options = SweepOptions(size=size, goal=goal, count=count, seed=seed, instances=instances,
                           algorithms=_names(algorithms), heuristics=_names(heuristics),
                           plugin_files=tuple(map(str, _names(plugins))), out=None if out is None else str(out),
                           name=name, chunk_size=chunk_size, max_nodes=max_nodes, time_limit=time_limit,
                           max_memory=max_memory, prune=prune, store=None if store is None else str(store),
                           scheduler=scheduler, scheduler_file=scheduler_file, workers=workers, cluster=cluster,
                           jobs=jobs, max_jobs=max_jobs, cluster_options=cluster_options or None,
                           parallel_above=parallel_above, worker_wait=worker_wait,
                           wait_for_workers=wait_for_workers, cpu_time_limit=cpu_time_limit,
                           repeat=repeat, conventions=conventions)
    spec, where = build_spec(options, None if spec_file is None else str(spec_file), os.cpu_count() or 1)
    return Sweep(spec, where)


def open_sweep(folder: str | Path) -> "Sweep":
    """The sweep in ``folder`` (``OUT/NAME``, as any command wrote it), to read or resume.

    Its plugins' sources come from its spec, so a sweep of a plugin heuristic reads and
    resumes without the file. Raises :class:`InvalidOptionError` when ``folder`` holds no
    sweep."""
    path = Path(folder)
    if not (path / SPEC_FILE).is_file():
        raise InvalidOptionError(f"sweep {str(path)!r} does not exist (no {SPEC_FILE}); expected a sweep "
                                 "folder, OUT/NAME")
    try:
        spec = SweepSpec.from_json((path / SPEC_FILE).read_text())
    except (ValueError, TypeError, KeyError) as err:
        raise InvalidOptionError(f"sweep {str(path)!r} has an unreadable {SPEC_FILE} ({err}); expected the "
                                 "spec a sweep wrote") from None
    return Sweep(replace(spec, out=str(path.parent)), RunOptions())


@dataclass(frozen=True)
class Sweep:
    """A sweep: its :class:`~tilesweep.jobs.spec.SweepSpec` (what decides the rows) and
    :class:`~tilesweep.jobs.options.RunOptions` (where it runs)."""

    spec: SweepSpec
    where: RunOptions

    @property
    def name(self) -> str:
        return self.spec.name

    @property
    def folder(self) -> Path:
        return self.spec.folder

    def command(self) -> str:
        """The ``tilesweep sweep`` command line that runs (or resumes) this sweep."""
        return self.spec.command(self.where)

    def run(self, on_progress: Callable[[Progress], None] | None = None, *, retry_errors: bool = False,
            baseline: str | None = None, **where) -> pd.DataFrame:
        """Run the chunks not yet on disk, then summarise every row; return the summary.

        Parameters
        ----------
        on_progress
            Called in this thread after each part is written, with a
            :class:`~tilesweep.cluster.run.Progress` (``chunks_done``, ``chunks_total``,
            ``solves_done``, ``solves_total``, ``rate`` and ``eta`` in solves a second and
            seconds, None before the first measure).
        retry_errors
            Run again the chunks whose rows have status ``error``.
        baseline
            The heuristic the summary compares with (default: the first, if several).
        **where
            Overrides of where it runs, by the names of :func:`define_sweep`: ``store``,
            ``scheduler``, ``scheduler_file``, ``workers``, ``cluster``, ``jobs``,
            ``max_jobs``, ``cluster_options``, ``parallel_above``, ``worker_wait``,
            ``wait_for_workers``.

        The run is ``tilesweep sweep``'s (:func:`~tilesweep.cluster.runner.run_sweep`): a
        scheduler lost mid-run is waited for (``$TILESWEEP_RECONNECT_SECONDS``, default 60)
        and the run goes on where it was; one that does not come back raises
        ``SchedulerGoneError``, and a scheduler with no worker for ``worker_wait`` seconds
        ``NoWorkersError``. Both are said first as warnings of the ``tilesweep.api`` logger, as
        is the wait for a ``scheduler_file`` not written yet.
        A run that stops (these, an interrupt) keeps the finished parts; ``run`` again
        resumes. Raises :class:`TilesweepError` with the command line's message (e.g.
        ``SweepBusyError`` while another run holds the sweep).
        """
        from tilesweep.cluster.runner import run_sweep
        return run_sweep(self.spec, self._where(where), retry_errors=retry_errors, baseline=baseline,
                         events=_Notices(on_progress))

    def start(self, *, retry_errors: bool = False, baseline: str | None = None, **where) -> SweepRun:
        """Start :meth:`run` in a thread of its own and return at once, to follow it with
        :meth:`SweepRun.progress` (a notebook's loop) and collect it with
        :meth:`SweepRun.result`. The keywords are :meth:`run`'s; a bad one raises here."""
        self._where(where)
        return SweepRun(self, dict(retry_errors=retry_errors, baseline=baseline, **where))

    def _where(self, overrides: dict) -> RunOptions:
        unknown = sorted(set(overrides) - set(RUN_KEYS))
        if unknown:
            raise TypeError(f"Sweep.run() got an unexpected keyword argument {unknown[0]!r}; expected "
                            f"one of: {', '.join(RUN_KEYS)}")
        values = {k: str(v) if isinstance(v, Path) else v for k, v in overrides.items()}
        run = replace(self.where, **parse_options(values))
        check_cluster(run)
        return run

    def results(self, columns: Sequence[str] | None = None) -> pd.DataFrame:
        """Every row written so far, one per (instance, algorithm, heuristic), each part
        verified against the manifest first (``docs/design.md``, Results); with
        ``columns``, only those."""
        from tilesweep.jobs.results import load_results
        return load_results(self.folder, None if columns is None else list(columns))

    def summary(self, baseline: str | None = None) -> pd.DataFrame:
        """One row per (algorithm, heuristic) of the rows written so far, as ``tilesweep
        summary`` computes it (``baseline``: the heuristic the ratios compare with)."""
        from tilesweep.jobs.summary import summarize
        from tilesweep.jobs.verify import verify_sweep
        return summarize(verify_sweep(self.folder).paths, self.spec.summary_baseline(baseline))

    def state(self) -> SweepState:
        """What the folder holds now: parts, rows, status counts (``tilesweep status``)."""
        return sweep_state(self.folder)


log = logging.getLogger("tilesweep.api")


class _Notices(SweepEvents):
    """A run from Python: each part's progress to the caller's callback; what befalls the
    cluster as warnings of the ``tilesweep.api`` logger (a notebook shows them)."""

    def __init__(self, on_progress: Callable[[Progress], None] | None):
        self.on_progress = on_progress

    def progress(self, progress: Progress) -> None:
        if self.on_progress is not None:
            self.on_progress(progress)

    def scheduler_file_wait(self, path: str, seconds: float) -> None:
        log.warning("waiting up to %g s for the Dask scheduler file %r", seconds, path)

    def no_workers(self, seconds: float, address: str, wait: float, jobs: int | None) -> None:
        where = f"{jobs} batch job(s) submitted" if jobs is not None else f"the scheduler {address}"
        log.warning("no Dask worker at %s for %.0f s; the run stops after %g s without one (worker_wait)",
                    where, seconds, wait)

    def scheduler_lost(self, error: Exception, wait: float) -> None:
        log.warning("%s; waiting up to %g s for the scheduler to come back ($TILESWEEP_RECONNECT_SECONDS)",
                    error, wait)


_END = object()  # the last item of a run's progress queue


class SweepRun:
    """A sweep running in a thread of its own (:meth:`Sweep.start`)."""

    def __init__(self, sweep: Sweep, run_options: dict):
        self.sweep = sweep
        self._updates: queue.Queue = queue.Queue()
        self._summary: pd.DataFrame | None = None
        self._error: BaseException | None = None
        self._thread = threading.Thread(target=self._run, args=(run_options,), daemon=True,
                                        name=f"tilesweep sweep {sweep.name}")
        self._thread.start()

    def _run(self, run_options: dict) -> None:
        try:
            self._summary = self.sweep.run(self._updates.put, **run_options)
        except BaseException as err:  # noqa: BLE001 - handed to the caller's thread
            self._error = err
        finally:
            self._updates.put(_END)

    def progress(self, timeout: float | None = None) -> Iterator[Progress]:
        """Each :class:`~tilesweep.cluster.run.Progress` as its part is written, until the run
        ends (then the run's error, if it failed, is raised). One iterator takes each update;
        one started after the end yields what was not yet taken. ``timeout``: at most that many
        seconds between two updates, else ``TimeoutError`` (the run goes on)."""
        while True:
            try:
                update = self._updates.get(timeout=timeout)
            except queue.Empty:
                raise TimeoutError(f"sweep {self.sweep.name!r} wrote no part for {timeout:g} s; it is still "
                                   "running") from None
            if update is _END:
                self._updates.put(_END)  # later iterators end too
                break
            yield update
        self._raise_error()

    def done(self) -> bool:
        """Whether the run has ended (finished or failed)."""
        return not self._thread.is_alive()

    def result(self, timeout: float | None = None) -> pd.DataFrame:
        """The summary :meth:`Sweep.run` returns, once the run ends (its error raised instead
        if it failed); ``TimeoutError`` if it has not ended within ``timeout`` seconds."""
        self._thread.join(timeout)
        if self._thread.is_alive():
            raise TimeoutError(f"sweep {self.sweep.name!r} is still running after {timeout:g} s")
        self._raise_error()
        return self._summary

    def _raise_error(self) -> None:
        if self._error is not None:
            raise self._error


def load_tables(heuristic: str, size: int, goal, store: str | Path | None, build: bool = True,
                on_build: Callable[[tuple[int, ...]], None] | None = None) -> tuple:
    """The pattern databases ``heuristic`` reads (none for others), built into the store on
    first use (``on_build(group)`` hears of each) unless ``build`` is off."""
    spec = parse_heuristic(heuristic, size, goal)
    if not spec.is_pdb:
        return ()
    from tilesweep.pdb_store import open_store, tables_for
    return tables_for(spec, size, goal, open_store(store), build=build, on_build=on_build)


def load_automaton(prune: str, size: int, store: str | Path | None) -> None:
    """For ``prune="fsm..."``: read the pruning automaton from the store (built into it on
    first use), so this process does not search the duplicate strings itself."""
    from tilesweep.solver.fsm import parse_pruning
    if parse_pruning(prune, size).kind == "fsm":
        from tilesweep.pdb_store import open_store
        open_store(store).automaton(size, parse_pruning(prune, size).depth)


def solve_board(tiles: str | Sequence[int] | Board, *, size: int | None = None, goal: str = "blank-last",
                algorithm: str = "idastar", heuristic: str = "manhattan", plugins: str | Path | Sequence = (),
                store: str | Path | None = None, build: bool = True, max_nodes: int | None = None,
                time_limit: float | None = None, max_memory: int | None = None, prune: str = "parent",
                on_build: Callable[[tuple[int, ...]], None] | None = None,
                cpu_time_limit: float | None = None, conventions: str | None = None) -> SolveResult:
    """Solve one board optimally, as ``tilesweep solve`` does.

    ``tiles`` is a :class:`~tilesweep.solver.Board`, its text (``"8 6 7 2 5 4 3 0 1"``,
    ``"867254301"``) or a list of numbers; ``plugins`` are plugin files whose heuristics
    ``heuristic`` may name (``plugin:NAME``); a ``pdb:`` heuristic's tables are built into
    ``store`` on first use unless ``build`` is off (``on_build(group)`` hears of each).
    A* and BFS/DFS may fill 3/4 of the memory this process may use unless ``max_memory``
    (bytes) says otherwise. ``time_limit`` is in wall seconds, ``cpu_time_limit`` (instead)
    in seconds of the solving thread's CPU time. ``conventions`` (``PRESET`` or
    ``PRESET,key=value,...``; default ``korf``) names what A*, BFS and DFS do and count
    (``docs/conventions.md``).

    Returns a :class:`~tilesweep.solver.SolveResult` (``status``, ``cost``, ``moves``,
    ``nodes_generated``, ... and ``to_dict()``). Raises :class:`TilesweepError` with the
    command line's message, for a plugin that returns a negative h too.
    """
    load_files(map(str, _names(plugins)))
    board = tiles if isinstance(tiles, Board) else Board.parse(
        tiles if isinstance(tiles, str) else " ".join(map(str, tiles)), size)
    goal_t = resolve_goal(goal, board.size)
    check_algorithm(algorithm)
    from tilesweep.solver.fsm import parse_pruning
    # refused before any table or automaton is built
    check_conventions(parse_conventions(conventions), algorithm, parse_heuristic(heuristic, board.size, goal_t),
                      parse_pruning(prune, board.size))
    tables = load_tables(heuristic, board.size, goal_t, store, build, on_build)
    load_automaton(prune, board.size, store)
    from tilesweep.cluster.memory import default_budget
    memory = max_memory if max_memory is not None or algorithm == "idastar" else default_budget()
    result = solve(board, goal_t, algorithm, heuristic, tables, max_nodes, time_limit, memory, prune,
                   cpu_time_limit=cpu_time_limit, conventions=conventions)
    if result.status_reason == "heuristic":
        raise InvalidOptionError(negative_message(heuristic))
    return result


def predict(target: str | Path | None = None, *, size: int | None = None, goal: str | None = None,
            count: int | None = None, instances: str | None = None, heuristics: str | Sequence[str] = (),
            prune: str | None = None, plugins: str | Path | Sequence = (), store: str | Path | None = None,
            sample: int = 1_000_000, sample_seed: int = 0, tilted: int = 200_000, real_depth: int = 0,
            rate_nodes: int = 20_000_000, iterations: bool = False, epsilon: str = "off") -> pd.DataFrame:
    """IDA*'s nodes predicted by KRE and CDP, as ``tilesweep predict`` computes them.

    ``target`` is a sweep folder (predictions beside its completed IDA* iterations) or a
    TOML spec; without a sweep the instances must be a bundled set (``korf100``,
    ``korf50-24``), whose published optimal lengths bound the iterations. Returns
    ``tilesweep predict --format json``'s records (``method``, ``instance``,
    ``predicted_nodes``, ``measured_nodes`` or ``published_nodes``, ...); with
    ``iterations`` (a sweep only), one row per completed iteration instead: ``heuristic``,
    ``instance``, ``bound``, ``measured`` and a column per method. ``docs/predict.md`` is
    the guide. ``epsilon`` (``states`` or ``trees``): also ``cdp-eps``, CDP epsilon-truncated (``--epsilon``).
    """
    import pandas as pd

    from tilesweep.jobs.predict import Sampling, predict_target, prediction_records
    from tilesweep.pdb_store import open_store
    load_files(map(str, _names(plugins)))
    options = {k: v for k, v in {"size": size, "goal": goal, "count": count, "instances": instances,
                                 "heuristics": _names(heuristics), "prune": prune}.items() if v not in (None, ())}
    spec, results = predict_target(target, options, open_store(store), Sampling(sample, sample_seed, tilted),
                                   real_depth, rate_nodes, epsilon)
    if iterations:
        return pd.concat([r.iterations.assign(heuristic=r.heuristic) for r in results if hasattr(r, "iterations")],
                         ignore_index=True)
    return pd.DataFrame(prediction_records(spec, results))
