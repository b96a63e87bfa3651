"""Versions of the PDB search's kernels (``pdb_store/bfs.py``) against each other, in one process.

    git show d13dee1:pdb_store/bfs.py > /tmp/before.py
    python benchmarks/bfs_ab.py /tmp/before.py pdb_store/bfs.py --rounds 3
    python benchmarks/bfs_ab.py /tmp/before.py pdb_store/bfs.py --group 8,9,10,11,12,13,14,15 --rounds 2

Each file is loaded as a module of ``tilesweep.pdb_store`` (so its relative imports resolve
to this tree's), its kernels compiled on small tables first; then the group's table
(default the 7-tile group 1-7 of the 4x4 blank-first goal) is built by each version in
turn, ``--rounds`` times, the table and marks allocated once and reset between builds, so
page faults stay out of the figures. A build is timed by the process CPU clock (both
cores' work; the machine's speed drifts by 5-10 % over minutes, which alternating in one
process evens out) and checked: every version must write the same table (sha256) and
discover the same number of states.
"""

from __future__ import annotations

import argparse
import hashlib
import importlib.util
import os
import statistics
import sys
import time
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from tilesweep.jobs.runrecord import machine_line  # noqa: E402
from tilesweep.pdb_store import build  # noqa: E402
from tilesweep.solver.board import goal_tiles  # noqa: E402
from tilesweep.solver.ranking import digit_weights, placement_count  # noqa: E402

_ARRAYS: dict[tuple[int, int], tuple[np.ndarray, np.ndarray]] = {}


def load_version(path: str, index: int):
    """The module at ``path``, loaded as ``tilesweep.pdb_store._ab<index>``."""
    name = f"tilesweep.pdb_store._ab{index}"
    spec = importlib.util.spec_from_file_location(name, path)
    module = importlib.util.module_from_spec(spec)
    sys.modules[name] = module
    spec.loader.exec_module(module)
    return module


def build_with(version, size: int, goal: tuple[int, ...], group: tuple[int, ...]):
    """Build ``group``'s table with ``version``'s layer kernel on both cores, as
    :func:`pdb_store.build.build_table` does; return CPU seconds, sha256 and states."""
    n, k = size * size, len(group)
    count = placement_count(n, k)
    geometry, weights = build._geometry(size, k), digit_weights(n, k)
    if (size, k) not in _ARRAYS:
        _ARRAYS[size, k] = (build.huge_array(count, np.uint8), build.huge_array(count, build.mark_dtype(n - k)))
    table, marks = _ARRAYS[size, k]
    table.fill(build.UNREACHED)
    marks.fill(0)
    start, region = build._goal_state(size, goal, group, geometry)
    table[start], marks[start] = 0, region
    chunk_ranks = version.CHUNK * (n - k + 1)
    active, coming = (np.zeros(-(-count // chunk_ranks), dtype=np.uint8) for _ in range(2))
    active[start // chunk_ranks] = 1
    depth, states = 0, 1
    started = time.process_time()
    while True:
        found, _ = version._expand_layer(marks, table, depth, geometry, weights, active, coming)
        if found == 0:
            break
        depth, states = depth + 1, states + int(found)
        active, coming = coming, active
        coming[:] = 0
    return time.process_time() - started, hashlib.sha256(table).hexdigest(), states


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("versions", nargs="+", help="files holding a version of pdb_store/bfs.py")
    parser.add_argument("--group", default="1,2,3,4,5,6,7", help="pattern tiles of the 4x4 table")
    parser.add_argument("--rounds", type=int, default=3)
    args = parser.parse_args()
    goal, group = goal_tiles("blank-first", 4), tuple(int(t) for t in args.group.split(","))
    versions = [load_version(path, i) for i, path in enumerate(args.versions)]
    for version in versions:  # compile: 16-bit marks on the 3x3 board, 32-bit on the 4x4
        build_with(version, 3, goal_tiles("blank-first", 3), (1,))
        build_with(version, 4, goal, (1, 2))
    print(machine_line(), f"({len(os.sched_getaffinity(0))} usable), group {group}")
    seconds: dict[str, list[float]] = {path: [] for path in args.versions}
    outcomes = set()
    for round_ in range(args.rounds):
        for path, version in zip(args.versions, versions):
            cpu, digest, states = build_with(version, 4, goal, group)
            seconds[path].append(cpu)
            outcomes.add((digest, states))
            print(f"round {round_ + 1} {path}: {cpu:.2f} CPU s, {states:,} states, sha256 {digest[:16]}, "
                  f"load {os.getloadavg()[0]:.2f}", flush=True)
    for path, values in seconds.items():
        print(f"{path}: min {min(values):.2f}, median {statistics.median(values):.2f} CPU s")
    if len(outcomes) != 1:
        sys.exit(f"the versions disagree: {sorted(outcomes)}")


if __name__ == "__main__":
    main()
