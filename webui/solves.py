"""Solving boards for the web UI: request validation, pattern-database checks, the solver pool.

Requests are validated here, in the server process, with the library's own parsers, so a
bad request gets the CLI's one-line message before any work is queued. Solves run in a
small pool of worker processes (pebble), never on the server's event loop: cancelling a
solve's future (the page's Cancel button closes its request) ends the process running it,
and the pool starts a fresh one.

The kernels are warmed when the server starts, in a process of their own that a cancelled
solve cannot kill (:func:`warm_kernels`, under the machine's compile lock): the workers,
and any worker started after a cancel, wait for it and then load the kernels from numba's
cache rather than compile them. Until it is done and a worker has loaded them the pool is
not ``ready`` and the page says so.
"""

from __future__ import annotations

import asyncio
import logging
import multiprocessing
import os
import re
import shlex
import time
from dataclasses import dataclass

from pebble import ProcessPool

from tilesweep.solver import Board, heuristic_names, parse_heuristic, solve
from tilesweep.solver.board import goal_label, goal_tiles, is_solvable, parity_reason, parse_tiles, size_for_count
from tilesweep.solver.conventions import parse_conventions
from tilesweep.solver.errors import InvalidBoardError, InvalidOptionError, TilesweepError, quoted
from tilesweep.solver.fsm import parse_pruning
from tilesweep.solver.heuristics import BLANK_AWARE
from tilesweep.solver.hpath import h_along
from tilesweep.solver.options import parse_seconds, whole_number
from tilesweep.solver.plugins import PREFIX, ensure as ensure_plugins
from tilesweep.solver.solve import INFORMED, check_algorithm, check_conventions, check_time_limits, resolve_goal

SIZES = (3, 4)  # the boards the page offers
GOALS = ("blank-last", "blank-first")
# Large enough for any 8-puzzle with any algorithm (the whole state space is 181,440
# boards) and for 15-puzzles with the 7-8 pattern database (Korf & Felner 2002 report at
# most a few million nodes); A*, BFS and DFS keep every board, about 2.5 GB at this cap.
DEFAULT_MAX_NODES = 20_000_000
# A page's solve that runs this long has been forgotten (closing the page cancels it anyway).
DEFAULT_TIME_LIMIT = 300.0
SOLVE_FIELDS = ("tiles", "size", "goal", "algorithm", "heuristic", "max_nodes", "time_limit", "cpu_time_limit",
                "ticket", "conventions")
BOARD_FIELDS = ("tiles", "size", "goal", "heuristic")
TICKET = re.compile(r"[A-Za-z0-9_-]{1,64}")
# what warm_kernels compiles: every algorithm with the page's default heuristics (the others
# call the same kernels with the same types, or compile their own on first use)
WARM_COMBOS = (("astar", "manhattan"), ("idastar", "manhattan"), ("astar", "linear-conflict"),
               ("idastar", "linear-conflict"), ("bfs", "none"), ("dfs", "none"))
log = logging.getLogger("tilesweep.webui")


class BusyError(TilesweepError):
    """More solves waiting than the server queues."""


@dataclass(frozen=True)
class Limits:
    """The server's limits on each solve; a request may ask for less of the first two."""

    max_nodes: int = DEFAULT_MAX_NODES
    time_limit: float = DEFAULT_TIME_LIMIT
    max_memory: int | None = None


@dataclass(frozen=True)
class SolveRequest:
    """A validated solve: everything a worker process needs, small and picklable."""

    tiles: tuple[int, ...]
    size: int
    goal: tuple[int, ...]
    algorithm: str
    heuristic: str
    max_nodes: int
    time_limit: float | None  # wall seconds; None under a CPU time limit
    max_memory: int | None
    cpu_time_limit: float | None = None  # seconds of the solving thread's CPU time
    conventions: str = "korf"  # what the search does and counts (solver.conventions)


def _text(data: dict, key: str, default: str | None = None) -> str:
    value = data.get(key, default)
    if not isinstance(value, str):
        raise InvalidOptionError(f"{key} {quoted(value)} is not text; expected a string")
    return value


def _check_fields(data, allowed: tuple[str, ...]) -> dict:
    if not isinstance(data, dict):
        raise InvalidOptionError(f"request {quoted(data)} is not a JSON object; expected fields {', '.join(allowed)}")
    unknown = [k for k in data if k not in allowed]
    if unknown:
        raise InvalidOptionError(f"field {quoted(unknown[0])} is not known; expected fields {', '.join(allowed)}")
    return data


def parse_board(data: dict) -> tuple[Board, tuple[int, ...]]:
    """The board and goal tiles of a request (``tiles``, optional ``size``, ``goal``)."""
    tiles = data.get("tiles")
    if isinstance(tiles, list) and all(isinstance(t, int) and not isinstance(t, bool) for t in tiles):
        tiles = " ".join(map(str, tiles))
    if not isinstance(tiles, str):
        raise InvalidBoardError(f"tiles {quoted(tiles)} is not a board; expected numbers separated by spaces or commas")
    size = data.get("size")
    parsed = parse_tiles(tiles, None if size is None else page_size(size))
    board = Board(parsed, page_size(size_for_count(len(parsed))))
    return board, resolve_goal(_text(data, "goal", "blank-last"), board.size)


def page_size(value) -> int:
    """A board width the page offers (3 or 4), from an int or its text."""
    size = whole_number("size", value, 0)
    if size not in SIZES:
        raise InvalidOptionError(f"size {size!r} is not offered here; expected one of {', '.join(map(str, SIZES))}")
    return size


def describe_board(data, store: str | None = None, ready: bool = False) -> dict:
    """Solvability (decided by parity, no search) of a ``/api/board`` request, and the board's
    h under its optional ``heuristic`` once the kernels are ``ready`` (``h_note`` says why not)."""
    board, goal = parse_board(_check_fields(data, BOARD_FIELDS))
    out = {"tiles": list(board.tiles), "size": board.size, "goal": goal_label(goal),
           "goal_tiles": list(goal), "solvable": is_solvable(board.tiles, goal, board.size),
           "reason": parity_reason(board.tiles, goal, board.size)}
    if "heuristic" in data:
        out["heuristic"] = name = _text(data, "heuristic")
        out["h"], out["h_note"] = _board_h(board, goal, name, store, ready)
    return out


def _board_h(board: Board, goal: tuple[int, ...], name: str, store: str | None, ready: bool):
    """(h, None), or (None, why not): a heuristic being typed may not parse yet."""
    try:
        spec = parse_heuristic(name, board.size, goal)
        missing = missing_tables(name, board.size, goal, store)
    except TilesweepError as err:
        return None, str(err)
    if missing:
        return None, f"its tables are not built ({', '.join(missing)})"
    if not ready:
        return None, "shown once the kernels are ready"
    return h_along(board, goal, "", spec, _tables(spec, board.size, goal, store))[0], None


def _tables(spec, size: int, goal: tuple[int, ...], store: str | None) -> tuple:
    """The pattern databases of ``spec`` from the store (none for other heuristics)."""
    from tilesweep.pdb_store import open_store, tables_for
    return tables_for(spec, size, goal, open_store(store), build=False) if spec.is_pdb else ()


def parse_ticket(data: dict) -> str | None:
    """The page's name for a solve (``ticket``), by which it asks how the solve stands."""
    if "ticket" not in data:
        return None
    ticket = _text(data, "ticket")
    if not TICKET.fullmatch(ticket):
        raise InvalidOptionError(f"ticket {quoted(ticket)} is not a ticket; expected 1 to 64 letters, digits, - or _")
    return ticket


def _capped_seconds(name: str, value, limits: Limits) -> float | None:
    """A time limit of a request: seconds above 0 and at most the server's cap (the page states it)."""
    why = "this server's limit; start tilesweep ui with a larger --time-limit"
    return None if value is None else parse_seconds(name, value, maximum=limits.time_limit, why=why)


def parse_solve(data, limits: Limits) -> SolveRequest:
    """A :class:`SolveRequest` from a JSON body; node budget and time limit default to and are
    capped by the server's ``limits``. A ``cpu_time_limit`` (seconds of the solving thread's
    CPU time, capped by the same number) replaces the wall time limit, as ``solve
    --cpu-time-limit`` does; both in one request is refused."""
    board, goal = parse_board(_check_fields(data, SOLVE_FIELDS))
    algorithm = check_algorithm(_text(data, "algorithm", "idastar"))
    heuristic = _text(data, "heuristic", "manhattan")
    spec = parse_heuristic(heuristic, board.size, goal)
    conventions = parse_conventions(_text(data, "conventions", "korf").strip() or "korf")
    check_conventions(conventions, algorithm, spec, parse_pruning("parent", board.size))
    budget = whole_number("max_nodes", data.get("max_nodes", limits.max_nodes), 1)
    if budget > limits.max_nodes:
        raise InvalidOptionError(f"max_nodes {quoted(budget)} is above this server's budget; expected at most "
                                 f"{limits.max_nodes} (start tilesweep ui with a larger --max-nodes)")
    cpu_seconds = data.get("cpu_time_limit")
    wall, cpu = check_time_limits(*(_capped_seconds(name, value, limits) for name, value in (
        ("time-limit", data.get("time_limit", None if cpu_seconds is not None else limits.time_limit)),
        ("cpu-time-limit", cpu_seconds))))
    return SolveRequest(board.tiles, board.size, goal, algorithm, heuristic, budget, wall, limits.max_memory, cpu,
                        conventions.name)


# --- pattern databases ---------------------------------------------------------------------


def build_command(name: str, size: int, goal: tuple[int, ...], store: str | None) -> str:
    """The ``tilesweep pdb build`` command that makes the tables of a heuristic that reads them."""
    named = re.search(r"pdb:(\d+(?:-\d+)+)", name)
    spec = parse_heuristic(name, size, goal)
    partition = named.group(1) if named else "/".join(",".join(map(str, g)) for g in spec.groups)
    where = f" --store {shlex.quote(str(store))}" if store else ""
    kind = next((f" --{kind}" for _, kind in spec.tables if kind != BLANK_AWARE), "")
    return (f"tilesweep pdb build --size {size} --partition {partition}{kind} "
            f"--goal {shlex.quote(goal_label(goal))}{where}")


def missing_tables(name: str, size: int, goal: tuple[int, ...], store: str | None) -> list[str]:
    """Files of a heuristic's pattern databases that the store's manifest lacks (none for others)."""
    from tilesweep.pdb_store import open_store, table_filename
    spec = parse_heuristic(name, size, goal)
    if not spec.is_pdb:
        return []
    with open_store(store) as opened:
        built = {entry.file for entry in opened.entries()}
    return [name for name in (table_filename(size, goal, g, kind) for g, kind in spec.tables) if name not in built]


def check_tables(req: SolveRequest, store: str | None) -> None:
    """Refuse a ``pdb:`` heuristic whose tables are not built, naming the command that builds them."""
    missing = missing_tables(req.heuristic, req.size, req.goal, store)
    if missing:
        raise InvalidOptionError(f"heuristic {req.heuristic!r} needs pattern databases the store lacks "
                                 f"({', '.join(missing)}); run "
                                 f"`{build_command(req.heuristic, req.size, req.goal, store)}`")


def heuristic_choices(size: int, goal_name: str, store: str | None, plugins=()) -> list[dict]:
    """Every heuristic the CLI offers for ``size``, with whether its tables are in the store,
    then the ``plugins`` (``(name, sha256, source)``) as ``plugin:NAME`` with their ``version``."""
    goal = resolve_goal(goal_name, size)
    choices = []
    for name in heuristic_names(size):
        try:
            missing = missing_tables(name, size, goal, store)
        except TilesweepError as err:  # e.g. a partition this goal cannot use
            choices.append({"name": name, "available": False, "why": str(err)})
            continue
        entry = {"name": name, "available": not missing}
        if missing:
            entry["why"] = f"not built; run {build_command(name, size, goal, store)}"
        choices.append(entry)
    return choices + [{"name": PREFIX + name, "available": True, "version": sha} for name, sha, _ in plugins]


# --- the pool ------------------------------------------------------------------------------


def run_solve(req: SolveRequest, store: str | None) -> dict:
    """Solve one request (in a worker process); the result as ``solve --json`` prints it, with
    ``h_path``, h of each board along a solution of an informed search (the replay's h and f)."""
    spec = parse_heuristic(req.heuristic, req.size, req.goal)
    tables = _tables(spec, req.size, req.goal, store)
    board = Board(req.tiles, req.size)
    solved = solve(board, req.goal, req.algorithm, spec, tables, req.max_nodes, req.time_limit, req.max_memory,
                   cpu_time_limit=req.cpu_time_limit, conventions=req.conventions)
    result = solved.to_dict()
    result["heuristic_version"] = solved.extra.get("heuristic_version")  # a plugin's source sha256
    result["reason"] = parity_reason(board.tiles, req.goal, board.size)
    result["worker"] = os.getpid()  # a cancelled solve's process is replaced: a new pid
    if result["status"] == "solved" and req.algorithm in INFORMED:
        result["h_path"] = h_along(board, req.goal, result["moves"], spec, tables)
    return result


def warm_kernels() -> None:
    """Compile, or load from numba's cache, the kernels of the page's usual solves and of the
    board's h, under the machine's compile lock (one process compiles, the others load)."""
    from tilesweep.jobs.kernels import compile_lock
    from tilesweep.solver.warmup import warm_solve
    goal = goal_tiles("blank-last", 3)
    with compile_lock():
        warm_solve(3, goal, WARM_COMBOS)
        h_along(Board(goal, 3), goal, "", parse_heuristic("manhattan", 3, goal))


def _load_when_ready(warmed, loaded, plugins) -> None:
    """A worker's start: register the server's ``plugins``, wait for its warm-up (``warmed``),
    then load the kernels it compiled (a worker killed by a cancel meanwhile throws no compile
    away) and set ``loaded``."""
    ensure_plugins(plugins)
    warmed.wait()
    warm_kernels()
    loaded.set()


def _warm_then_signal(ready) -> None:
    """The server's warm-up process: :func:`warm_kernels`, then ``ready`` set (also after a
    failure, which a solve then meets and reports)."""
    try:
        warm_kernels()
    finally:
        ready.set()


class SolvePool:
    """At most ``workers`` solves at a time in worker processes, at most ``queue`` waiting;
    the kernels warmed at the start, in a process of their own."""

    def __init__(self, workers: int, store: str | None, plugins=(), queue: int = 32):
        self.store, self.queue, self.workers = store, queue, workers
        self.tickets: dict[str, object] = {}  # futures of waiting or running solves, oldest first
        context = multiprocessing.get_context("spawn")
        self._warmed, self._loaded = context.Event(), context.Event()
        self.started = time.monotonic()
        self.warm_seconds: float | None = None
        self.warmer = context.Process(target=_warm_then_signal, args=(self._warmed,), daemon=True,
                                      name="tilesweep-ui-warm")
        self.warmer.start()
        self.pool = ProcessPool(max_workers=workers, initializer=_load_when_ready,
                                initargs=(self._warmed, self._loaded, tuple(plugins)),
                                context=context)
        self.pool.schedule(os.getpid)  # pebble starts its workers with a first task: now, not at the first solve

    @property
    def ready(self) -> bool:
        """Whether the warm-up is done and a worker has loaded the kernels (a solve then
        starts at once)."""
        if self.warm_seconds is None and self._loaded.is_set():
            self.warm_seconds = time.monotonic() - self.started
            log.info("kernels ready (%.1f s after the start)", self.warm_seconds)
        return self.warm_seconds is not None

    async def log_when_ready(self) -> None:
        """Log the warm-up's end (``ready`` notes its time when first seen set)."""
        while not self.ready:
            await asyncio.sleep(0.2)

    @property
    def waiting(self) -> int:
        return len(self.tickets)

    def state(self, ticket: str | None = None) -> dict:
        """How the pool stands, and where the solve named ``ticket`` is: ``warming`` (waiting
        for the kernels), ``queued`` (``ahead`` solves before it), ``solving``, or ``unknown``."""
        futures = list(self.tickets.values())
        running = sum(1 for f in futures if f.running())
        out = {"ready": self.ready, "solvers": self.workers, "running": running,
               "queued": len(futures) - running}
        if ticket is not None:
            future = self.tickets.get(ticket)
            if future is None:
                out["state"] = "unknown"
            elif future.running():
                out["state"] = "solving"
            else:
                before = futures[:futures.index(future)]
                out["state"] = "queued" if self.ready else "warming"
                out["ahead"] = sum(1 for f in before if not f.running())
        return out

    async def solve(self, req: SolveRequest, on_start=None, ticket: str | None = None) -> dict:
        """Run ``req``; ``on_start(future)`` receives the future so a caller can cancel it;
        :meth:`state` answers for ``ticket`` while it waits or runs."""
        if self.waiting >= self.queue:
            raise BusyError(f"{self.waiting} solves are already waiting; try again when they finish")
        future = self.pool.schedule(run_solve, (req, self.store))
        if on_start is not None:
            on_start(future)
        key = ticket if ticket is not None and ticket not in self.tickets else f"-{id(future)}"
        self.tickets[key] = future
        try:
            return await asyncio.wrap_future(future)
        finally:
            del self.tickets[key]

    def close(self) -> None:
        self.pool.stop()
        self.pool.join(timeout=5)
        if self.warmer.is_alive():
            self.warmer.terminate()
