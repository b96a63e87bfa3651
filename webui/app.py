"""The web UI's HTTP routes (tornado): static pages, a JSON API over the library, sweep files.

Thin like ``cli.py``: handlers parse a request, call the library (``webui.solves`` for
boards and solves, ``jobs`` for sweeps) and write JSON. Every error is one line of plain
text, ``error: ...``, with the status a caller can act on: 400 for bad input (the CLI's
message), 403 for a request this server does not answer (a foreign ``Host``, or a POST from
another site's page: ``webui.guard``), 404 for what does not exist, 413 for an oversized
body, 415 for a body that is not JSON, 503 when too many solves wait. GET never writes;
files are served only from inside the ``--out`` folder.
"""

from __future__ import annotations

import asyncio
import io
import json
import logging
import os
import sys
from pathlib import Path

import pyarrow.parquet as pq
from pebble import ProcessExpired
from tornado.web import Application, HTTPError, RequestHandler, StaticFileHandler, stream_request_body

from tilesweep.solver import ALGORITHMS
from tilesweep.solver.errors import BAD_INPUT, InvalidOptionError, TilesweepError
from tilesweep.solver.generators import random_walk_instance, uniform_instance
from tilesweep.solver.options import whole_number
from tilesweep.solver.solve import OPTIMAL, resolve_goal
from tilesweep.solver.status import STATUSES

from . import solves, sweeps
from .guard import HostPolicy, refusal
from .solves import BusyError, Limits, SolvePool

STATIC = Path(__file__).parent / "static"
MAX_BODY = 16 * 1024   # a 4x4 board and its options take under 200 bytes
DRAIN_LIMIT = 4 << 20  # larger bodies are refused without reading them
MAX_WALK = 10_000
MAX_NESTING = 2  # an object of fields, one of them a list of tiles
EXAMPLE_BODY = '{"tiles": "1 2 3 4 5 6 7 8 0"}'
log = logging.getLogger("tilesweep.webui")


class Handler(RequestHandler):
    """Errors as one line of text; library errors mapped to HTTP statuses."""

    def write_error(self, status_code: int, **kwargs) -> None:
        error = kwargs.get("exc_info", (None, None, None))[1]
        message = self._reason
        if isinstance(error, HTTPError) and error.log_message:
            message = error.log_message % error.args if error.args else error.log_message
        elif isinstance(error, TilesweepError):
            message = str(error)
            self.set_status(400 if isinstance(error, BAD_INPUT) else 503 if isinstance(error, BusyError) else 500)
        self.clear_header("Content-Disposition")
        self.set_header("Content-Type", "text/plain; charset=utf-8")
        self.finish(f"error: {' '.join(message.splitlines())}\n")

    def log_exception(self, typ, value, tb) -> None:
        if isinstance(value, TilesweepError):  # expected: answered with its one line
            log.info("%s %s: %s", self.request.method, self.request.path, value)
        else:
            super().log_exception(typ, value, tb)

    def arg(self, name: str, default: str) -> str:
        return self.get_query_argument(name, default)

    @property
    def out(self) -> Path:
        return self.settings["out"]


@stream_request_body
class RefusedHandler(Handler):
    """A request the server does not answer (``webui.guard``): its status and one line, sent
    at once; the body is read and dropped after it, so a client still sending receives the
    answer (one beyond :data:`DRAIN_LIMIT` is cut off after the answer, as in :class:`JsonHandler`)."""

    def initialize(self, status: int, reason: str) -> None:
        self.status, self.reason = status, reason

    def prepare(self) -> None:
        raise HTTPError(self.status, "%s", self.reason)

    def data_received(self, chunk: bytes) -> None:
        pass


class GuardedApplication(Application):
    """Routes a request to its handler only when :mod:`webui.guard` lets it through."""

    def find_handler(self, request, **kwargs):
        refused = refusal(self.settings["hosts"], request.method, request.headers)
        if refused:
            return self.get_handler_delegate(request, RefusedHandler, {"status": refused[0], "reason": refused[1]})
        return super().find_handler(request, **kwargs)


class DefaultHandler(Handler):
    """Anything no route matches."""

    def prepare(self) -> None:
        raise HTTPError(404, "no page at %r; the pages are / and /sweeps", self.request.path)


class PageHandler(Handler):
    """One of the HTML pages: its template in ``static/``, which fills in ``layout.html``
    (the head, the navigation and the shared script every page has)."""

    def initialize(self, page: str) -> None:
        self.page = page

    def get(self, *args) -> None:
        self.render(self.page)


class SweepPageHandler(PageHandler):
    def get(self, name: str) -> None:
        sweeps.folder_of(self.out, name)
        super().get(name)


@stream_request_body
class JsonHandler(Handler):
    """Reads a JSON body of at most :data:`MAX_BODY` bytes. A larger one up to :data:`DRAIN_LIMIT`
    is read and dropped before the 413, so the client, still sending, receives the answer (a
    connection closed on unread data is reset, losing it); beyond that, the 413 comes at once
    (clients sending that much ask first with ``Expect: 100-continue``)."""

    def prepare(self) -> None:
        length = self.request.headers.get("Content-Length", "0")
        if not length.isdigit():
            raise HTTPError(400, "Content-Length %r is not a whole number", length)
        if int(length) > DRAIN_LIMIT:
            self._too_large(int(length))
        self.body, self.received = bytearray(), 0

    def data_received(self, chunk: bytes) -> None:
        self.received += len(chunk)
        if self.received <= MAX_BODY:
            self.body += chunk

    @staticmethod
    def _too_large(size: int) -> None:
        raise HTTPError(413, "request body of %d bytes is too large; expected at most %d", size, MAX_BODY)

    def json(self):
        if self.received > MAX_BODY:
            self._too_large(self.received)
        try:
            data = json.loads(self.body.decode("utf-8"), parse_constant=_not_json, parse_int=_json_int)
        except RecursionError:
            _too_deep("deeper than the parser goes")
        except ValueError as err:  # not UTF-8, not JSON, NaN
            raise HTTPError(400, "request body is not JSON (%s); expected an object such as %s",
                            str(err)[:200], EXAMPLE_BODY) from None
        depth = nesting(data)
        if depth > MAX_NESTING:
            _too_deep(f"{depth} deep")
        return data


def _too_deep(how: str):
    raise HTTPError(400, "request body nests arrays and objects %s; expected an object whose fields hold "
                    "text, numbers or a list of numbers, such as %s", how, EXAMPLE_BODY)


def _not_json(constant: str):
    raise ValueError(f"{constant} is not a JSON number")


def _json_int(digits: str) -> int:
    try:
        return int(digits)
    except ValueError:  # more digits than Python converts (sys.get_int_max_str_digits)
        raise HTTPError(400, "request body holds a number of %s digits; expected numbers of at most %d digits",
                        f"{len(digits.lstrip('-')):,}", sys.get_int_max_str_digits()) from None


def nesting(value) -> int:
    """How deep arrays and objects nest in a parsed JSON value (0 for text or a number);
    measured level by level, so no depth exhausts Python's recursion limit."""
    depth, level = 0, [value]
    while level := [child for item in level if isinstance(item, (list, dict))
                    for child in (item.values() if isinstance(item, dict) else item)]:
        depth += 1
    return depth


class OptionsHandler(Handler):
    def get(self) -> None:
        size = solves.page_size(self.arg("size", "3"))
        goal = self.arg("goal", "blank-last")
        store = self.settings["store"]
        self.write({"sizes": solves.SIZES, "goals": solves.GOALS, "algorithms": ALGORITHMS,
                    "heuristics": solves.heuristic_choices(size, goal, store, self.settings["plugins"]),
                    "optimal": OPTIMAL, "max_nodes": self.settings["limits"].max_nodes,
                    "time_limit": self.settings["limits"].time_limit, "statuses": STATUSES,
                    "ready": self.settings["pool"].ready})


class StatusHandler(Handler):
    """Whether the kernels are ready, the solvers' load, and where the solve ``ticket`` stands."""

    def get(self) -> None:
        self.write(self.settings["pool"].state(self.get_query_argument("ticket", None)))


class BoardHandler(JsonHandler):
    async def post(self) -> None:
        data, store, ready = self.json(), self.settings["store"], self.settings["pool"].ready
        # a thread: a heuristic's h may read pattern databases
        self.write(await asyncio.get_running_loop().run_in_executor(None, solves.describe_board, data, store, ready))


class ShuffleHandler(Handler):
    """A random solvable board: uniform, or a random walk of ``walk`` moves from the goal."""

    def get(self) -> None:
        import numpy as np
        size = solves.page_size(self.arg("size", "3"))
        goal = resolve_goal(self.arg("goal", "blank-last"), size)
        rng = np.random.default_rng()
        walk = self.get_query_argument("walk", None)
        if walk is None:
            shuffled = uniform_instance(size, goal, rng)
        else:
            steps = whole_number("walk", walk, 0)
            if steps > MAX_WALK:
                raise InvalidOptionError(f"walk {steps} is too long; expected at most {MAX_WALK} moves")
            shuffled = random_walk_instance(size, goal, steps, rng)
        self.write({"tiles": list(shuffled.tiles), "size": size})


class SolveHandler(JsonHandler):
    """Solve in the pool; closing the request (the page's Cancel) cancels the solve."""

    future = None

    async def post(self) -> None:
        data = self.json()
        req = solves.parse_solve(data, self.settings["limits"])
        ticket = solves.parse_ticket(data)
        solves.check_tables(req, self.settings["store"])
        try:
            result = await self.settings["pool"].solve(req, on_start=self._started, ticket=ticket)
        except asyncio.CancelledError:
            log.info("solve cancelled: %s %s %s", req.algorithm, req.heuristic, req.tiles)
            return
        except ProcessExpired as err:  # killed from outside, or out of memory
            raise HTTPError(500, "the process solving this board died (%s); other solves go on", err) from None
        self.write(result)

    def _started(self, future) -> None:
        self.future = future

    def on_connection_close(self) -> None:
        if self.future is not None:
            self.future.cancel()


class SweepListHandler(Handler):
    async def get(self) -> None:
        listing = await asyncio.get_running_loop().run_in_executor(None, sweeps.listing, self.out)
        self.write({"out": str(self.out), "sweeps": listing})


class SweepHandler(Handler):
    async def get(self, name: str) -> None:
        folder = sweeps.folder_of(self.out, name)
        baseline = self.get_query_argument("baseline", None)
        detail = await asyncio.get_running_loop().run_in_executor(None, sweeps.detail, folder, baseline)
        self.write(detail)


class ResultsDownloadHandler(Handler):
    """Every row of a sweep as one Parquet file."""

    async def get(self, name: str) -> None:
        folder = sweeps.folder_of(self.out, name)
        data = await asyncio.get_running_loop().run_in_executor(None, _parquet_bytes, folder)
        self.set_header("Content-Type", "application/vnd.apache.parquet")
        self.set_header("Content-Disposition", f'attachment; filename="{name}.parquet"')
        self.write(data)


def _parquet_bytes(folder: Path) -> bytes:
    from tilesweep.jobs.results import load_table
    sink = io.BytesIO()
    pq.write_table(load_table(folder), sink)
    return sink.getvalue()


class StaticHandler(StaticFileHandler, Handler):
    """The pages' scripts and styles, with one-line errors."""


class OutFileHandler(StaticFileHandler, Handler):
    """Files of the sweeps under ``--out`` (reports, Parquet parts): nothing outside it, no hidden names."""

    def validate_absolute_path(self, root: str, absolute_path: str) -> str | None:
        real_root, real = os.path.realpath(root), os.path.realpath(absolute_path)
        rel = os.path.relpath(real, real_root)
        if rel.startswith("..") or os.path.isabs(rel) or any(p.startswith(".") for p in Path(rel).parts):
            raise HTTPError(404, "no file %r under the sweeps folder", self.path_args[0] if self.path_args else "")
        if not os.path.isfile(real):
            raise HTTPError(404, "no file %r under the sweeps folder", self.path_args[0] if self.path_args else "")
        return real


def make_app(out: str | os.PathLike, store: str | None, limits: Limits, pool: SolvePool,
             hosts: HostPolicy, plugins=()) -> Application:
    """The tornado application; ``pool`` runs the solves within ``limits``; ``hosts`` names the
    ``Host`` headers it answers; ``plugins`` (``(name, sha256, source)``) are the plugin
    heuristics it offers."""
    out = Path(out).absolute()
    return GuardedApplication([
        (r"/", PageHandler, {"page": "play.html"}),
        (r"/sweeps/?", PageHandler, {"page": "sweeps.html"}),
        (r"/sweeps/([^/]+)", SweepPageHandler, {"page": "sweep.html"}),
        (r"/static/(.*)", StaticHandler, {"path": str(STATIC)}),
        (r"/(favicon\.ico)", StaticHandler, {"path": str(STATIC)}),
        (r"/files/(.*)", OutFileHandler, {"path": str(out)}),
        (r"/api/options", OptionsHandler),
        (r"/api/board", BoardHandler),
        (r"/api/shuffle", ShuffleHandler),
        (r"/api/solve", SolveHandler),
        (r"/api/status", StatusHandler),
        (r"/api/sweeps", SweepListHandler),
        (r"/api/sweeps/([^/]+)", SweepHandler),
        (r"/api/sweeps/([^/]+)/results.parquet", ResultsDownloadHandler),
    ], default_handler_class=DefaultHandler, out=out, store=store, limits=limits, pool=pool, hosts=hosts,
        plugins=tuple(plugins),
        static_hash_cache=False, template_path=str(STATIC), template_whitespace="all")
