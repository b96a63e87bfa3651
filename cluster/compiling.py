"""What the workers' kernels do, told to the client as Dask events: numba compiling them
(a first run on a machine) is the one slow step of a worker's start that is not solving."""

from __future__ import annotations

from contextlib import contextmanager

from distributed import get_worker

from tilesweep.solver.jit import watch_compiles

#: Dask event topic of what a worker's kernels do: {"state": "compiling"}, then {"state":
#: "compiled", "seconds": ...}; {"state": "waiting"} while another process of its machine
#: compiles them. A worker that loads them from numba's cache says nothing.
KERNELS_TOPIC = "tilesweep-kernels"


def report_kernels(state: str, **details) -> None:
    """Tell the client, as event :data:`KERNELS_TOPIC`, what this worker's kernels are doing
    (nothing outside a worker)."""
    try:
        worker = get_worker()
    except ValueError:
        return
    worker.log_event(KERNELS_TOPIC, {"state": state, **details})


@contextmanager
def reported_compiles():
    """Yield a :class:`~tilesweep.solver.jit.CompileWatch`; the client hears when numba
    starts compiling in the block and, after it, how long that took."""
    with watch_compiles(lambda: report_kernels("compiling")) as watch:
        yield watch
    if watch.compiled:
        report_kernels("compiled", seconds=watch.seconds)
