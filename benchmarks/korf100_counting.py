"""Korf's 100 IDA* node counts under several readings of "nodes", from a finished sweep.

    tilesweep sweep --instances korf100 --algorithm idastar --heuristic pdb:7-8+reflect --name k
    python benchmarks/korf100_counting.py sweeps/k
    python benchmarks/korf100_counting.py --mirrored korf100-mirrored.txt   # then sweep it: --instances FILE

Per heuristic, the mean over its solved rows of: nodes generated (tilesweep's count, every
iteration, the last up to the goal), nodes expanded, nodes generated in the iterations
before the last (the part no successor order changes), and in the last iteration up to the
goal (the part that depends on the order the children are tried in). Published figures
counted another way can then be set beside the reading they match.

``--mirrored FILE`` writes Korf's 100 mirrored about the main diagonal (tile t on cell c
becomes tile T(t) on cell T(c), T the transposition; the blank-first goal is its own
mirror). A heuristic that the mirror leaves unchanged (``+reflect``: the max of the board's
and its mirror's lookups; Manhattan distance) gives the mirrored board the same values all
along, so IDA* with the blank's order U, L, R, D on the mirror is IDA* with the order
L, U, D, R on the board: the same iterations before the last, and another last one.
"""

from __future__ import annotations

import argparse
import json

import pandas as pd

from tilesweep.jobs.sources import KORF100, read_instance_file
from tilesweep.solver.geometry import transpose_cell

SIZE = 4


def readings(rows: pd.DataFrame) -> dict[str, float]:
    """The mean of each reading over ``rows`` (solved IDA* rows of one heuristic)."""
    iterations = rows["iterations"].map(json.loads)
    last = iterations.map(lambda its: its[-1]["nodes_generated"])
    return {
        "instances": len(rows),
        "generated": rows["nodes_generated"].mean(),
        "expanded": rows["nodes_expanded"].mean(),
        "before last iteration": (rows["nodes_generated"] - last).mean(),
        "last iteration to goal": last.mean(),
    }


def write_mirrored(path: str) -> None:
    """Korf's 100 mirrored about the main diagonal, one board a line."""
    lines = []
    for tiles in read_instance_file(KORF100):
        mirrored = [0] * len(tiles)
        for cell, tile in enumerate(tiles):
            mirrored[transpose_cell(cell, SIZE)] = transpose_cell(tile, SIZE)  # tile t's goal cell is t
        lines.append(" ".join(map(str, mirrored)))
    with open(path, "w", encoding="utf-8") as handle:
        handle.write("\n".join(lines) + "\n")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("sweep", nargs="?", help="a finished sweep's folder (OUT/NAME)")
    parser.add_argument("--mirrored", metavar="FILE", help="write Korf's 100 mirrored about the main diagonal")
    args = parser.parse_args()
    if args.mirrored:
        write_mirrored(args.mirrored)
        return
    frame = pd.read_parquet(f"{args.sweep}/results")
    solved = frame[(frame["status"] == "solved") & (frame["algorithm"] == "idastar")]
    table = pd.DataFrame({h: readings(rows) for h, rows in solved.groupby("heuristic")}).T
    with pd.option_context("display.float_format", "{:,.1f}".format, "display.width", 200,
                           "display.max_columns", None):
        print(table.T)


if __name__ == "__main__":
    main()
