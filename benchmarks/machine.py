"""One line describing the machine a benchmark ran on."""

import os
import platform


def machine() -> str:
    """CPU model, core count, memory and Python, e.g. for a benchmark's report."""
    model = "unknown CPU"
    try:
        with open("/proc/cpuinfo") as f:
            model = next(line.split(":", 1)[1].strip() for line in f if line.startswith("model name"))
    except (OSError, StopIteration):
        pass
    mem = ""
    try:
        with open("/proc/meminfo") as f:
            kb = int(next(line.split()[1] for line in f if line.startswith("MemTotal")))
        mem = f", {kb / 2**20:.0f} GiB"
    except (OSError, StopIteration):
        pass
    return f"{model}, {os.cpu_count()} cores{mem}, Python {platform.python_version()}"
