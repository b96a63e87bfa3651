"""The web UI's first minutes: how long ``tilesweep ui`` takes to say it is ready, and how long
its first 8-puzzle solves take after that.

Run: ``python benchmarks/webui_first_solve.py [--cache DIR]``. Starts ``tilesweep ui`` on a free
loopback port with ``NUMBA_CACHE_DIR`` set to DIR (default: a new empty folder, so the kernels
compile, as on a first start; pass the same DIR again for a warm start), polls
``/api/status`` every 50 ms until ``ready``, then solves ``7 6 2 8 5 3 0 1 4`` once with each
algorithm (A* and IDA* with manhattan) as the page does, one after the other, each request
timed from outside. Prints the load average before and after.
"""

from __future__ import annotations

import argparse
import json
import os
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "tests"))

from webui_server import ENV, Server, request  # noqa: E402

BOARD = "7 6 2 8 5 3 0 1 4"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--cache", help="NUMBA_CACHE_DIR (default: a new empty folder)")
    args = parser.parse_args()
    work = Path(tempfile.mkdtemp(prefix="ui-first-"))
    cache = args.cache or str(work / "numba")
    print(f"load average before: {os.getloadavg()}, NUMBA_CACHE_DIR={cache}")
    start = time.monotonic()
    server = Server(work / "sweeps", work / "store", env={**ENV, "NUMBA_CACHE_DIR": cache})
    try:
        while not json.loads(request(server, "GET", "/api/status")[1])["ready"]:
            time.sleep(0.05)
        ready = time.monotonic()
        print(f"ready {ready - start:.1f} s after the start")
        for algorithm, heuristic in (("astar", "manhattan"), ("idastar", "manhattan"), ("bfs", "manhattan"),
                                     ("dfs", "manhattan")):
            began = time.monotonic()
            status, text = request(server, "POST", "/api/solve", {"tiles": BOARD, "algorithm": algorithm,
                                                                   "heuristic": heuristic})
            answer = json.loads(text)
            print(f"{algorithm:8} {answer['status']:7} cost {answer['cost']:>6} answered in "
                  f"{time.monotonic() - began:.2f} s ({time.monotonic() - ready:.2f} s after ready)")
    finally:
        server.stop()
    print(f"load average after: {os.getloadavg()}")


if __name__ == "__main__":
    main()
