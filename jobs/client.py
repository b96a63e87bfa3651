"""A sweep's client: its record and the sweep's state.

``client.json`` beside ``sweep.json`` holds the identity (:mod:`.process`: pid, host, boot and
the process's start time), start and command of the process that runs (or last ran) the
sweep's chunks, and its log when it was detached (``sweep --detach``). A sweep's state is read
from it and from the parts on disk: ``finished`` (every chunk saved), ``running`` (its client
is alive: that very process, never a later one given its pid), ``cancelled``
(``tilesweep cancel`` stopped it), ``interrupted`` (its client is gone before the end),
``planned`` (nothing started yet).
"""

from __future__ import annotations

import json
import os
import time
from datetime import datetime, timezone
from pathlib import Path

from .parts import write_json
from .process import identity, not_running

RECORD = "client.json"
LOG = "client.log"


def record_client(folder: Path, pid: int, command: str, log: str | None = LOG) -> None:
    write_json(Path(folder) / RECORD, {**identity(pid), "command": command, "log": log,
                                       "started": datetime.now(timezone.utc).isoformat(timespec="seconds")})


def record_this_client(folder: Path, command: str) -> None:
    """Record this process as the sweep's client, unless it is the detached client its
    parent recorded already (this very process: that record names its log)."""
    record = read_client(folder)
    if record and record.get("pid") == os.getpid() and not_running(record) is None:
        return
    record_client(folder, os.getpid(), command, log=None)


def read_client(folder: Path) -> dict | None:
    try:
        return json.loads((Path(folder) / RECORD).read_text())
    except (OSError, ValueError):
        return None


def mark_cancelled(folder: Path, record: dict) -> None:
    write_json(Path(folder) / RECORD, {**record, "cancelled": True})


def alive(record: dict | None) -> bool:
    """Whether the recorded client still runs (only this host's processes can be seen)."""
    return not_running(record) is None


def state(chunks_done: int, chunks_total: int, folder: Path) -> tuple[str, dict | None]:
    """The sweep's state and its client's record. The record is read again once the client
    is seen gone: ``cancel`` marks it before it signals the client, so a record read before
    the client ended could lack the mark and show a cancelled sweep as interrupted."""
    record = read_client(folder)
    if chunks_done >= chunks_total:
        return "finished", record
    if alive(record):
        return "running", record
    record = read_client(folder)
    if record and record.get("cancelled"):
        return "cancelled", record
    return ("interrupted" if record or chunks_done else "planned"), record


def started_seconds(record: dict | None) -> float | None:
    """Seconds since the recorded client started, or None."""
    if not record or "started" not in record:
        return None
    return time.time() - datetime.fromisoformat(record["started"]).timestamp()
