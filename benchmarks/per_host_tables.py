"""Per-host stores: build each table once and stream it, or build it on every worker?

Run against a cluster whose workers have stores of their own, e.g.

    docker compose -f docker-compose.yml -f docker-compose.per-host.yml up -d --scale worker=2
    python benchmarks/per_host_tables.py --scheduler tcp://127.0.0.1:8786 --heuristic pdb:6-6-3

Both ways run from empty stores, alternately, ``--rounds`` times each (the machine's speed
drifts). It empties the workers' stores at ``--store``.
"""

from __future__ import annotations

import argparse
import shutil
import statistics
import time
from pathlib import Path

from distributed import Client

from tilesweep.cluster.share import ensure_tables, pinned
from tilesweep.cluster.tables import build_missing
from tilesweep.solver.board import goal_tiles


def empty(root: str) -> None:
    for path in Path(root).iterdir():
        if path.is_dir():
            shutil.rmtree(path)
        else:
            path.unlink()


def on_every_worker(client: Client, fn, *args) -> list:
    workers = sorted(client.scheduler_info()["workers"])
    return client.gather([client.submit(fn, *args, **pinned(w)) for w in workers])


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--scheduler", required=True)
    parser.add_argument("--heuristic", default="pdb:6-6-3")
    parser.add_argument("--size", type=int, default=4)
    parser.add_argument("--store", default="/data/pdb")
    parser.add_argument("--rounds", type=int, default=2)
    args = parser.parse_args()
    goal = goal_tiles("blank-last", args.size)
    times: dict[str, list[float]] = {"build once, stream": [], "build on every worker": []}
    with Client(args.scheduler) as client:
        workers = len(client.scheduler_info()["workers"])
        for round_ in range(args.rounds):
            for way in times:
                on_every_worker(client, empty, args.store)
                started = time.perf_counter()
                if way == "build once, stream":
                    shared = ensure_tables(client, args.store, [args.heuristic], args.size, goal,
                                           f"bench-{round_}")
                    note = f"{shared.bytes / 1e6:.1f} MB streamed"
                else:
                    on_every_worker(client, build_missing, args.store, [args.heuristic], args.size, goal)
                    note = ""
                times[way].append(time.perf_counter() - started)
                print(f"round {round_ + 1}: {way}: {times[way][-1]:.1f} s {note}", flush=True)
    print(f"{args.heuristic} on {workers} workers, best and median of {args.rounds}:")
    for way, seconds in times.items():
        print(f"  {way:24s} best {min(seconds):6.1f} s  median {statistics.median(seconds):6.1f} s")


if __name__ == "__main__":
    main()
