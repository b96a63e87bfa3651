"""A sweep's kernels compiled in the embedded cluster's fork server, before it forks a worker.

The fork server (:func:`.connect.start_fork_server`) imports this module first, then Dask,
NumPy and pandas, before it forks the embedded workers. Asked to by
``$TILESWEEP_FORK_WARM`` (set by :func:`request` for the server alone), the import also
compiles the sweep's kernels, or loads them from numba's cache, under the machine's compile
lock (:mod:`tilesweep.jobs.kernels`). Every worker forked afterwards starts with them in
memory: the machine compiles once, while the client plans the sweep, and no worker compiles
or loads them again. The workers' own warm-up then finds them ready.

Forking after compiling is safe here: the kernels a sweep's chunk calls are
single-threaded, so numba's threading layer (which does not survive a fork) never starts
in the server, and the server forks only after the warm-up, with no thread of its own
running (the watch on the client below is joined first).

The server writes how it stands in a status file that the client follows (:func:`follow`)
before it starts the cluster, so that a Ctrl-C during a first run's compile stops the
client at once (a cluster half started cannot be closed, so its start holds a Ctrl-C).
"""

from __future__ import annotations

import json
import os
import time
from pathlib import Path

ENV = "TILESWEEP_FORK_WARM"
# Past this without a word from the server, the client stops following it: the server could
# not import this module (then the workers cannot import tilesweep either, and say so).
SILENCE_SECONDS = 60.0


def request(size: int, goal, combos, instances: str | None, status: Path) -> str:
    """The value of ``$TILESWEEP_FORK_WARM`` for a sweep (parent pruning: a pruning
    automaton is read from the store, which the workers do); the server reports in
    ``status``, which this writes as ``pending``."""
    write_status(status, "pending")
    return json.dumps({"size": size, "goal": list(goal), "combos": [list(c) for c in combos],
                       "instances": instances, "status": str(status)})


def write_status(path: Path, *words) -> None:
    """Replace ``path``'s content with ``words`` at once (a reader never sees half of it)."""
    from tilesweep.pdb_store.files import atomic_write  # here: the server imports this module first

    atomic_write(path, lambda handle: handle.write(" ".join(map(str, words)).encode()))


def follow(status: Path, on_state, poll: float = 0.05) -> None:
    """Wait until the fork server has warmed the kernels; ``on_state`` receives
    ``{"state": "compiling"}`` or ``{"state": "waiting"}`` as the server says so, then
    ``{"state": "compiled", "seconds": ...}`` if it compiled. Ctrl-C interrupts the wait.
    The status file is removed at the end."""
    said, started = set(), time.monotonic()
    while status.exists():  # gone: followed before
        words = status.read_text().split() or ["pending"]
        state = words[0]
        if state == "done" or state == "pending" and time.monotonic() - started > SILENCE_SECONDS:
            status.unlink(missing_ok=True)
            if state == "done" and float(words[1]) > 0:
                on_state({"state": "compiled", "seconds": float(words[1])})
            return
        if state in ("compiling", "waiting") and state not in said:
            said.add(state)
            on_state({"state": state})
        time.sleep(poll)


def warm_from_env() -> None:
    """In the fork server: warm the kernels that ``$TILESWEEP_FORK_WARM`` names, if set,
    reporting in its status file; ``done SECONDS`` (of compiling; 0 when loaded) at the end."""
    text = os.environ.pop(ENV, None)
    if not text:
        return
    ask = json.loads(text)
    status = Path(ask["status"])
    seconds = 0.0
    try:
        write_status(status, "warming")
        from tilesweep.jobs.kernels import leaving_with_parent, warm_sweep_kernels
        from tilesweep.solver.jit import watch_compiles
        with leaving_with_parent(), watch_compiles(lambda: write_status(status, "compiling")) as watch:
            warm_sweep_kernels(ask["size"], tuple(ask["goal"]), [tuple(c) for c in ask["combos"]],
                               instances=ask["instances"], on_wait=lambda: write_status(status, "waiting"),
                               two_at_once=True)
        seconds = watch.seconds
    finally:
        write_status(status, "done", seconds)


try:
    warm_from_env()
# An exception other than ImportError from a module the fork server imports ends the server,
# and every worker start with it; without the warm-up, each worker warms its kernels itself.
except Exception:  # noqa: BLE001
    pass
