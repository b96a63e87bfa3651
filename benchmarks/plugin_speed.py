"""A plugin heuristic's cost per node: examples/heuristics/manhattan.py's Manhattan distance,
full-board form (``manhattan-plugin``) and incremental form (``manhattan-incremental``),
against the built-in ``manhattan`` with IDA* on Korf's instances (same node counts asserted).

    python benchmarks/plugin_speed.py 2 5      # Korf instance ids (1-based)
"""

import os
import sys
from pathlib import Path

from tilesweep.jobs.plugins import load_files
from tilesweep.jobs.published import published_figures
from tilesweep.jobs.sources import KORF100
from tilesweep.solver import Board, solve

ROOT = Path(__file__).resolve().parents[1]


def korf(ids):
    return {i: Board(board.tiles, 4) for i, board in published_figures(KORF100).items() if i in ids}


def main(ids):
    load_files([ROOT / "examples" / "heuristics" / "manhattan.py"])
    print(f"load average {os.getloadavg()[0]:.1f}")
    for i, board in korf(ids).items():
        names = ("manhattan", "plugin:manhattan-plugin", "plugin:manhattan-incremental")
        runs = {h: solve(board, "blank-first", "idastar", h) for h in names}
        a = runs["manhattan"]
        line = f"Korf #{i}: {a.nodes_generated:,} nodes, cost {a.cost}; built-in {a.nodes_generated / a.seconds / 1e6:.1f} M nodes/s"
        for h in names[1:]:
            b = runs[h]
            assert (a.nodes_generated, a.cost) == (b.nodes_generated, b.cost)
            ratio = a.seconds / b.seconds
            line += f", {h} {b.nodes_generated / b.seconds / 1e6:.1f} M nodes/s (ratio {ratio:.3f})"
        print(line)
    print(f"load average {os.getloadavg()[0]:.1f}")


if __name__ == "__main__":
    main([int(x) for x in sys.argv[1:]] or [2, 5])
