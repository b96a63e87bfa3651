"""``run.json`` beside ``sweep.json``: where and with what a sweep ran (never part of its
identity, so a resumed sweep may run elsewhere: each run adds an entry)."""

from __future__ import annotations

import json
import os
import platform
from datetime import datetime, timezone
from pathlib import Path

from .parts import write_json


def machine() -> dict:
    """CPU model, core count, memory (GiB) and Python version of this host."""
    model = "unknown CPU"
    try:
        with open("/proc/cpuinfo") as f:
            model = next(line.split(":", 1)[1].strip() for line in f if line.startswith("model name"))
    except (OSError, StopIteration):
        model = platform.processor() or model
    memory = None
    try:
        with open("/proc/meminfo") as f:
            memory = round(int(next(line.split()[1] for line in f if line.startswith("MemTotal"))) / 2**20, 1)
    except (OSError, StopIteration):
        pass
    return {"cpu": model, "cores": os.cpu_count(), "memory_gib": memory, "python": platform.python_version(),
            "host": platform.node()}


def machine_line(host: dict | None = None) -> str:
    """:func:`machine` (of this host unless given) as one line, e.g. for a benchmark's output."""
    host = host or machine()
    memory = f", {host['memory_gib']:.0f} GiB" if host.get("memory_gib") is not None else ""
    return f"{host['cpu']}, {host['cores']} cores{memory}, Python {host['python']}"


def record_run(folder: Path, scheduler: str | None, workers: int | None) -> None:
    """Append this run (time, tilesweep version, client machine, scheduler) to ``run.json``."""
    from tilesweep import __version__

    path = Path(folder) / "run.json"
    try:
        runs = json.loads(path.read_text()).get("runs", []) if path.is_file() else []
    except (OSError, ValueError, AttributeError):
        runs = []  # a damaged record is replaced, it never decides a row
    runs.append({"started": datetime.now(timezone.utc).isoformat(timespec="seconds"), "tilesweep": __version__,
                 "machine": machine(), "scheduler": scheduler or "embedded LocalCluster", "workers": workers})
    write_json(path, {"runs": runs})
