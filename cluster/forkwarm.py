"""A sweep's kernels compiled in the embedded cluster's fork server, before it forks a worker.

The fork server (:func:`.connect.start_fork_server`) imports Dask, NumPy and pandas, then
this module, before it forks the embedded workers. Asked to by ``$TILESWEEP_FORK_WARM``
(set by :func:`request` for the server alone), the import also compiles the sweep's kernels,
or loads them from numba's cache, under the machine's compile lock
(:mod:`tilesweep.jobs.kernels`). Every worker forked afterwards starts with them in memory:
the machine compiles once, while the client plans the sweep and starts the scheduler, and
no worker compiles or loads them again. The workers' own warm-up then finds them ready.

Forking after compiling is safe here: the kernels a sweep's chunk calls are
single-threaded, so numba's threading layer (which does not survive a fork) never starts
in the server, and the server forks only after the warm-up, with no thread of its own
running (the watch on the client below is joined first).

What the server says while it compiles goes to the stderr it shares with the client,
in the words the client passed (``notices``): the client prints nothing until its
workers exist, so the lines never cut into its own.
"""

from __future__ import annotations

import json
import os
import sys
import threading
from contextlib import contextmanager

ENV = "TILESWEEP_FORK_WARM"


def request(size: int, goal, combos, instances: str | None, notices: dict[str, str]) -> str:
    """The value of ``$TILESWEEP_FORK_WARM`` for a sweep (parent pruning: a pruning
    automaton is read from the store, which the workers do).

    ``notices``: ``"compiling"`` (said when numba starts compiling), ``"compiled"`` (with
    ``{seconds}``) and ``"waiting"`` (another process holds the compile lock).
    """
    return json.dumps({"size": size, "goal": list(goal), "combos": [list(c) for c in combos],
                       "instances": instances, "notices": notices})


def say(text: str | None) -> None:
    if text:
        print(text, file=sys.stderr, flush=True)


@contextmanager
def leaving_with_the_client(poll: float = 0.5):
    """Exit this process if the client that started it goes (Ctrl-C, a finished no-op run):
    a server busy compiling does not yet read the pipe that tells it so."""
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


def warm_from_env() -> None:
    """In the fork server: warm the kernels that ``$TILESWEEP_FORK_WARM`` names, if set."""
    text = os.environ.pop(ENV, None)
    if not text:
        return
    from tilesweep.jobs.kernels import warm_sweep_kernels
    from tilesweep.solver.jit import watch_compiles

    ask = json.loads(text)
    notices = ask["notices"]
    with leaving_with_the_client(), watch_compiles(lambda: say(notices.get("compiling"))) as watch:
        warm_sweep_kernels(ask["size"], tuple(ask["goal"]), [tuple(c) for c in ask["combos"]],
                           instances=ask["instances"], on_wait=lambda: say(notices.get("waiting")))
    if watch.compiled:
        say(notices.get("compiled", "").format(seconds=watch.seconds))


try:
    warm_from_env()
# An exception other than ImportError from a module the fork server imports ends the server,
# and every worker start with it; without the warm-up, each worker warms its kernels itself.
except Exception:  # noqa: BLE001
    pass
