"""A* nodes per second by heuristic, on the main job's boards, this checkout against another.

Run: ``python benchmarks/astar_heuristics.py [--other DIR] [--rounds 3]``, DIR a checkout
of tilesweep with its own venv in ``DIR/.venv`` (e.g. the commit before a kernel change).
Boards: the README main job's 10,000 uniform 8-puzzles (seed 0) and 200 15-puzzles from
40-move walks (seed 0), solved by the batch A* (``solve_boards``, the sweeps' path) with
each heuristic. Each round runs every (checkout, size, heuristic) in a fresh process,
alternating the checkouts; the best round's search seconds (the kernels' own clock) are
kept. Node counts must be equal between the checkouts.
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
HEURISTICS = ("manhattan", "linear-conflict", "pdb:4-4", "pdb:5-3")
SETS = {3: ("uniform", 10_000), 4: ("walk:40", 200)}


def worker(size: int, heuristic: str, store: str) -> None:
    """Solve the set of ``size`` with ``heuristic``; print nodes, search seconds, rows."""
    from tilesweep.jobs.spec import build_spec
    from tilesweep.jobs.work import _boards, chunk_jobs
    from tilesweep.pdb_store import open_store, tables_for
    from tilesweep.solver.batch import kernel_boards, solve_boards
    from tilesweep.solver.heuristics import parse_heuristic

    instances, count = SETS[size]
    options = dict(size=size, count=count, instances=instances, algorithms=("astar",), heuristics=(heuristic,),
                   out=store, chunk_size=str(count))
    spec, _ = build_spec(options, None, 1)
    _, boards = _boards(chunk_jobs(spec)[0])
    goal = spec.goal_tuple
    boards = boards[kernel_boards(boards, goal, size)]
    parsed = parse_heuristic(heuristic, size, goal)
    with open_store(store) as opened:
        tables = tables_for(parsed, size, goal, opened) if parsed.groups else ()
        solve_boards(boards[:2], size, goal, "astar", parsed, tables)  # compile or load the kernel
        cols = solve_boards(boards, size, goal, "astar", parsed, tables)
    print(json.dumps({"nodes": cols.nodes_generated.to_pylist(), "seconds": sum(cols.seconds.to_pylist())}))


def measure(checkout: Path, size: int, heuristic: str, store: Path) -> dict:
    python = checkout / ".venv" / "bin" / "python"
    if not python.exists():
        python = Path(sys.executable)
    done = subprocess.run([str(python), str(Path(__file__).resolve()), "--worker", str(size), heuristic,
                           str(store)], cwd=checkout, capture_output=True, text=True, check=True)
    return json.loads(done.stdout.splitlines()[-1])


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--other", type=Path, help="a checkout of another commit with its own .venv")
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--store", type=Path, default=Path("/tmp/astar-heuristics-store"))
    parser.add_argument("--worker", nargs=3, help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.worker:
        worker(int(args.worker[0]), args.worker[1], args.worker[2])
        return
    from tilesweep.jobs.runrecord import machine_line
    print(machine_line(), "load average", os.getloadavg())
    checkouts = {"this": ROOT} | ({"other": args.other.resolve()} if args.other else {})
    cases = [(3, h) for h in HEURISTICS] + [(4, h) for h in HEURISTICS[:2]]
    best: dict = {}
    for round_ in range(args.rounds):
        order = list(checkouts.items()) if round_ % 2 == 0 else list(reversed(checkouts.items()))
        for size, heuristic in cases:
            for name, checkout in order:
                run = measure(checkout, size, heuristic, args.store)
                key = (name, size, heuristic)
                if key not in best or run["seconds"] < best[key]["seconds"]:
                    best[key] = run
        print(f"round {round_ + 1} done, load {os.getloadavg()[0]:.1f}", flush=True)
    for size, heuristic in cases:
        this = best["this", size, heuristic]
        nodes = sum(this["nodes"])
        line = (f"{size}x{size} {heuristic:16s} {len(this['nodes']):6,} boards {nodes:12,} nodes: "
                f"{nodes / this['seconds'] / 1e6:6.2f} M nodes/s")
        if "other" in checkouts:
            other = best["other", size, heuristic]
            same = "same nodes" if other["nodes"] == this["nodes"] else "NODE COUNTS DIFFER"
            line += (f"; other {nodes / other['seconds'] / 1e6:6.2f} M nodes/s ({same}), "
                     f"this/other {other['seconds'] / this['seconds']:.2f}x")
        print(line)
    print("load average", os.getloadavg())


if __name__ == "__main__":
    main()
