"""Nodes per second of IDA* with reflected pattern databases on Korf's 100, against an old commit.

    python benchmarks/pdb_speed.py --old /tmp/pdbold --first 20          # quick
    python benchmarks/pdb_speed.py --old /tmp/pdbold --rounds 3           # all 100

Each configuration runs in a fresh worker process (``--worker``), started with the
Python of the tree it measures (``TREE/.venv/bin/python``, so ``tilesweep`` is that tree's
package): this tree and, with ``--old``, a checkout of an older commit with its own
virtual environment, alternately, ``--rounds`` times, the best round of each kept. A
worker maps the tables from the PDB store (``$TILESWEEP_STORE``), compiles the kernel on a
board next to the goal, then times only the kernel calls with the process CPU clock (the
machine is shared: wall time would count other programs' turns). It reports the nodes
of every instance (the trees must agree to the node), the CPU seconds, and its memory
from ``/proc/self/smaps_rollup``: its resident set and, of it, its own anonymous memory;
the rest are file pages (the tables) that every worker of the host shares. The same run then times IDA* +
Manhattan on Korf #1 against the C yardstick (benchmarks/solver_speed.py).
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
HEURISTICS = ("pdb:7-8+reflect", "pdb:6-6-3+reflect")


def memory() -> dict[str, int]:
    """This process's smaps_rollup fields, in kB."""
    fields = {}
    for line in Path("/proc/self/smaps_rollup").read_text().splitlines()[1:]:
        name, value = line.split(":")
        fields[name] = int(value.split()[0])
    return fields


def worker(heuristic: str, first: int) -> None:
    """Solve Korf's first ``first`` instances; print one JSON line."""
    from tilesweep.jobs.sources import KORF100, read_instance_file
    from tilesweep.pdb_store import open_store, tables_for
    from tilesweep.solver import Board, goal_tiles, parse_heuristic
    from tilesweep.solver.heuristics import kernel_heuristic
    from tilesweep.solver.limits import make_limits
    from tilesweep.solver.search import idastar_call

    goal = goal_tiles("blank-first", 4)
    spec = parse_heuristic(heuristic, 4, goal)
    with open_store(None) as store:
        tables = tables_for(spec, 4, goal, store, build=False)
    H = kernel_heuristic(spec, 4, goal, tables)
    _, call = idastar_call(4, goal, H, make_limits())
    call(Board(goal, 4).apply("D").array())  # compile, or load from numba's cache (a one-move board)
    boards = [Board(t, 4).array() for t in read_instance_file(str(KORF100), 4)[:first]]
    nodes, costs, cpu = [], [], 0.0
    for tiles in boards:
        start = time.process_time()
        out = call(tiles)
        cpu += time.process_time() - start
        costs.append(int(out[2]))
        nodes.append(int(out[3]))
    print(json.dumps({"nodes": nodes, "costs": costs, "cpu": cpu, "memory": memory()}))


def measure(tree: Path, heuristic: str, first: int) -> dict:
    """One worker run of ``heuristic`` with ``tree``'s package."""
    python = tree / ".venv" / "bin" / "python"
    out = subprocess.run([str(python), str(Path(__file__).resolve()), "--worker", heuristic, "--first", str(first)],
                         check=True, capture_output=True, text=True, cwd=tree).stdout
    return json.loads(out.splitlines()[-1])


def load() -> str:
    return "load average " + " ".join(f"{x:.2f}" for x in os.getloadavg())


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("-H", "--heuristic", action="append", help="default: " + ", ".join(HEURISTICS))
    parser.add_argument("--first", type=int, default=100, help="only Korf's first N instances")
    parser.add_argument("--old", type=Path, help="a checkout of an older commit with its own .venv")
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--no-c", action="store_true", help="skip IDA* + Manhattan against C")
    parser.add_argument("--worker", help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.worker:
        worker(args.worker, args.first)
        return
    sys.path.insert(0, str(ROOT / "benchmarks"))
    from solver_speed import idastar_korf

    from tilesweep.jobs.runrecord import machine_line

    print(machine_line())
    trees = {"new": ROOT} | ({"old": args.old.resolve()} if args.old else {})
    heuristics = args.heuristic or list(HEURISTICS)
    best: dict[tuple[str, str], dict] = {}
    for round_ in range(1, args.rounds + 1):
        print(f"round {round_}, {load()}", flush=True)
        for heuristic in heuristics:
            for name, tree in (trees.items() if round_ % 2 else reversed(trees.items())):
                run = measure(tree, heuristic, args.first)
                nodes = sum(run["nodes"])
                print(f"  {name:3} {heuristic}: {nodes:,} nodes, {run['cpu']:.2f} CPU s, "
                      f"{nodes / run['cpu'] / 1e6:.2f} M nodes/s", flush=True)
                key = (name, heuristic)
                if key not in best or run["cpu"] < best[key]["cpu"]:
                    best[key] = run
    print(f"best of {args.rounds} rounds, Korf's first {args.first}, search CPU time, {load()}:")
    for heuristic in heuristics:
        new = best["new", heuristic]
        mem = new["memory"]
        line = (f"  {heuristic}: {sum(new['nodes']):,} nodes, {new['cpu']:.2f} CPU s, "
                f"{sum(new['nodes']) / new['cpu'] / 1e6:.2f} M nodes/s; worker memory: RSS {mem['Rss'] / 1024:.0f} MB, "
                f"of it {mem['Anonymous'] / 1024:.0f} MB its own (anonymous) and the rest file pages that every "
                f"worker of the host shares (tables, libraries; {mem.get('FilePmdMapped', 0) / 1024:.0f} MB "
                f"on huge pages)")
        if "old" in trees:
            old = best["old", heuristic]
            same = "same nodes on every instance" if old["nodes"] == new["nodes"] else "NODE COUNTS DIFFER"
            line += (f"; old: {sum(old['nodes']) / old['cpu'] / 1e6:.2f} M nodes/s ({same}), "
                     f"new/old = {old['cpu'] / new['cpu']:.2f}")
        print(line)
    if not args.no_c:
        idastar_korf(1, 3)
        print(load())


if __name__ == "__main__":
    main()
