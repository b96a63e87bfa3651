"""IDA* with pattern databases alone: tilesweep's kernel against a C program that makes the
same lookups, nodes per CPU second.

    python benchmarks/pdb_yardstick.py --store /tmp/store                     # every configuration
    python benchmarks/pdb_yardstick.py --store DIR -H 4:pdb:7-8+reflect --first 100 --rounds 5
    python benchmarks/pdb_yardstick.py --store DIR -H 5:pdb:6-6-6-6+reflect --korf24 40,38 --prune fsm

The C yardstick (benchmarks/c_idastar_pdb.c, gcc -O3 -march=native) reads the store's own
table files, ranks placements and their mirror images as tilesweep does, and follows the
same successor order, pruning and node accounting, so it counts the same nodes; it runs in
two forms: ``plain`` (each entry read when needed) and ``prefetch`` (the lookups of a node's
children issued together first, as tilesweep does). A yardstick of IDA* + Manhattan does
no memory lookups, so its ratio to a PDB search moves with the machine's memory; this one
does the PDB search's own lookups.

Per configuration (``-H SIZE:HEURISTIC``; 15-puzzles: Korf's first ``--first``; 24-puzzles:
Korf & Felner's instances ``--korf24``), rounds alternate the runs (C plain, C prefetch,
tilesweep; reversed every other round), each solving the instances in one process and
summing the CPU clock around each solve; the ratios are taken within a round and their
median is reported. Every run must give the same cost, nodes generated and nodes expanded
on every instance. Tables are read, never built (``--store``: a built store).
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import numpy as np

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))
sys.path.insert(0, str(HERE.parent))

from solver_speed import built  # noqa: E402

from tilesweep.jobs.sources import KORF50_24, KORF100, read_instance_file  # noqa: E402
from tilesweep.pdb_store import open_store, tables_for  # noqa: E402
from tilesweep.solver import goal_tiles, parse_heuristic  # noqa: E402
from tilesweep.solver.fsm import automaton, parse_pruning  # noqa: E402
from tilesweep.solver.heuristics import kernel_heuristic  # noqa: E402
from tilesweep.solver.idastar_pdb import last_level_cache_bytes  # noqa: E402
from tilesweep.solver.kernels import goal_positions, near_goal  # noqa: E402
from tilesweep.solver.limits import make_limits  # noqa: E402
from tilesweep.solver.search import idastar_call  # noqa: E402

CONFIGS = ("4:pdb:6-6-3", "4:pdb:6-6-3+reflect", "4:pdb:7-8", "4:pdb:7-8+reflect",
           "5:pdb:6-6-6-6", "5:pdb:6-6-6-6+reflect")
C_MODES = ("plain", "prefetch")


def ints(array) -> str:
    return " ".join(map(str, np.asarray(array).ravel().tolist()))


def setup_text(size, spec, H, fsm_table, store, goal, boards) -> str:
    """The C yardstick's setup file (layout in c_idastar_pdb.c's header)."""
    lines = [f"{size}", f"{len(fsm_table) // 4}", ints(fsm_table), ints(goal_positions(goal)),
             ints(H.refl_tile), ints(H.refl_cell), f"{int(spec.reflect)}", f"{len(spec.groups)}"]
    for group, kind in spec.tables:
        lines.append(f"{len(group)} {ints(group)} {store.path_of(size, goal, group, kind)}")
    lines.append(f"{len(boards)}")
    lines += [ints(tiles) for tiles in boards]
    return "\n".join(lines) + "\n"


def run_c(exe: Path, setup: Path, mode: str) -> tuple[list[tuple], float]:
    """Per instance (cost, generated, expanded) and the CPU seconds of one C run."""
    argv = [str(exe), str(setup), mode, str(last_level_cache_bytes())]  # mirrors planned early as tilesweep's
    out = subprocess.run(argv, check=True, capture_output=True, text=True).stdout
    rows = [json.loads(line) for line in out.splitlines() if line]
    return [(r["cost"], r["nodes_generated"], r["nodes_expanded"]) for r in rows[:-1]], rows[-1]["cpu_seconds"]


def run_kernel(call, boards) -> tuple[list[tuple], float]:
    """Per instance (cost, generated, expanded) and the summed CPU seconds of ``call`` on each."""
    rows, cpu = [], 0.0
    for tiles in boards:
        board = np.array(tiles, dtype=np.int8)
        start = time.process_time()
        _, _, cost, generated, expanded, *_ = call(board)
        cpu += time.process_time() - start
        rows.append((int(cost), int(generated), int(expanded)))
    return rows, cpu


class Configuration:
    """One heuristic on one board width: the C runs and tilesweep's kernel, ready to time."""

    def __init__(self, size: int, heuristic: str, prune: str, boards, store):
        self.size, self.heuristic, self.boards = size, heuristic, boards
        self.goal = goal_tiles("blank-first", size)
        spec = parse_heuristic(heuristic, size, self.goal)
        H = kernel_heuristic(spec, size, self.goal, tables_for(spec, size, self.goal, store, build=False))
        self.pruning = parse_pruning(prune, size)
        fsm = automaton(size, self.pruning.depth) if self.pruning.kind == "fsm" else None
        table = np.zeros(0, dtype=np.int32) if fsm is None else fsm.full
        self.setup = Path(tempfile.gettempdir()) / f"tilesweep_pdb_setup_{os.getpid()}_{size}_{id(self)}.txt"
        self.setup.write_text(setup_text(size, spec, H, table, store, self.goal, boards))
        self.name, self.call = idastar_call(size, self.goal, H, make_limits(), fsm)
        self.call(near_goal(self.goal, size))  # compiled (or loaded) outside the clock

    def runs(self, exe: Path) -> dict:
        out = {f"C {mode}": (lambda m=mode: run_c(exe, self.setup, m)) for mode in C_MODES}
        out["tilesweep"] = lambda: run_kernel(self.call, self.boards)
        return out

    def close(self) -> None:
        self.setup.unlink(missing_ok=True)


def counts(size: int, heuristic: str, prune: str, boards, store) -> dict[str, list[tuple]]:
    """Per run (C plain, C prefetch, tilesweep) the (cost, generated, expanded) of each board."""
    config = Configuration(size, heuristic, prune, boards, store)
    try:
        return {label: run()[0] for label, run in config.runs(built("c_idastar_pdb")).items()}
    finally:
        config.close()


def measure(config: Configuration, rounds: int, exe: Path) -> None:
    """Time ``config``'s runs alternately for ``rounds`` rounds; print the ratios."""
    runs = config.runs(exe)
    cpu = {label: [] for label in runs}
    reference = None
    for k in range(rounds):
        for label in (list(runs) if k % 2 == 0 else list(runs)[::-1]):
            rows, seconds = runs[label]()
            reference = reference or rows
            if rows != reference:
                sys.exit(f"{config.heuristic}, {label}: costs or node counts differ from the first run's")
            cpu[label].append(seconds)
    generated = sum(r[1] for r in reference)
    print(f"{config.size}x{config.size} {config.heuristic} --prune {config.pruning}, {len(config.boards)} boards: "
          f"total cost {sum(r[0] for r in reference)}, {generated:,} generated, "
          f"{sum(r[2] for r in reference):,} expanded (equal in every run); load {os.getloadavg()[0]:.2f}")
    for label in runs:
        median = statistics.median(cpu[label])
        line = f"  {label}: CPU median {median:.2f} s (min {min(cpu[label]):.2f}), {generated / median / 1e6:.1f} M " \
               "generated per CPU s"
        if label != "tilesweep":
            ratio = statistics.median(c / t for c, t in zip(cpu[label], cpu["tilesweep"], strict=True))
            line += f"; tilesweep's speed as a ratio to it: {ratio:.2f}"
        print(line, flush=True)


def boards_of(size: int, first: int, korf24: str) -> list[tuple[int, ...]]:
    if size == 4:
        return read_instance_file(str(KORF100), 4)[:first]
    every = read_instance_file(str(KORF50_24), 5)
    return [every[int(i) - 1] for i in korf24.split(",")]


def main() -> None:
    from tilesweep.jobs.runrecord import machine_line

    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("-H", "--heuristic", action="append", help="SIZE:HEURISTIC; default: " + ", ".join(CONFIGS))
    parser.add_argument("--prune", default="parent", help="parent, fsm or fsm:DEPTH")
    parser.add_argument("--store", default=None, help="a PDB store holding the tables (default: TILESWEEP_STORE)")
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--first", type=int, default=100, help="15-puzzles: Korf's first N")
    parser.add_argument("--korf24", default="40", help="24-puzzles: Korf & Felner's instance numbers, e.g. 40,38")
    args = parser.parse_args()
    exe = built("c_idastar_pdb")
    print(machine_line())
    print(f"{time.strftime('%Y-%m-%d %H:%M UTC', time.gmtime())}, {args.rounds} rounds, load average "
          + " ".join(f"{x:.2f}" for x in os.getloadavg()), flush=True)
    with open_store(args.store) as store:
        for item in args.heuristic or CONFIGS:
            size, _, heuristic = item.partition(":")
            config = Configuration(int(size), heuristic, args.prune,
                                   boards_of(int(size), args.first, args.korf24), store)
            try:
                measure(config, args.rounds, exe)
            finally:
                config.close()
    print("load average " + " ".join(f"{x:.2f}" for x in os.getloadavg()) + " at the end")


if __name__ == "__main__":
    main()
