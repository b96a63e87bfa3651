"""``tilesweep ui``: a local web page to play and solve boards and to watch sweeps.

:func:`serve` runs the tornado server until interrupted; ``app.make_app`` builds the
routes; ``solves`` validates and runs solves in worker processes; ``sweeps`` reads sweep
folders. The pages are plain HTML, CSS and JavaScript in ``static/`` (no build step, no
network beyond this server).
"""

from __future__ import annotations

if __name__ != "tilesweep.webui":  # a module under two names shares numba's cache files (docs/design.md)
    raise ImportError(f"import tilesweep.webui, not {__name__}; `pip install -e .` in the checkout installs it")

import asyncio
import logging
import signal

from tornado.httpserver import HTTPServer
from tornado.netutil import bind_sockets

from .guard import HostPolicy, check_host_name, is_loopback

__all__ = ["check_host_name", "is_loopback", "serve"]


async def _serve(host: str, port: int, out: str, store: str | None, limits, solvers: int,
                 allowed_hosts, on_ready, plugins) -> None:
    from .app import DRAIN_LIMIT, make_app
    from .solves import SolvePool

    sockets = bind_sockets(port, host)  # first: a port in use fails before any worker starts
    pool = SolvePool(solvers, store, plugins)
    try:
        app = make_app(out, store, limits, pool, HostPolicy.for_server(host, allowed_hosts), plugins)
        server = HTTPServer(app, max_body_size=DRAIN_LIMIT)
        server.add_sockets(sockets)
        on_ready(sockets[0].getsockname()[:2])
        watch = asyncio.create_task(pool.log_when_ready())  # noqa: F841 - kept until the server stops
        stop = asyncio.Event()
        asyncio.get_running_loop().add_signal_handler(signal.SIGTERM, stop.set)
        await stop.wait()  # until SIGTERM or Ctrl-C
    finally:
        pool.close()


def serve(host: str, port: int, out: str, store: str | None, limits, solvers: int,
          allowed_hosts=(), on_ready=lambda address: None, plugins=()) -> None:
    """Serve the UI on ``host:port`` (0: any free port) until Ctrl-C or SIGTERM; solves run in
    ``solvers`` processes within ``limits`` (:class:`webui.solves.Limits`); requests naming
    ``host`` or one of ``allowed_hosts`` are answered (:class:`webui.guard.HostPolicy`);
    ``on_ready((host, port))`` is called once the socket listens. ``plugins``: the
    ``(name, sha256, source)`` of the plugin heuristics the page offers (registered in
    this process already; each solver process registers them too)."""
    handler = logging.StreamHandler()
    handler.setFormatter(logging.Formatter("%(asctime)s %(message)s", "%H:%M:%S"))
    log = logging.getLogger("tilesweep.webui")
    log.addHandler(handler)
    log.setLevel(logging.INFO)
    try:
        asyncio.run(_serve(host, port, out, store, limits, solvers, allowed_hosts, on_ready, plugins))
    except KeyboardInterrupt:
        pass
