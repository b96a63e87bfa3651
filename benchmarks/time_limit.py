"""--time-limit on Korf's 100 with IDA* + Manhattan: which solve, which time out, and by how much.

    python benchmarks/time_limit.py                   # --time-limit 0.5, in this process

Each instance is solved with the limit. A solved one is solved again without it and its
node count must be the same (the clock checks never change a search that finishes); a
timed-out one's overshoot is its search seconds minus the limit. The kernels read the
clock every 65,536 nodes, ~1 ms of IDA* + Manhattan, so the overshoot is that interval
plus whatever the machine's load adds (a shared machine here).
"""

from __future__ import annotations

import argparse

from tilesweep.jobs.sources import KORF100, read_instance_file
from tilesweep.solver import Board, solve


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--time-limit", type=float, default=0.5)
    args = parser.parse_args()
    boards = read_instance_file(str(KORF100), 4)
    solve(Board.goal(4, "blank-first").apply("R"), "blank-first", "idastar", "manhattan")  # compile
    solved, overshoots = [], []
    for number, tiles in enumerate(boards, 1):
        board = Board(tiles, 4)
        result = solve(board, "blank-first", "idastar", "manhattan", time_limit=args.time_limit)
        if result.status == "solved":
            free = solve(board, "blank-first", "idastar", "manhattan")
            assert free.nodes_generated == result.nodes_generated, number
            solved.append((number, result.nodes_generated))
        else:
            assert result.status == "timeout" and result.seconds >= args.time_limit, (number, result)
            overshoots.append((result.seconds - args.time_limit, number))
    worst = max(overshoots)
    print(f"--time-limit {args.time_limit}: {len(solved)} solved (node counts equal to unlimited solves), "
          f"{len(overshoots)} timeout")
    print(f"overshoot: worst {worst[0] * 1e3:.1f} ms (Korf #{worst[1]}), "
          f"median {sorted(o for o, _ in overshoots)[len(overshoots) // 2] * 1e3:.2f} ms")


if __name__ == "__main__":
    main()
