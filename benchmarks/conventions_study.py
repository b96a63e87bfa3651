"""Mean nodes generated per heuristic with a 95 % interval, and on how many boards each
heuristic generated more nodes than a baseline, from a finished sweep: the figures an
8-puzzle study publishes for Manhattan distance against pattern databases
(docs/conventions.md, ``heap-best-g``).

    tilesweep sweep --size 3 --goal blank-first --count 300 --seed 0 --algorithm astar \\
        --heuristic manhattan --heuristic pdb:4-4+blank-ignoring --heuristic pdb:4-4 \\
        --conventions heap-best-g --name study
    python benchmarks/conventions_study.py sweeps/study --baseline manhattan

The interval is Student's t interval of the mean over the boards (every row must be solved).
"""

from __future__ import annotations

import argparse

import numpy as np
import pandas as pd
from scipy import stats


def study_table(rows: pd.DataFrame, baseline: str) -> pd.DataFrame:
    """One row per heuristic: boards, mean nodes generated, the interval's half-width, the
    reduction of the mean against ``baseline`` and the boards worse than or equal to it."""
    nodes = rows.pivot(index="instance", columns="heuristic", values="nodes_generated")
    base = nodes[baseline]
    out = []
    for name in nodes.columns:
        values = nodes[name]
        half = stats.t.ppf(0.975, len(values) - 1) * values.std(ddof=1) / np.sqrt(len(values))
        out.append({"heuristic": name, "boards": len(values), "mean": values.mean(), "interval": half,
                    "reduction": 1 - values.mean() / base.mean(),
                    "worse": int((values > base).sum()), "equal": int((values == base).sum())})
    return pd.DataFrame(out).set_index("heuristic")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("sweep", help="a finished sweep folder (OUT/NAME)")
    parser.add_argument("--baseline", default="manhattan")
    args = parser.parse_args()
    rows = pd.read_parquet(f"{args.sweep}/results",
                           columns=["instance", "heuristic", "status", "nodes_generated", "cost", "conventions"])
    if (rows.status != "solved").any():
        raise SystemExit(f"{args.sweep}: not every row is solved; the means need every board")
    print(f"conventions {', '.join(rows.conventions.unique())}; mean optimal cost {rows.cost.mean():.2f}")
    print(study_table(rows, args.baseline).round({"mean": 1, "interval": 1, "reduction": 3}).to_string())


if __name__ == "__main__":
    main()
