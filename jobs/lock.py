"""One run of a sweep at a time: an exclusive ``flock`` of the sweep's folder and of its
``OUT/NAME/.lock`` file for the whole run.

The folder's lock cannot be undone by deleting a file (a folder in use is not removed
without the run noticing); the file's also reaches runs on other hosts sharing the folder
over NFS, whose lock manager carries file locks but keeps directory locks local. The lock
file holds who took it (:mod:`.process` identity, time, and the Dask dashboard once
connected), so a second run can say who holds it and ``status`` and the web UI can link a
running sweep's dashboard. The kernel releases the locks when their holder exits or dies,
so a killed run never leaves a stale lock; the text left behind is overwritten by the next
holder.
"""

from __future__ import annotations

import fcntl
import ipaddress
import json
import os
import re
import weakref
from datetime import datetime, timezone
from pathlib import Path

from tilesweep.solver.errors import TilesweepError

from .process import identity, not_running

LOCK_FILE = ".lock"


class SweepBusyError(TilesweepError):
    """Another process is running the same sweep."""


def _holder(path: Path) -> str:
    try:
        info = json.loads(path.read_text())
        return f"pid {info['pid']} on {info['host']}, since {info['started']}"
    except (OSError, ValueError, KeyError, TypeError):
        return "another process"  # it has not written its name yet


def running_run(folder: Path) -> dict | None:
    """What the lock file says about the run holding it, when that run's process (the one
    recorded, not a later holder of its pid) runs on this host; else None. Read without
    taking the lock, which would make a run starting at that moment fail as busy."""
    try:
        info = json.loads((Path(folder) / LOCK_FILE).read_text())
    except (OSError, ValueError):
        return None
    return info if isinstance(info, dict) and not_running(info) is None else None


# An http(s) address on this machine's loopback, as Dask gives its dashboard's: nothing that
# could run in a page (``javascript:``) or send a click elsewhere is shown or linked.
LOOPBACK_HTTP = re.compile(r"https?://(localhost|127\.[0-9.]+|\[::1\])(:[0-9]{1,5})?(/[A-Za-z0-9._~/%-]*)?")


def loopback_http(url) -> bool:
    """Whether ``url`` is an http(s) address on this machine's loopback."""
    match = LOOPBACK_HTTP.fullmatch(url) if isinstance(url, str) else None
    if match is None:
        return False
    if match.group(1) == "localhost":
        return True
    try:
        return ipaddress.ip_address(match.group(1).strip("[]")).is_loopback
    except ValueError:  # short forms (127.1) and parts above 255: refused
        return False


def running_dashboard(folder: Path) -> str | None:
    """The Dask dashboard the run holding the sweep's lock noted, if that run is alive and the
    address is http(s) on loopback (:data:`LOOPBACK_HTTP`)."""
    link = (running_run(folder) or {}).get("dashboard")
    return link if loopback_http(link) else None


class SweepLock:
    """Hold the sweep folder's locks until :meth:`release` (or until this object is collected)."""

    def __init__(self, folder: Path, name: str):
        path = Path(folder) / LOCK_FILE
        folder_fd = os.open(folder, os.O_RDONLY | os.O_DIRECTORY)
        self._close_folder = weakref.finalize(self, os.close, folder_fd)
        self.handle = None
        try:
            fcntl.flock(folder_fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
            self.handle = open(path, "a+")  # noqa: SIM115 - held for the whole run, closed by release()
            fcntl.flock(self.handle, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except BlockingIOError:
            self.release()
            raise SweepBusyError(f"sweep {name!r} in {str(Path(folder).parent)!r} is already running "
                                 f"({_holder(path)}); wait for that run to end, or stop it, and rerun "
                                 "(it resumes from the parts written)") from None
        except BaseException:
            self.release()
            raise
        started = datetime.now(timezone.utc).isoformat(timespec="seconds")
        self.info = {**identity(os.getpid()), "started": started}
        self._write()

    def _write(self) -> None:
        self.handle.seek(0)
        self.handle.truncate(0)
        self.handle.write(json.dumps(self.info))
        self.handle.flush()

    def note(self, **fields) -> None:
        """Add ``fields`` (e.g. ``dashboard``) to what the lock file says about this run."""
        self.info.update(fields)
        self._write()

    def release(self) -> None:
        if self.handle is not None:
            self.handle.close()  # closing a descriptor releases its lock
        self._close_folder()

    def __enter__(self) -> "SweepLock":
        return self

    def __exit__(self, *exc) -> None:
        self.release()
