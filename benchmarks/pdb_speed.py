"""Nodes per second of IDA* with reflected pattern databases on Korf's 100, against an old commit.

    python benchmarks/pdb_speed.py --old /tmp/pdbold --first 20          # quick
    python benchmarks/pdb_speed.py --old /tmp/pdbold --rounds 3           # all 100
    python benchmarks/pdb_speed.py --old /tmp/pdbold --split 9 --set korf50-24 --numbers 38 40 \
        -H pdb:6-6-6-6+reflect --no-c                                     # the split search too

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

With ``--split D`` a worker also solves each instance with the split search in its own
process (``solve(..., split=local_runner(D))``, as ``--checkpoint`` and ``--parallel`` cut
it, the chunks searched one after another), timed the same way, its counts checked against
the serial kernel's: the CPU seconds of serial IDA* against the split search's, in this
tree and the old one. ``--set korf50-24 --numbers 38 40`` measures Korf & Felner's
24-puzzles instead of Korf's 100.
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


SETS = {"korf100": ("KORF100", 4), "korf50-24": ("KORF50_24", 5)}


def instances(name: str, first: int, numbers: list[int] | None) -> tuple[int, list[tuple[int, ...]]]:
    """The board width and the instances of bundled set ``name``: numbers (1-based) or the first."""
    from tilesweep.jobs import sources

    attr, size = SETS[name]
    boards = sources.read_instance_file(str(getattr(sources, attr)), size)
    return size, [boards[k - 1] for k in numbers] if numbers else boards[:first]


def worker(heuristic: str, first: int, name: str = "korf100", numbers=None, split: int = 0) -> None:
    """Solve the instances (serially, and with ``split``, by the split search too); print one JSON line."""
    from tilesweep.pdb_store import open_store, tables_for
    from tilesweep.solver import Board, goal_tiles, parse_heuristic, solve
    from tilesweep.solver.heuristics import kernel_heuristic
    from tilesweep.solver.limits import make_limits
    from tilesweep.solver.search import idastar_call
    from tilesweep.solver.splitsearch import local_runner

    size, boards = instances(name, first, numbers)
    goal = goal_tiles("blank-first", size)
    spec = parse_heuristic(heuristic, size, goal)
    with open_store(None) as store:
        tables = tables_for(spec, size, goal, store, build=False)
    H = kernel_heuristic(spec, size, goal, tables)
    _, call = idastar_call(size, goal, H, make_limits())
    call(Board(goal, size).apply("D").array())  # compile, or load from numba's cache (a one-move board)
    nodes, costs, cpus, split_cpus = [], [], [], []
    for board in boards:
        start = time.process_time()
        out = call(Board(board, size).array())
        cpus.append(time.process_time() - start)
        costs.append(int(out[2]))
        nodes.append(int(out[3]))
        if split:
            runner = local_runner(split)
            solve(Board(goal, size).apply("D"), "blank-first", "idastar", heuristic, tables, split=runner)  # compile
            start = time.process_time()
            row = solve(Board(board, size), "blank-first", "idastar", heuristic, tables, split=runner)
            split_cpus.append(time.process_time() - start)
            assert (row.cost, row.nodes_generated) == (costs[-1], nodes[-1]), "the split search's counts differ"
    print(json.dumps({"nodes": nodes, "costs": costs, "cpu": sum(cpus), "cpus": cpus, "split_cpu": sum(split_cpus),
                      "split_cpus": split_cpus, "memory": memory()}))


def measure(tree: Path, heuristic: str, args) -> dict:
    """One worker run of ``heuristic`` with ``tree``'s package."""
    python = tree / ".venv" / "bin" / "python"
    numbers = ["--numbers", *map(str, args.numbers)] if args.numbers else []
    out = subprocess.run([str(python), str(Path(__file__).resolve()), "--worker", heuristic, "--first", str(args.first),
                          "--set", args.set, "--split", str(args.split), *numbers],
                         check=True, capture_output=True, text=True, cwd=tree).stdout
    return json.loads(out.splitlines()[-1])


def load() -> str:
    return "load average " + " ".join(f"{x:.2f}" for x in os.getloadavg())


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("-H", "--heuristic", action="append", help="default: " + ", ".join(HEURISTICS))
    parser.add_argument("--first", type=int, default=100, help="only the set's first N instances")
    parser.add_argument("--set", choices=list(SETS), default="korf100")
    parser.add_argument("--numbers", type=int, nargs="+", help="these instances of the set (1-based)")
    parser.add_argument("--split", type=int, default=0, help="also the split search at this depth")
    parser.add_argument("--old", type=Path, help="a checkout of an older commit with its own .venv")
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--no-c", action="store_true", help="skip IDA* + Manhattan against C")
    parser.add_argument("--worker", help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.worker:
        worker(args.worker, args.first, args.set, args.numbers, args.split)
        return
    sys.path.insert(0, str(ROOT / "benchmarks"))
    from solver_speed import idastar_korf

    from tilesweep.jobs.runrecord import machine_line

    print(machine_line())
    trees = {"new": ROOT} | ({"old": args.old.resolve()} if args.old else {})
    heuristics = args.heuristic or list(HEURISTICS)
    best: dict[tuple[str, str], dict] = {}
    best_split: dict[tuple[str, str], float] = {}  # the least split search CPU seconds of each
    for round_ in range(1, args.rounds + 1):
        print(f"round {round_}, {load()}", flush=True)
        for heuristic in heuristics:
            for name, tree in (trees.items() if round_ % 2 else reversed(trees.items())):
                run = measure(tree, heuristic, args)
                nodes = sum(run["nodes"])
                split = f"; split search {run['split_cpu']:.2f} CPU s" if args.split else ""
                if args.numbers:  # each instance's: nodes, serial and split CPU seconds
                    split += "".join(f"\n      #{k}: {n:,} nodes, {c:.2f}" + (f" / {x:.2f}" if args.split else "")
                                     + " CPU s" for k, n, c, x in zip(args.numbers, run["nodes"], run["cpus"],
                                                                      run["split_cpus"] or run["cpus"]))
                print(f"  {name:3} {heuristic}: {nodes:,} nodes, {run['cpu']:.2f} CPU s, "
                      f"{nodes / run['cpu'] / 1e6:.2f} M nodes/s{split}", flush=True)
                key = (name, heuristic)
                best_split[key] = min(best_split.get(key, run["split_cpu"]), run["split_cpu"])
                if key not in best or run["cpu"] < best[key]["cpu"]:
                    best[key] = run
    which = f"{args.set} {' '.join(map(str, args.numbers))}" if args.numbers else f"{args.set}'s first {args.first}"
    print(f"best of {args.rounds} rounds, {which}, search CPU time, {load()}:")
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
        if args.split:
            print(f"  {heuristic}, split depth {args.split}: serial {new['cpu']:.2f} CPU s, split search "
                  + ", ".join(f"{name} {best_split[name, heuristic]:.2f}" for name in trees) + " CPU s")
    if not args.no_c:
        idastar_korf(1, 3)
        print(load())


if __name__ == "__main__":
    main()
