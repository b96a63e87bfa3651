"""Solving boards for the web UI: request validation, pattern-database checks, the solver pool.

Requests are validated here, in the server process, with the library's own parsers, so a
bad request gets the CLI's one-line message before any work is queued. Solves run in a
small pool of worker processes (pebble), never on the server's event loop: cancelling a
solve's future (the page's Cancel button closes its request) ends the process running it,
and the pool starts a fresh one.
"""

from __future__ import annotations

import asyncio
import multiprocessing
import os
import re
import shlex
from dataclasses import dataclass

from pebble import ProcessPool

from tilesweep.solver import Board, heuristic_names, parse_heuristic, solve
from tilesweep.solver.board import goal_label, is_solvable, parity_reason, parse_tiles, size_for_count
from tilesweep.solver.errors import InvalidBoardError, InvalidOptionError, TilesweepError, quoted
from tilesweep.solver.options import whole_number
from tilesweep.solver.solve import check_algorithm, check_time_limit, resolve_goal

SIZES = (3, 4)  # the boards the page offers
GOALS = ("blank-last", "blank-first")
# Large enough for any 8-puzzle with any algorithm (the whole state space is 181,440
# boards) and for 15-puzzles with the 7-8 pattern database (Korf & Felner 2002 report at
# most a few million nodes); A*, BFS and DFS keep every board, about 2.5 GB at this cap.
DEFAULT_MAX_NODES = 20_000_000
# A page's solve that runs this long has been forgotten (closing the page cancels it anyway).
DEFAULT_TIME_LIMIT = 300.0
SOLVE_FIELDS = ("tiles", "size", "goal", "algorithm", "heuristic", "max_nodes", "time_limit")


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
    time_limit: float
    max_memory: int | None


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


def describe_board(data) -> dict:
    """Solvability (decided by parity, no search) of a ``/api/board`` request."""
    board, goal = parse_board(_check_fields(data, ("tiles", "size", "goal")))
    return {"tiles": list(board.tiles), "size": board.size, "goal": goal_label(goal),
            "goal_tiles": list(goal), "solvable": is_solvable(board.tiles, goal, board.size),
            "reason": parity_reason(board.tiles, goal, board.size)}


def parse_solve(data, limits: Limits) -> SolveRequest:
    """A :class:`SolveRequest` from a JSON body; node budget and time limit default to and are
    capped by the server's ``limits``."""
    board, goal = parse_board(_check_fields(data, SOLVE_FIELDS))
    algorithm = check_algorithm(_text(data, "algorithm", "idastar"))
    heuristic = _text(data, "heuristic", "manhattan")
    parse_heuristic(heuristic, board.size, goal)
    budget = whole_number("max_nodes", data.get("max_nodes", limits.max_nodes), 1)
    if budget > limits.max_nodes:
        raise InvalidOptionError(f"max_nodes {quoted(budget)} is above this server's budget; expected at most "
                                 f"{limits.max_nodes} (start tilesweep ui with a larger --max-nodes)")
    seconds = check_time_limit(data.get("time_limit", limits.time_limit))
    if seconds > limits.time_limit:
        raise InvalidOptionError(f"time_limit {seconds:g} is above this server's limit; expected at most "
                                 f"{limits.time_limit:g} seconds (start tilesweep ui with a larger --time-limit)")
    return SolveRequest(board.tiles, board.size, goal, algorithm, heuristic, budget, seconds, limits.max_memory)


# --- pattern databases ---------------------------------------------------------------------


def build_command(name: str, size: int, goal: tuple[int, ...], store: str | None) -> str:
    """The ``tilesweep pdb build`` command that makes the tables of a heuristic that reads them."""
    named = re.search(r"pdb:(\d+(?:-\d+)+)", name)
    partition = named.group(1) if named else "/".join(",".join(map(str, g)) for g in
                                                     parse_heuristic(name, size, goal).groups)
    where = f" --store {shlex.quote(str(store))}" if store else ""
    return (f"tilesweep pdb build --size {size} --partition {partition} "
            f"--goal {shlex.quote(goal_label(goal))}{where}")


def missing_tables(name: str, size: int, goal: tuple[int, ...], store: str | None) -> list[str]:
    """Files of a heuristic's pattern databases that the store's manifest lacks (none for others)."""
    from tilesweep.pdb_store import open_store, table_filename
    spec = parse_heuristic(name, size, goal)
    if not spec.is_pdb:
        return []
    with open_store(store) as opened:
        built = {entry.file for entry in opened.entries()}
    return [name for name in (table_filename(size, goal, g) for g in spec.groups) if name not in built]


def check_tables(req: SolveRequest, store: str | None) -> None:
    """Refuse a ``pdb:`` heuristic whose tables are not built, naming the command that builds them."""
    missing = missing_tables(req.heuristic, req.size, req.goal, store)
    if missing:
        raise InvalidOptionError(f"heuristic {req.heuristic!r} needs pattern databases the store lacks "
                                 f"({', '.join(missing)}); run `{build_command(req.heuristic, req.size, req.goal, store)}`")


def heuristic_choices(size: int, goal_name: str, store: str | None) -> list[dict]:
    """Every heuristic the CLI offers for ``size``, with whether its tables are in the store."""
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
    return choices


# --- the pool ------------------------------------------------------------------------------


def run_solve(req: SolveRequest, store: str | None) -> dict:
    """Solve one request (in a worker process); the result as ``solve --json`` prints it."""
    from tilesweep.pdb_store import open_store, tables_for
    spec = parse_heuristic(req.heuristic, req.size, req.goal)
    tables = tables_for(spec, req.size, req.goal, open_store(store), build=False) if spec.is_pdb else ()
    board = Board(req.tiles, req.size)
    result = solve(board, req.goal, req.algorithm, spec, tables, req.max_nodes, req.time_limit,
                   req.max_memory).to_dict()
    result["reason"] = parity_reason(board.tiles, req.goal, board.size)
    result["worker"] = os.getpid()  # a cancelled solve's process is replaced: a new pid
    return result


def _warm() -> None:
    """Compile (or load from numba's cache) every kernel once when a worker starts."""
    board = Board.parse("1 2 3 4 5 6 7 0 8")
    for algorithm in ("astar", "idastar", "bfs", "dfs"):
        for heuristic in ("manhattan", "linear-conflict"):
            solve(board, "blank-last", algorithm, heuristic)


class SolvePool:
    """At most ``workers`` solves at a time in worker processes, at most ``queue`` waiting."""

    def __init__(self, workers: int, store: str | None, queue: int = 32):
        self.store, self.queue, self.waiting = store, queue, 0
        self.pool = ProcessPool(max_workers=workers, initializer=_warm,
                                context=multiprocessing.get_context("spawn"))

    async def solve(self, req: SolveRequest, on_start=None) -> dict:
        """Run ``req``; ``on_start(future)`` receives the future so a caller can cancel it."""
        if self.waiting >= self.queue:
            raise BusyError(f"{self.waiting} solves are already waiting; try again when they finish")
        future = self.pool.schedule(run_solve, (req, self.store))
        if on_start is not None:
            on_start(future)
        self.waiting += 1
        try:
            return await asyncio.wrap_future(future)
        finally:
            self.waiting -= 1

    def close(self) -> None:
        self.pool.stop()
        self.pool.join(timeout=5)
