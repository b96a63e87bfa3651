"""Which process a record names, so that a reused pid is never taken for it.

A pid is given to a new process once its holder has ended. A record (``client.json``, the
sweep's ``.lock``) therefore names its process by host, boot, pid and the process's start
time (field 22 of ``/proc/PID/stat``, clock ticks since boot): a later process with the same
pid started later, and after a reboot the boot id differs. Linux only (``/proc``): where the
start time cannot be read, no recorded process is seen running and none is signalled.
"""

from __future__ import annotations

import os
import signal
import socket
import time
from pathlib import Path

BOOT_ID = Path("/proc/sys/kernel/random/boot_id")
WAIT_STEP = 0.2  # seconds between two looks at a process being waited for


def _stat(pid: int) -> tuple[str, int] | None:
    """(state, start time in clock ticks) of process ``pid``, or None if there is none."""
    try:
        text = Path(f"/proc/{pid}/stat").read_text()
    except (OSError, ValueError):
        return None
    fields = text.rsplit(")", 1)[1].split()  # after the name in parentheses, which may hold both
    return fields[0], int(fields[19])  # fields 3 and 22 of proc(5)


def _boot() -> str | None:
    try:
        return BOOT_ID.read_text().strip()
    except OSError:
        return None


def identity(pid: int) -> dict:
    """What names the running process ``pid`` in a record: pid, host, boot and start time."""
    stat = _stat(pid)
    return {"pid": pid, "host": socket.gethostname(), "boot": _boot(), "start_ticks": stat[1] if stat else None}


def not_running(record: dict | None) -> str | None:
    """Why the process ``record`` names (see :func:`identity`) is not running on this host,
    or None when it runs: the same pid, boot and start time, and not a zombie (ended, not yet
    reaped by its parent)."""
    if not isinstance(record, dict) or "pid" not in record:
        return "no client is recorded"
    pid = record["pid"]
    if record.get("host") != socket.gethostname():
        return f"pid {pid} was recorded on host {record.get('host')!r}, not this one"
    if not isinstance(pid, int) or record.get("start_ticks") is None or record.get("boot") is None:
        return f"pid {pid!r} was recorded without its start time, so it cannot be told from a later process"
    stat = _stat(pid)
    if stat is None or stat[0] == "Z":
        return f"pid {pid} has ended"
    if record["boot"] != _boot() or stat[1] != record["start_ticks"]:
        return f"pid {pid} has ended and the pid now belongs to another process"
    return None


def send_signal(record: dict, signum: int) -> bool:
    """Send ``signum`` to the process ``record`` names if it still runs; False if it does not.
    Through a pidfd opened before the check (on Linux 5.3 and later), so a process that takes
    the pid after the check cannot receive it. PermissionError: another user's process."""
    pid = record["pid"]
    try:
        handle = os.pidfd_open(pid)
    except ProcessLookupError:
        return False
    except OSError:
        handle = None  # an older kernel: the kill follows the check at once
    try:
        if not_running(record) is not None:
            return False
        if handle is None:
            os.kill(pid, signum)
        else:
            signal.pidfd_send_signal(handle, signum)
        return True
    except ProcessLookupError:
        return False
    finally:
        if handle is not None:
            os.close(handle)


def wait_for_end(record: dict, seconds: float) -> bool:
    """Wait up to ``seconds`` for the process ``record`` names to end; whether it did."""
    deadline = time.monotonic() + seconds
    while not_running(record) is None:
        if time.monotonic() >= deadline:
            return False
        time.sleep(WAIT_STEP)
    return True
