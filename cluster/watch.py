"""Watching a running sweep's workers: none for too long, or one of another tilesweep
version, stops the sweep.

A scheduler that lost its workers (they died with a restarted scheduler, or were never
started) accepts tasks and waits, and so would the sweep, silently and for ever. The
watch asks the scheduler for its worker count every second; after ``NOTICE_SECONDS``
without a worker it says so once, and after ``worker_wait`` seconds it stops the run.
A worker of another version that joins mid-sweep says so on
:data:`~.plugin.VERSION_TOPIC`; the watch stops the run on it at its next tick.

Stopping closes the client, which ends whatever the run was waiting for; the run then
raises the watch's error (:meth:`WorkerWatch.check`) instead of the one closing caused.
Leaving the watch waits for that close to end: a second close of the same client begun
meanwhile (the run's own, on its way out) would wait for ever on the event loop the first
one stops.
"""

from __future__ import annotations

import threading
import time

from distributed import Client

from .connect import ClusterError
from .plugin import VERSION_TOPIC, VersionMismatchError

NOTICE_SECONDS = 10.0  # no worker for this long is worth a line
WORKER_WAIT_SECONDS = 300.0  # the default of --worker-wait
BATCH_WORKER_WAIT_SECONDS = 1800.0  # its default for batch-job workers, which may wait in a busy queue
POLL_SECONDS = 1.0
CLOSE_SECONDS = 20.0


def worker_wait(run) -> float:
    """Seconds a sweep run with ``run`` (its :class:`~tilesweep.jobs.options.RunOptions`)
    waits while the scheduler has no worker: its ``worker_wait``, else the default for its kind."""
    if run.worker_wait is not None:
        return run.worker_wait
    return BATCH_WORKER_WAIT_SECONDS if run.batch else WORKER_WAIT_SECONDS


class NoWorkersError(ClusterError):
    """The scheduler had no worker for longer than the sweep would wait."""


def wait_for_workers(client: Client, count: int, seconds: float) -> None:
    """Return once ``count`` workers have joined ``client``'s scheduler (``--wait-for-workers``);
    :class:`NoWorkersError` after ``seconds`` (``--worker-wait``) with fewer."""
    try:
        client.wait_for_workers(count, timeout=seconds or 0.001)  # Dask's 0: no limit
    except TimeoutError:
        joined = client.scheduler_info(n_workers=0)["n_workers"]
        raise NoWorkersError(f"{joined} of {count} Dask workers joined the scheduler {client.scheduler.address} in "
                             f"{seconds:g} s (--wait-for-workers {count}, --worker-wait)") from None


class WorkerWatch:
    """A thread that stops the run of ``client`` once its scheduler has had no worker for
    ``wait`` seconds, or a worker of another version joined; ``on_notice(seconds, address)``
    is called once the scheduler has had no worker for ``NOTICE_SECONDS`` (or ``wait``, if
    shorter), and again after workers came and went.

    Use as a context manager around the run; :meth:`check` turns the error the run met
    into :class:`NoWorkersError` or :class:`~.plugin.VersionMismatchError` when the watch
    stopped it.
    """

    def __init__(self, client: Client, wait: float = WORKER_WAIT_SECONDS, on_notice=None):
        self.client, self.wait, self.on_notice = client, wait, on_notice
        self.address = client.scheduler.address
        self.expired: NoWorkersError | VersionMismatchError | None = None
        self._mismatch: VersionMismatchError | None = None
        self._stop = threading.Event()
        self._lock = threading.Lock()  # the run leaving and the watch stopping it: one or the other
        self._closed = threading.Event()
        self._thread = threading.Thread(target=self._watch, name="tilesweep-worker-watch", daemon=True)

    def __enter__(self) -> WorkerWatch:
        self.client.subscribe_topic(VERSION_TOPIC, self._on_mismatch)
        self._thread.start()
        return self

    def __exit__(self, *exc) -> None:
        with self._lock:
            self._stop.set()  # not joined: a poll may wait for a lost scheduler's connect timeout
        if self.expired is not None:
            self._closed.wait()
        if self.client.status == "running":
            self.client.unsubscribe_topic(VERSION_TOPIC)

    def _on_mismatch(self, event) -> None:
        """A worker's mismatch (on the client's event loop, which must not wait for the close)."""
        self._mismatch = VersionMismatchError(event[1])

    def check(self) -> None:
        """Raise the error the watch stopped the run with, if it did."""
        if self.expired is not None:
            raise self.expired from None

    def _workers(self) -> int | None:
        try:
            return self.client.scheduler_info(n_workers=0)["n_workers"]
        # A lost scheduler is the run's to report (it reconnects or stops); whatever Dask
        # raises while the connection is down, there is no count to act on.
        except Exception:  # noqa: BLE001
            return None

    def _watch(self) -> None:
        since, noticed = None, False
        while not self._stop.wait(POLL_SECONDS):
            if self._mismatch is not None:
                return self._expire(self._mismatch)
            count = self._workers()
            if count is None:
                continue
            if count:
                since, noticed = None, False
                continue
            since = time.monotonic() if since is None else since
            idle = time.monotonic() - since
            if not noticed and idle >= min(NOTICE_SECONDS, self.wait):
                noticed = True
                if self.on_notice is not None:
                    self.on_notice(idle, self.address)
            if idle >= self.wait:
                return self._expire(NoWorkersError(f"no Dask worker joined the scheduler {self.address} in "
                                                   f"{self.wait:g} s (--worker-wait)"))

    def _expire(self, error: ClusterError) -> None:
        with self._lock:
            if self._stop.is_set():  # the run ended meanwhile: its own close follows
                return
            self.expired = error
        try:
            self.client.close(timeout=CLOSE_SECONDS)
        # A scheduler that does not answer the close: the client is closed on this side all
        # the same, and the run reports the watch's error.
        except Exception:  # noqa: BLE001
            pass
        finally:
            self._closed.set()
