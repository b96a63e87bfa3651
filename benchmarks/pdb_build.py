"""Benchmark pattern-database builds and shared memory-mapping of the store.

Build every named partition (3x3: 4-4, 5-3; 4x4: 5-5-5, 6-6-3, 7-8; 5x5: 5-5-5-5-4, and
6-6-6-6 only when asked for) into a temporary store, one child process per partition, and
print build seconds and peak RSS::

    python benchmarks/pdb_build.py                       # every partition but 6-6-6-6
    python benchmarks/pdb_build.py --partition 5-5-5 --partition 6-6-3
    python benchmarks/pdb_build.py --partition 6-6-6-6 --group 3,4,8,9,13,14 \
        --group 10,11,15,16,20,21 --group 17,18,19,22,23,24   # one search, two images
    python benchmarks/pdb_build.py --partition 7-8 --store /tmp/pdb --keep --share

``--share`` then maps the 7-8 tables in two processes at once, touches every page and
reports each one's RSS and PSS (``/proc/PID/smaps_rollup``): the table pages are shared,
so each process's PSS carries half of them.
"""

from __future__ import annotations

import argparse
import json
import os
import resource
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from tilesweep.jobs.runrecord import machine_line  # noqa: E402
from tilesweep.solver.board import goal_tiles  # noqa: E402
from tilesweep.solver.heuristics import partition_groups  # noqa: E402

ORDER = [(3, "4-4"), (3, "5-3"), (4, "5-5-5"), (4, "6-6-3"), (4, "7-8"), (5, "5-5-5-5-4"),
         (5, "6-6-6-6")]
ON_REQUEST = {"6-6-6-6"}  # about two billion blank-aware states per table


def machine() -> str:
    """The host's line and the CPUs this process may use, as the report needs them."""
    return f"{machine_line()} ({len(os.sched_getaffinity(0))} usable)"


def build_child(size: int, partition: str, goal: str, store: str, only: list[str] | None) -> None:
    """Build one partition (or its groups ``only``) in this process; print a JSON line
    with the figures. A group that is the image of one built before under a symmetry of
    the board is read from it (``pdb_store.symmetry``)."""
    from tilesweep.pdb_store import build_table, open_store

    tiles = goal_tiles(goal, size)
    started = time.perf_counter()
    for parallel in (False, True):  # load the cached numba kernels before timing builds
        build_table(3, goal_tiles("blank-last", 3), (1,), parallel=parallel)
    jit_seconds = time.perf_counter() - started
    groups = []
    with open_store(store) as opened:
        for group in partition_groups(partition, size, tiles):
            if only and ",".join(map(str, group)) not in only:
                continue
            entry = opened.build(size, tiles, group, force=True)
            groups.append({"group": list(group), "entries": entry.entries,
                           "build_seconds": entry.build_seconds, "max": entry.max_value,
                           "mean": round(entry.mean_value, 3)})
    usage = resource.getrusage(resource.RUSAGE_SELF)
    print(json.dumps({"size": size, "partition": partition, "groups": groups,
                      "jit_load_seconds": jit_seconds,
                      "wall_seconds": time.perf_counter() - started,
                      "cpu_seconds": usage.ru_utime + usage.ru_stime,
                      "peak_rss_mib": usage.ru_maxrss / 1024}))


def map_child(store: str, goal: str) -> None:
    """Map the 7-8 tables, touch every page, say ``ready`` and wait for a line on stdin."""
    from tilesweep.pdb_store import open_store

    tiles = goal_tiles(goal, 4)
    with open_store(store) as opened:
        tables = [opened.table(4, tiles, g) for g in partition_groups("7-8", 4, tiles)]
        total = sum(int(t.sum(dtype="uint64")) for t in tables)
        print(json.dumps({"pid": os.getpid(), "checksum": total}), flush=True)
        sys.stdin.readline()


def smaps_rollup(pid: int) -> dict[str, int]:
    """The kB figures of ``/proc/PID/smaps_rollup``."""
    figures = {}
    for line in Path(f"/proc/{pid}/smaps_rollup").read_text().splitlines()[1:]:
        key, value = line.split(":", 1)
        figures[key] = int(value.split()[0])
    return figures


def share(store: str, goal: str) -> None:
    """Map the 7-8 tables in two processes at once and print their RSS and PSS."""
    children = [subprocess.Popen([sys.executable, __file__, "--map-child", "--store", store,
                                  "--goal", goal], stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                                 text=True) for _ in range(2)]
    ready = [json.loads(child.stdout.readline()) for child in children]
    print("\n7-8 tables mapped in two processes at once (MiB):")
    print(f"{'pid':>8} {'Rss':>8} {'Pss':>8} {'Shared':>8} {'Private':>8} {'Pss_File':>8}")
    for info in ready:
        f = smaps_rollup(info["pid"])
        shared = f.get("Shared_Clean", 0) + f.get("Shared_Dirty", 0)
        private = f.get("Private_Clean", 0) + f.get("Private_Dirty", 0)
        print(f"{info['pid']:>8} {f['Rss'] / 1024:8.0f} {f['Pss'] / 1024:8.0f} "
              f"{shared / 1024:8.0f} {private / 1024:8.0f} {f.get('Pss_File', 0) / 1024:8.0f}")
    for child in children:
        child.communicate("\n", timeout=60)


def run(partitions: list[tuple[int, str]], goal: str, store: str, only: list[str] | None) -> None:
    """Build each partition in a child process and print a table of the figures."""
    print(f"machine: {machine()}")
    print(f"store: {store}   goal: {goal}")
    print(f"{'partition':>10} {'group':>28} {'entries':>12} {'max':>4} {'mean':>7} {'build s':>8}")
    for size, partition in partitions:
        groups = [arg for g in only or () for arg in ("--group", g)]
        out = subprocess.run([sys.executable, __file__, "--build-child", partition, "--size",
                              str(size), "--goal", goal, "--store", store, *groups],
                             capture_output=True, text=True, check=True).stdout
        result = json.loads(out.strip().splitlines()[-1])
        for g in result["groups"]:
            print(f"{partition:>10} {','.join(map(str, g['group'])):>28} {g['entries']:>12} "
                  f"{g['max']:>4} {g['mean']:>7.3f} {g['build_seconds']:>8.2f}")
        print(f"{partition:>10} {'total (child process)':>28}   wall {result['wall_seconds']:.2f} s"
              f" (numba cache load {result['jit_load_seconds']:.2f} s),"
              f" cpu {result['cpu_seconds']:.2f} s, peak RSS {result['peak_rss_mib']:.0f} MiB")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--partition", action="append",
                        help="e.g. 4-4, 5-3, 5-5-5, 6-6-3, 7-8, 5-5-5-5-4, 6-6-6-6")
    parser.add_argument("--group", action="append",
                        help="build only this group of the partition, e.g. 3,4,8,9,13,14")
    parser.add_argument("--goal", default="blank-first", help="blank-first (default) or blank-last")
    parser.add_argument("--store", help="store directory (default: a temporary one)")
    parser.add_argument("--keep", action="store_true", help="keep a temporary store")
    parser.add_argument("--share", action="store_true", help="map 7-8 in two processes after")
    parser.add_argument("--size", type=int, help=argparse.SUPPRESS)
    parser.add_argument("--build-child", help=argparse.SUPPRESS)
    parser.add_argument("--map-child", action="store_true", help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.build_child:
        return build_child(args.size, args.build_child, args.goal, args.store, args.group)
    if args.map_child:
        return map_child(args.store, args.goal)
    chosen = [(s, p) for s, p in ORDER if p in (args.partition or ()) or
              (not args.partition and p not in ON_REQUEST)]
    unknown = set(args.partition or ()) - {p for _, p in ORDER}
    if unknown:
        parser.error(f"unknown partition(s) {sorted(unknown)}; expected {[p for _, p in ORDER]}")
    store = args.store or tempfile.mkdtemp(prefix="tilesweep-pdb-bench-")
    try:
        if chosen:
            run(chosen, args.goal, store, args.group)
        if args.share:
            share(store, args.goal)
    finally:
        if not args.store and not args.keep:
            shutil.rmtree(store, ignore_errors=True)


if __name__ == "__main__":
    main()
