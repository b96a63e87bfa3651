"""One run of a sweep at a time: an exclusive ``flock`` of ``OUT/NAME/.lock`` for the whole run.

The lock file holds who took it (pid, host, time), so a second run can say who holds it.
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
        self.handle.truncate(0)
        started = datetime.now(timezone.utc).isoformat(timespec="seconds")
        self.handle.write(json.dumps({"pid": os.getpid(), "host": socket.gethostname(), "started": started}))
        self.handle.flush()

    def release(self) -> None:
        self.handle.close()  # closing the descriptor releases the lock

    def __enter__(self) -> "SweepLock":
        return self

    def __exit__(self, *exc) -> None:
        self.release()
