"""Korf's 100 with the max of a pattern database and walking distance: tilesweep's kernel
against a C yardstick, expanded nodes per CPU second.

    python benchmarks/korf100_pdb_walk.py --store /work/pdb-store
    python benchmarks/korf100_pdb_walk.py --store DIR --prune parent --rounds 3 --first 50 --general

The C yardstick (benchmarks/c_idastar_pdb_walk.c, gcc -O3 -march=native) computes the same
h = max(PDB, mirror, walking distance) with the same successor order, pruning automaton,
tables (the store's .npy files) and node accounting, in two forms: ``full`` reads all three
on every child (the recipe of the strongest public C++ solver, domsleee/15puzzle) and
``lazy`` only what can decide, as tilesweep does. Rounds alternate the runs (C full, C lazy,
tilesweep, and with ``--general`` the general IDA* kernel), each solving the instances in one
process and summing its CPU clock around each solve; the ratios are taken within a round
and their median is reported. Every run must give the same cost, nodes generated and nodes
expanded on every instance. Tables are read, never built (``--store``: a built store).
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

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from solver_speed import built  # noqa: E402

from tilesweep.jobs.runrecord import machine_line  # noqa: E402
from tilesweep.jobs.sources import KORF100, read_instance_file  # noqa: E402
from tilesweep.pdb_store import open_store, tables_for  # noqa: E402
from tilesweep.solver import goal_tiles, parse_heuristic  # noqa: E402
from tilesweep.solver.fsm import automaton, parse_pruning  # noqa: E402
from tilesweep.solver.geometry import neighbours64  # noqa: E402
from tilesweep.solver.heuristics import kernel_heuristic  # noqa: E402
from tilesweep.solver.idastar import _idastar  # noqa: E402
from tilesweep.solver.idastar_walk import walk_steps  # noqa: E402
from tilesweep.solver.kernels import goal_positions, near_goal  # noqa: E402
from tilesweep.solver.limits import make_limits  # noqa: E402
from tilesweep.solver.search import idastar_call  # noqa: E402
from tilesweep.solver.walking import start_patterns  # noqa: E402

GOAL = goal_tiles("blank-first", 4)


def setup_text(spec, H, fsm_table, store, boards) -> str:
    """The C yardstick's setup file (layout in c_idastar_pdb_walk.c's read_setup)."""
    def ints(array) -> str:
        return " ".join(map(str, np.asarray(array).ravel().tolist()))
    lines = [f"{len(fsm_table) // 4}", ints(fsm_table),
             f"{len(H.wd_link_v) // 8}", ints(H.wd_link_v), f"{len(H.wd_link_h) // 8}", ints(H.wd_link_h),
             ints(walk_steps(4, GOAL)), ints(goal_positions(GOAL)), ints(H.refl_tile), ints(H.refl_cell),
             f"{len(spec.groups)}"]
    for group in spec.groups:
        lines.append(f"{len(group)} {ints(group)} {store.path_of(4, GOAL, group)}")
    lines.append(f"{len(boards)}")
    for tiles in boards:
        lines.append(f"{ints(tiles)} {ints(start_patterns(list(tiles), GOAL, 4))}")
    return "\n".join(lines) + "\n"


def run_c(exe: Path, setup: Path, mode: str) -> tuple[list[tuple], float]:
    """Per instance (cost, generated, expanded) and the CPU seconds of one C run."""
    lines = subprocess.run([str(exe), str(setup), mode], check=True, capture_output=True, text=True).stdout.split("\n")
    rows = [json.loads(line) for line in lines if line]
    return [(r["cost"], r["nodes_generated"], r["nodes_expanded"]) for r in rows[:-1]], rows[-1]["cpu_seconds"]


def run_kernel(call, boards) -> tuple[list[tuple], float]:
    """Per instance (cost, generated, expanded) and the summed CPU seconds of ``call`` on each."""
    rows, cpu = [], 0.0
    for tiles in boards:
        board = np.array(tiles, dtype=np.int8)
        start = time.process_time()
        status, _, cost, generated, expanded, *_ = call(board)
        cpu += time.process_time() - start
        rows.append((int(cost), int(generated), int(expanded)))
    return rows, cpu


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("-H", "--heuristic", default="max(pdb:6-6-3+reflect,walking-distance)")
    parser.add_argument("--prune", default="fsm", help="parent, fsm or fsm:DEPTH")
    parser.add_argument("--store", default=None, help="a PDB store holding the tables (default: TILESWEEP_STORE)")
    parser.add_argument("--rounds", type=int, default=5)
    parser.add_argument("--first", type=int, default=100, help="only the first N instances")
    parser.add_argument("--general", action="store_true", help="also run the general IDA* kernel each round")
    args = parser.parse_args()
    boards = read_instance_file(str(KORF100), 4)[: args.first]
    spec = parse_heuristic(args.heuristic, 4, GOAL)
    with open_store(args.store) as store:
        H = kernel_heuristic(spec, 4, GOAL, tables_for(spec, 4, GOAL, store, build=False))
        pruning = parse_pruning(args.prune, 4)
        fsm = automaton(4, pruning.depth) if pruning.kind == "fsm" else None
        table = np.zeros(4, dtype=np.int32) if fsm is None else fsm.full
        setup = Path(tempfile.gettempdir()) / f"tilesweep_pdb_walk_setup_{os.getpid()}.txt"
        setup.write_text(setup_text(spec, H, table, store, boards))
    limits = make_limits()
    name, call = idastar_call(4, GOAL, H, limits, fsm)
    runs = {"C full": lambda: run_c(exe, setup, "full"), "C lazy": lambda: run_c(exe, setup, "lazy"),
            f"tilesweep {name}": lambda: run_kernel(call, boards)}
    if args.general:
        def general(tiles):
            return _idastar(tiles, 4, goal_positions(GOAL), neighbours64(4), H, limits, table, fsm is not None)
        general(near_goal(GOAL, 4))
        runs["tilesweep general kernel"] = lambda: run_kernel(general, boards)
    exe = built("c_idastar_pdb_walk")
    call(near_goal(GOAL, 4))  # compiled (or loaded) outside the clock
    print(machine_line())
    print(f"{args.heuristic} --prune {pruning}, Korf's first {len(boards)}, {args.rounds} rounds; "
          f"load average {os.getloadavg()[0]:.1f} at the start", flush=True)
    cpu = {label: [] for label in runs}
    reference = None
    for k in range(args.rounds):
        order = list(runs) if k % 2 == 0 else list(runs)[::-1]
        for label in order:
            rows, seconds = runs[label]()
            reference = reference or rows
            if rows != reference:
                sys.exit(f"{label}: costs or node counts differ from the first run's")
            cpu[label].append(seconds)
        print(f"round {k + 1}: " + ", ".join(f"{label} {cpu[label][-1]:.2f} s" for label in runs)
              + f"; load {os.getloadavg()[0]:.1f}", flush=True)
    setup.unlink()
    generated = sum(r[1] for r in reference)
    expanded = sum(r[2] for r in reference)
    print(f"every run: total cost {sum(r[0] for r in reference)}, {generated:,} generated, {expanded:,} expanded "
          "(equal on every instance)")
    ours = f"tilesweep {name}"
    for label in runs:
        rate = expanded / statistics.median(cpu[label]) / 1e6
        line = f"{label}: CPU median {statistics.median(cpu[label]):.2f} s (min {min(cpu[label]):.2f}), " \
               f"{rate:.2f} M expanded per CPU s"
        if label.startswith("C"):
            ratio = statistics.median(c / o for c, o in zip(cpu[label], cpu[ours], strict=True))
            line += f"; tilesweep per node against it (median of rounds): {ratio:.2f}"
        print(line)
    print(f"load average {os.getloadavg()[0]:.1f} at the end")


if __name__ == "__main__":
    main()
