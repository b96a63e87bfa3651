"""One run of a sweep at a time: an exclusive ``flock`` of ``OUT/NAME/.lock`` for the whole run.

The lock file holds who took it (pid, host, time, and the Dask dashboard once connected), so
a second run can say who holds it and the web UI can link a running sweep's dashboard.
The kernel releases the lock when its holder exits or dies, so a killed run never leaves
a stale lock; the text left behind is overwritten by the next holder.
"""

from __future__ import annotations

import fcntl
import json
import os
import socket
from datetime import datetime, timezone
from pathlib import Path

from tilesweep.solver.errors import TilesweepError

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
    """What the lock file says about the run holding it, when that run's process is alive on
    this host; else None. Read without taking the lock, which would make a run starting at
    that moment fail as busy."""
    try:
        info = json.loads((Path(folder) / LOCK_FILE).read_text())
        pid, host = int(info["pid"]), info["host"]
    except (OSError, ValueError, KeyError, TypeError):
        return None
    if host != socket.gethostname():
        return None  # another machine's process cannot be checked from here
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return None
    except PermissionError:
        pass  # alive, another user's
    return info


class SweepLock:
    """Hold the sweep folder's lock until :meth:`release` (or until this object is collected)."""

    def __init__(self, folder: Path, name: str):
        path = Path(folder) / LOCK_FILE
        self.handle = open(path, "a+")  # noqa: SIM115 - held for the whole run, closed by release()
        try:
            fcntl.flock(self.handle, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except BlockingIOError:
            self.handle.close()
            raise SweepBusyError(f"sweep {name!r} in {str(Path(folder).parent)!r} is already running "
                                 f"({_holder(path)}); wait for that run to end, or stop it, and rerun "
                                 "(it resumes from the parts written)") from None
        started = datetime.now(timezone.utc).isoformat(timespec="seconds")
        self.info = {"pid": os.getpid(), "host": socket.gethostname(), "started": started}
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
        self.handle.close()  # closing the descriptor releases the lock

    def __enter__(self) -> "SweepLock":
        return self

    def __exit__(self, *exc) -> None:
        self.release()
