"""Connecting to Dask: an embedded LocalCluster, or an existing scheduler by address."""

from __future__ import annotations

import atexit
import importlib.util
import logging
import multiprocessing.forkserver
import multiprocessing.resource_tracker
import os
import signal
import socket
import stat
import sys
import threading
import time
from contextlib import ExitStack, contextmanager

import dask
from distributed import Client, LocalCluster, WorkerPlugin
from distributed.core import Status
from distributed.utils import get_mp_context

from tilesweep.solver.errors import InvalidOptionError, TilesweepError

from . import forkwarm

SCHEDULER_ENV = "DASK_SCHEDULER_ADDRESS"
FORK_WARM = forkwarm.__name__  # imported by the fork server first: it says at once how it stands

# Background work the embedded cluster's processes skip, because each wake-up takes a
# worker's GIL or a core from the solves (2 workers on 2 cores leave no core spare).
# Measured here: the statistical profiler, which samples the task thread every 10 ms and
# sees a numba kernel as a single frame, cost ~2.5 % of each worker's CPU; the 20 ms
# event-loop tick (a diagnostic) kept an idle 2-worker cluster at 11 % of a core, 2 %
# with a 1 s tick. Clusters started elsewhere keep their own configuration.
EMBEDDED_CONFIG = {
    "distributed.worker.profile.enabled": False,
    "distributed.admin.tick.interval": "1s",
    "distributed.worker.memory.monitor-interval": "1s",  # the nanny's RSS polling (100 ms)
    "distributed.admin.system-monitor.interval": "2s",  # dashboard CPU/memory plots (500 ms)
    # Workers forked from one server that has imported Dask, NumPy and pandas, instead of
    # each spawning a fresh interpreter: a 2-worker sweep starts its first task 0.4 s sooner
    "distributed.worker.multiprocessing-method": "forkserver",
}
# A failed task becomes an error row or the client's one line; the embedded workers' own
# log of it ("Compute Failed" and its traceback) would only bury that line.
WORKER_LOG_LEVEL = logging.CRITICAL

_fork_server: threading.Thread | None = None


def start_fork_server(warm: str | None = None) -> threading.Thread:
    """Start the embedded cluster's fork server in the background, once: it imports Dask,
    NumPy, pandas and tilesweep's kernels (a second or two) on the other core while this
    process plans the work, instead of when the cluster starts. Returns the thread that
    starts it.

    ``warm`` (:func:`.forkwarm.request`) also has it compile a sweep's kernels, or load
    them from numba's cache, before it forks the workers: they start with them in memory.

    The server is started with SIGINT blocked, a mask its processes (the embedded workers)
    inherit: a terminal's Ctrl-C reaches this client alone, which stops the cluster and
    prints one line, instead of every worker printing a ``KeyboardInterrupt`` traceback.
    """
    global _fork_server

    def start():
        with dask.config.set(EMBEDDED_CONFIG):
            context = get_mp_context()  # sets what the server imports: Dask's list
        context.set_forkserver_preload([FORK_WARM, *multiprocessing.forkserver._forkserver._preload_modules])
        # The resource tracker's start unblocks SIGINT in the thread that starts it: start it first
        multiprocessing.resource_tracker.ensure_running()
        signal.pthread_sigmask(signal.SIG_BLOCK, {signal.SIGINT})  # this thread's mask, inherited by the server
        if warm is not None:
            os.environ[forkwarm.ENV] = warm  # inherited by the server alone: removed once it started
        try:
            multiprocessing.forkserver.ensure_running()
        finally:
            os.environ.pop(forkwarm.ENV, None)

    if _fork_server is None:
        _fork_server = threading.Thread(target=start, daemon=True)
        _fork_server.start()
    return _fork_server


def fork_server_started() -> bool:
    """Whether :func:`start_fork_server` was called in this process (a later call does nothing)."""
    return _fork_server is not None


class ClusterError(TilesweepError):
    """The scheduler cannot be reached, or a sweep task failed on the cluster."""


PROTOCOLS = ("tcp", "tls", "ws", "wss", "ucx", "inproc")
HANDSHAKE_SECONDS = 3.0  # a Dask server sends its handshake at once on accepting


def scheduler_address(scheduler: str | None, scheduler_file: str | None = None, on_wait=None) -> str | None:
    """``--scheduler``, else the address in ``--scheduler-file``, else
    ``$DASK_SCHEDULER_ADDRESS``, else None (embedded cluster). ``on_wait``: as
    :func:`read_scheduler_file` takes it."""
    if scheduler is None and scheduler_file is not None:
        scheduler = read_scheduler_file(scheduler_file, on_wait=on_wait)
    address = scheduler or os.environ.get(SCHEDULER_ENV) or None
    if address is None:
        return None
    check_tls(check_address(address))
    return address


def _scheduler_file_ready(path: str) -> bool:
    """Whether ``path`` is a regular file; False while it is missing; an
    :class:`InvalidOptionError` for a folder, FIFO or device, which a scheduler never replaces."""
    try:
        mode = os.stat(path).st_mode
    except FileNotFoundError:
        return False
    except OSError as err:
        raise InvalidOptionError(f"scheduler file {path!r} cannot be read ({err.strerror}); expected the JSON file "
                                 "'dask scheduler --scheduler-file' writes") from None
    if stat.S_ISREG(mode):
        return True
    kind = "a folder" if stat.S_ISDIR(mode) else "a FIFO or device"
    raise InvalidOptionError(f"scheduler file {path!r} is {kind}; expected the JSON file "
                             "'dask scheduler --scheduler-file' writes (or a name it will write)")


SCHEDULER_FILE_SECONDS = 120.0  # a scheduler started beside the sweep (one allocation) writes it within seconds


def read_scheduler_file(path: str, seconds: float = SCHEDULER_FILE_SECONDS, on_wait=None) -> str:
    """The address in a Dask scheduler file (``dask scheduler --scheduler-file PATH`` writes
    it once it listens), waiting up to ``seconds`` for it to appear; ``on_wait(path, seconds)``
    is called once when the file is not there yet (a sweep's
    :meth:`~.events.SweepEvents.scheduler_file_wait`, which says so).
    A name taken by what can never become that file (a folder, FIFO or device) is refused at once."""
    import json

    deadline = time.monotonic() + seconds
    said = on_wait is None  # nothing to tell
    while not _scheduler_file_ready(path):
        if time.monotonic() >= deadline:
            raise ClusterError(f"no Dask scheduler file at {path!r} after {seconds:g} s; expected the file that "
                               f"'dask scheduler --scheduler-file {path}' writes once it listens")
        if not said:
            on_wait(path, seconds)
            said = True
        time.sleep(0.5)
    try:
        with open(path) as f:
            address = json.load(f)["address"]
    except (OSError, ValueError, KeyError, TypeError) as err:
        raise InvalidOptionError(f"scheduler file {path!r} cannot be read as a Dask scheduler file ({err}); "
                                 "expected the JSON file 'dask scheduler --scheduler-file' writes") from None
    if not isinstance(address, str):
        raise InvalidOptionError(f"scheduler file {path!r} holds no address text; expected the JSON file "
                                 "'dask scheduler --scheduler-file' writes")
    return address


def check_address(address: str) -> str:
    """``address`` if it reads as ``[PROTOCOL://]HOST:PORT``, else an error quoting it."""
    from distributed.comm.addressing import parse_address, parse_host_port

    try:
        protocol, location = parse_address(address)
        host, port = parse_host_port(location)
    except ValueError:
        protocol, host, port = None, "", 0
    if protocol not in PROTOCOLS or not host or not 1 <= int(port) <= 65535:
        raise InvalidOptionError(f"scheduler {address!r} is not a Dask scheduler address; expected "
                                 "[tcp://]HOST:PORT, e.g. tcp://10.0.0.5:8786")
    return address


TLS_SETTINGS = {"ca_file": "distributed.comm.tls.ca-file", "cert": "distributed.comm.tls.client.cert"}


def check_tls(address: str) -> None:
    """A ``tls://`` address needs Dask's TLS settings for a client (its CA and certificate,
    e.g. ``$DASK_DISTRIBUTED__COMM__TLS__CA_FILE``); without them Dask fails deep in its
    connect. One line naming what is missing, or the file that cannot be used."""
    if not address.startswith("tls://"):
        return
    import ssl

    from distributed.security import Security

    security = Security()
    tls = security.get_tls_config_for_role("client")
    missing = [setting for key, setting in TLS_SETTINGS.items() if not tls.get(key)]
    if missing:
        raise InvalidOptionError(f"scheduler {address!r} is a TLS address, but Dask's configuration has no "
                                 f"{' and no '.join(missing)}; expected the cluster's CA and a client certificate "
                                 "(and key) there, e.g. $DASK_DISTRIBUTED__COMM__TLS__CA_FILE, "
                                 "$DASK_DISTRIBUTED__COMM__TLS__CLIENT__CERT and ..._CLIENT__KEY")
    try:
        security.get_connection_args("client")
    except (OSError, ssl.SSLError) as err:
        raise InvalidOptionError(f"scheduler {address!r}: Dask's TLS settings cannot be used ({err}); expected "
                                 "readable PEM files for distributed.comm.tls.ca-file, .client.cert and "
                                 ".client.key") from None


def probe_scheduler(address: str, timeout: float = 5.0) -> None:
    """Check that a Dask server answers at a ``tcp://`` ``address``; raise :class:`ClusterError`
    naming what did answer (nothing, or e.g. an HTTP server such as the dashboard)."""
    from distributed.comm.addressing import parse_address, parse_host_port

    protocol, location = parse_address(address)
    if protocol != "tcp":
        return
    host, port = parse_host_port(location)
    try:
        with socket.create_connection((host, port), timeout=timeout) as sock:
            sock.settimeout(HANDSHAKE_SECONDS)
            if _received(sock):
                return
            sock.settimeout(1.0)
            sock.sendall(b"GET / HTTP/1.0\r\nHost: " + host.encode() + b"\r\n\r\n")
            reply = _received(sock)
    except OSError as err:
        raise ClusterError(f"cannot reach the Dask scheduler {address!r} ({err.strerror or err}); start one "
                           "with 'dask scheduler' or drop --scheduler for a local cluster") from None
    what = "an HTTP server (the dashboard's port? a scheduler listens on 8786 by default)" \
        if reply.startswith(b"HTTP/") else "a program that is not a Dask scheduler"
    raise ClusterError(f"no Dask scheduler answers at {address!r}: {what} accepted the connection "
                       "but sent no Dask handshake")


RECONNECT_ENV = "TILESWEEP_RECONNECT_SECONDS"
RECONNECT_SECONDS = 60.0


def reconnect_seconds() -> float:
    """How long a sweep waits for a lost scheduler: ``$TILESWEEP_RECONNECT_SECONDS`` (default 60)."""
    try:
        return max(0.0, float(os.environ.get(RECONNECT_ENV, RECONNECT_SECONDS)))
    except ValueError:
        return RECONNECT_SECONDS


def wait_for_scheduler(scheduler: str | None, seconds: float, poll: float = 1.0,
                       scheduler_file: str | None = None) -> bool:
    """Whether a Dask scheduler answers at ``scheduler`` (or the address in
    ``scheduler_file``, read anew each time: a restarted scheduler writes its new one) within
    ``seconds`` (the embedded cluster never comes back: False)."""
    deadline = time.monotonic() + seconds
    while True:
        try:
            address = scheduler_address(scheduler, scheduler_file)
            if address is None:
                return False
            probe_scheduler(address, timeout=poll)
            return True
        except TilesweepError:
            if time.monotonic() >= deadline:
                return False
            time.sleep(poll)


def _received(sock) -> bytes:
    try:
        return sock.recv(64)
    except (socket.timeout, ConnectionResetError):
        return b""


# Any free port on loopback: on a shared machine (a login node) other users cannot open it
DASHBOARD_ADDRESS = "127.0.0.1:0"


def dashboard_option() -> str | None:
    """:data:`DASHBOARD_ADDRESS` when bokeh is installed, else None (no dashboard)."""
    return DASHBOARD_ADDRESS if importlib.util.find_spec("bokeh") is not None else None


# Local worker processes per core at most: more only share the cores, each a process of its
# own to start and to keep in memory
WORKERS_PER_CORE = 4


def check_workers(workers: int | None) -> int:
    """``--workers`` of a local cluster, defaulting to the core count; at most
    :data:`WORKERS_PER_CORE` per core."""
    cores = os.cpu_count() or 1
    if workers is None:
        return cores
    if isinstance(workers, bool) or not isinstance(workers, int) or workers < 1:
        raise InvalidOptionError(f"workers {workers!r} is not a positive whole number of processes")
    if workers > WORKERS_PER_CORE * cores:
        raise InvalidOptionError(f"workers {workers!r} is more than this machine runs well: expected at most "
                                 f"{WORKERS_PER_CORE * cores} local worker processes ({WORKERS_PER_CORE} per core, "
                                 f"{cores} cores); for more, start a Dask cluster and give --scheduler")
    return workers


class QuickExit(WorkerPlugin):
    """An embedded worker closed by its cluster leaves without the interpreter's teardown
    (0.2-0.4 s of freeing numba, LLVM and NumPy, which the cluster's close waits for); a
    worker that exits for any other reason exits as usual."""

    def setup(self, worker) -> None:
        def leave():
            if worker.status == Status.closed:
                sys.stdout.flush()
                sys.stderr.flush()
                os._exit(0)
        atexit.register(leave)


@contextmanager
def connect(scheduler: str | None = None, workers: int | None = None, timeout: str = "10s", batch=None,
            scheduler_file: str | None = None, on_wait=None):
    """Yield a :class:`distributed.Client`; an embedded cluster is closed on exit.

    The embedded cluster is ``LocalCluster(processes=True, threads_per_worker=1,
    n_workers=workers, host="127.0.0.1")``: one single-threaded process per core, so
    numba kernels never share a GIL; its processes run with :data:`EMBEDDED_CONFIG`.

    ``batch``: the keyword arguments of :func:`.jobqueue.job_cluster`, whose workers are
    batch jobs (Slurm); closing the cluster cancels them. ``scheduler_file``: a Dask
    scheduler file naming the scheduler's address (``on_wait``: as :func:`read_scheduler_file`).
    """
    address = scheduler_address(scheduler, scheduler_file, on_wait)
    with quiet_dask_logs():
        if batch is not None:
            from .jobqueue import job_cluster
            with job_cluster(**batch) as cluster, Client(cluster) as client:
                yield client
        elif address is not None:
            with _remote_client(address, timeout) as client:
                yield client
        else:
            with _local_client(workers) as client:
                yield client


@contextmanager
def _remote_client(address: str, timeout: str):
    probe_scheduler(address)
    try:
        client = Client(address, timeout=timeout)
    except (OSError, TimeoutError) as err:
        raise ClusterError(f"cannot reach the Dask scheduler {address!r} ({err}); start one "
                           "with 'dask scheduler' or drop --scheduler for a local cluster") from None
    with client:
        yield client


@contextmanager
def _local_client(workers: int | None):
    n = check_workers(workers)
    start_fork_server().join()  # the workers fork from it, never from a server started without the mask
    # Any free port. Without bokeh, distributed still serves a few plain routes there
    # (passing None would still bind :8787), so the port is never fixed; no link is printed.
    with dask.config.set(EMBEDDED_CONFIG), ExitStack() as stack:
        with interrupt_deferred():
            cluster = stack.enter_context(LocalCluster(n_workers=n, threads_per_worker=1, processes=True,
                                                       host="127.0.0.1", dashboard_address=DASHBOARD_ADDRESS,
                                                       silence_logs=WORKER_LOG_LEVEL))
            client = stack.enter_context(Client(cluster))
            client.register_plugin(QuickExit(), name="tilesweep-quick-exit")
        yield client


@contextmanager
def quiet_dask_logs():
    """Dask's loggers in this process (its client, and the scheduler and nannies of an
    embedded cluster) log only CRITICAL records while the block runs.

    Every way a run can fail ends in tilesweep's one line; Dask's own records of it (a lost
    scheduler's reconnection traceback, connection errors while a cluster with tasks in
    flight closes) would only bury that line. Dask gives some of its loggers levels of
    their own (``distributed.client``), so each of those is raised, not just the parent.
    """
    names = ["distributed", *(name for name in logging.root.manager.loggerDict if name.startswith("distributed."))]
    loggers = [logger for logger in map(logging.getLogger, names) if logger.level != logging.NOTSET]
    levels = [logger.level for logger in loggers]
    for logger in loggers:
        logger.setLevel(logging.CRITICAL)
    try:
        yield
    finally:
        for logger, level in zip(loggers, levels, strict=True):
            logger.setLevel(level)


@contextmanager
def interrupt_deferred():
    """Hold a Ctrl-C (SIGINT) that arrives in the block and raise it when the block ends.

    A Dask cluster interrupted half-way through its start cannot be closed (at exit Dask
    fails with ``AssertionError: Status.init``); started, it is closed like any other.
    Outside the main thread, where Python handles signals, the block runs as it is.
    """
    if threading.current_thread() is not threading.main_thread():
        yield
        return
    received = []
    previous = signal.signal(signal.SIGINT, lambda signum, frame: received.append(signum))
    try:
        yield
    finally:
        signal.signal(signal.SIGINT, previous)
    if received:
        raise KeyboardInterrupt


def dashboard_link(client: Client) -> str | None:
    """The dashboard URL, or None when the scheduler has none."""
    if dashboard_option() is None:
        return None  # without bokeh the dashboard pages cannot render
    info = client.scheduler_info() if client.status == "running" else {}
    port = info.get("services", {}).get("dashboard")
    return client.dashboard_link if port else None
