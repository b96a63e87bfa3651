"""Nodes per CPU second of every kernel that reads the heuristic's arrays, this checkout against another.

Run: ``python benchmarks/heuristic_kernels.py --other DIR [--rounds 3] [--case NAME ...]``, DIR a
checkout of tilesweep with its own venv in ``DIR/.venv`` (e.g. main before a kernel change).

The kernels that take a :class:`~tilesweep.solver.heuristics.KernelHeuristic`: the general
graph search (A* with ``--prune fsm``, BFS, DFS), the packed A*, the general IDA*, the PDB
IDA* and the IDA* of a PDB with walking distance. Each case runs one of them (the kernel
table's row is checked) on a fixed set of boards. Each round runs every (case, checkout) in a
fresh process, alternating which checkout goes first; a process warms its kernel on a board
next to the goal, then sums its own CPU clock around each kernel call. Per case: the best
round of each checkout, the median of the rounds' ratios, and whether the status, cost and
nodes generated and expanded of every board agree (they must). Pattern databases are read
from ``--store`` (built there on the first run, outside the clock).
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
# name: (kernel-table row, algorithm, heuristic, pruning, boards, how many)
CASES = {
    "graph-astar": ("graph", "astar", "manhattan", "fsm", "walk40", 200),
    "graph-astar-parts": ("graph", "astar", "max(linear-conflict,walking-distance)", "fsm", "walk40", 200),
    "graph-bfs": ("graph", "bfs", "manhattan", "parent", "uniform3", 30),
    "graph-dfs": ("graph", "dfs", "manhattan", "parent", "uniform3", 30),
    "astar-packed-pdb": ("astar-packed", "astar", "pdb:5-3", "parent", "uniform3", 3000),
    "astar-packed-parts": ("astar-packed", "astar", "max(linear-conflict,walking-distance)", "parent", "walk40",
                           200),
    "idastar-general": ("idastar", "idastar", "max(linear-conflict,walking-distance)", "parent", "korf", 2),
    "idastar-general-pdb": ("idastar", "idastar", "max(pdb:4-4,pdb:5-3)", "parent", "uniform3", 3000),
    "idastar-pdb": ("idastar-pdb", "idastar", "pdb:5-5-5", "parent", "korf", 10),
    "idastar-pdb-walk": ("idastar-pdb-walk", "idastar", "max(pdb:5-5-5,walking-distance)", "fsm", "korf", 10),
}


def boards(kind: str, count: int) -> tuple[int, str, list]:
    """(size, goal name, boards as int8 arrays) of a case's set."""
    import numpy as np

    from tilesweep.jobs.sources import KORF100, read_instance_file
    from tilesweep.solver.board import goal_tiles
    from tilesweep.solver.generators import random_walk_instance, uniform_instance

    if kind == "korf":
        tiles = read_instance_file(str(KORF100), 4)
        return 4, "blank-first", [np.array(t, dtype=np.int8) for t in tiles[:count]]  # the first Korf instances
    size = 3 if kind == "uniform3" else 4
    goal = goal_tiles("blank-last", size)
    out = []
    for i in range(count):  # instance i from SeedSequence([seed, i]), as benchmarks/solver_speed.py draws them
        rng = np.random.default_rng(np.random.SeedSequence([0 if size == 3 else 1, i]))
        board = uniform_instance(3, goal, rng) if size == 3 else random_walk_instance(4, goal, 40, rng)
        if board.tiles != goal:
            out.append(np.array(board.tiles, dtype=np.int8))
    return size, "blank-last", out


def worker(case: str, store: str) -> None:
    """Run ``case`` once; print its kernel's name, per-board counts and summed CPU seconds."""
    from tilesweep.pdb_store import open_store, tables_for
    from tilesweep.solver.board import goal_tiles
    from tilesweep.solver.heuristics import parse_heuristic
    from tilesweep.solver.kernels import kernel_for, near_goal, pick
    from tilesweep.solver.solve import prepare

    row, algorithm, heuristic, prune, kind, count = CASES[case]
    size, goal_name, tiles = boards(kind, count)
    goal = goal_tiles(goal_name, size)
    spec = parse_heuristic(heuristic, size, goal)
    with open_store(store) as opened:
        tables = tables_for(spec, size, goal, opened) if spec.groups else ()
    inputs = prepare(size, goal, algorithm, spec, tables, prune=prune).inputs
    assert kernel_for(inputs).name == row, (case, kernel_for(inputs).name)
    name, call = pick(inputs)
    call(near_goal(goal, size))  # compile, or load from numba's cache
    counts, seconds = [], 0.0
    for board in tiles:
        start = time.process_time()
        out = call(board)
        seconds += time.process_time() - start
        counts.append([int(out[0]), int(out[2]), int(out[3]), int(out[4])])  # status, cost, generated, expanded
    print(json.dumps({"kernel": name, "counts": counts, "seconds": seconds}))


def measure(checkout: Path, case: str, store: Path) -> dict:
    """One run of ``case`` in a fresh process of ``checkout``'s Python."""
    python = checkout / ".venv" / "bin" / "python"
    if not python.exists():
        python = Path(sys.executable)
    done = subprocess.run([str(python), str(Path(__file__).resolve()), "--worker", case, str(store)],
                          cwd=checkout, capture_output=True, text=True)
    if done.returncode != 0:
        raise SystemExit(f"{case} failed in {checkout}: {done.stderr.strip().splitlines()[-1:]}")
    return json.loads(done.stdout.splitlines()[-1])


def report(case: str, runs: dict, compared: bool) -> str:
    """One line per case: nodes, rates, ratios and whether the counts agree."""
    this = min(runs["this"], key=lambda r: r["seconds"])
    nodes = sum(c[2] for c in this["counts"])
    line = (f"{case:20s} {this['kernel']:24s} {len(this['counts']):5,} boards {nodes:12,} nodes: "
            f"this {nodes / this['seconds'] / 1e6:6.2f} M nodes/s")
    if compared:
        other = min(runs["other"], key=lambda r: r["seconds"])
        same = all(r["counts"] == this["counts"] for r in runs["this"] + runs["other"])
        ratios = [o["seconds"] / t["seconds"] for t, o in zip(runs["this"], runs["other"], strict=True)]
        line += (f", other {nodes / other['seconds'] / 1e6:6.2f}; "
                 f"this/other best {other['seconds'] / this['seconds']:.3f}x"
                 f", median {statistics.median(ratios):.3f}x (rounds {' '.join(f'{r:.2f}' for r in ratios)})"
                 f"; {'same counts' if same else 'COUNTS DIFFER'}")
    return line


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--other", type=Path, help="a checkout of another commit with its own .venv")
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--case", action="append", choices=sorted(CASES), help="cases to run (default: all)")
    parser.add_argument("--store", type=Path, default=Path("/tmp/heuristic-kernels-store"))
    parser.add_argument("--worker", nargs=2, help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.worker:
        worker(*args.worker)
        return
    if args.rounds < 1:
        parser.error(f"--rounds {args.rounds}: expected at least 1")
    from tilesweep.jobs.runrecord import machine_line
    print(machine_line(), "load average", os.getloadavg(), flush=True)
    checkouts = {"this": ROOT} | ({"other": args.other.resolve()} if args.other else {})
    cases = args.case or list(CASES)
    runs = {case: {name: [] for name in checkouts} for case in cases}
    for round_ in range(args.rounds):
        order = list(checkouts.items())[:: 1 if round_ % 2 == 0 else -1]
        for case in cases:
            for name, checkout in order:
                runs[case][name].append(measure(checkout, case, args.store))
        print(f"round {round_ + 1} done, load average {os.getloadavg()}", flush=True)
    for case in cases:
        print(report(case, runs[case], "other" in checkouts))
    print("load average", os.getloadavg())


if __name__ == "__main__":
    main()
