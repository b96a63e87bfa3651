"""``tilesweep ui``: the local web page (play, solve, compare, watch sweeps)."""

from __future__ import annotations

from typing import Annotated, Optional

import typer

from tilesweep.commands.exits import fail, run_guarded
from tilesweep.commands.options import MaxMemoryOpt, MaxNodesOpt, PluginOpt, StoreOpt, TimeLimitOpt
from tilesweep.solver.errors import InvalidOptionError


def ui(
    host: Annotated[str, typer.Option(
        "--host", help="Address to bind (loopback by default; anything else is reachable by others).")] = "127.0.0.1",
    port: Annotated[str, typer.Option("--port", help="Port to listen on (0: any free port).")] = "8000",
    out: Annotated[str, typer.Option(
        "--out", help="Folder holding sweeps, the only files the pages serve.")] = "sweeps",
    store: StoreOpt = None,
    max_nodes: MaxNodesOpt = None,
    time_limit: TimeLimitOpt = None,
    max_memory: MaxMemoryOpt = None,
    solvers: Annotated[str, typer.Option("--solvers", help="Solves run at once, each in a worker process.")] = "2",
    allowed_host: Annotated[Optional[list[str]], typer.Option(
        "--allowed-host", help="Another name the pages may be opened under (repeatable), e.g. this machine's "
        "name behind a proxy; requests naming any other host are refused.")] = None,
    plugin: PluginOpt = None,
) -> None:
    """Serve a local web page: play and solve boards, compare algorithms, watch sweeps.

    Each solve is limited by --max-nodes (default 20,000,000) and --time-limit (default 300 s); a page may ask for less.

    Only requests naming this server's address or an --allowed-host are answered, a POST only from its own pages.

    The heuristics of --plugin files are offered as plugin:NAME (and may go inside max(...)).

    Example: tilesweep ui --out sweeps --port 8000 --plugin examples/heuristics/line_conflicts.py
    """
    from tilesweep.jobs.plugins import load_files, sources
    from tilesweep.solver.options import whole_number
    from tilesweep.webui import check_host_name, is_loopback, serve
    from tilesweep.webui.solves import Limits

    def check():
        number = whole_number("port", port, 0)
        if number > 65535:
            raise InvalidOptionError(f"port {number} is out of range; expected 0..65535")
        return (number, whole_number("solvers", solvers, 1), tuple(map(check_host_name, allowed_host or ())),
                sources(load_files(plugin or ())))

    port_number, workers, allowed, plugins = run_guarded(check)
    defaults = Limits()
    limits = Limits(defaults.max_nodes if max_nodes is None else max_nodes,
                    defaults.time_limit if time_limit is None else time_limit, max_memory)
    if not is_loopback(host):
        typer.echo(f"warning: bound to {host}, not a loopback address: anyone who can reach it can run "
                   f"solves and read the sweeps under {out}", err=True)

    def ready(address):
        where = f"[{address[0]}]" if ":" in address[0] else address[0]
        typer.echo(f"tilesweep ui: http://{where}:{address[1]}/  (sweeps under {out}; Ctrl-C stops)")

    try:
        serve(host, port_number, out, store, limits, workers, allowed, on_ready=ready, plugins=plugins)
    except OSError as err:
        fail(f"cannot serve on {host}:{port} ({err.strerror or err}); choose another --host or --port", 1)
