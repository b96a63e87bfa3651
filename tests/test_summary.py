"""Summaries per (size, algorithm, heuristic), with and without a baseline, on known rows."""

import pandas as pd
import pytest

from tilesweep.jobs.summary import format_frame, summarize
from tilesweep.solver.errors import InvalidOptionError


def row(instance, heuristic, nodes, status="solved", cost=10, seconds=0.5, algorithm="astar"):
    return dict(sweep="s", size=3, goal="blank-last", tiles=f"t{instance}", instance=instance, algorithm=algorithm,
                heuristic=heuristic, status=status, cost=cost if status == "solved" else None,
                nodes_generated=nodes, ebf=1.5 if status == "solved" else None, seconds=seconds)


ROWS = pd.DataFrame([
    row(0, "manhattan", 100), row(1, "manhattan", 200), row(2, "manhattan", 300),
    row(3, "manhattan", 50, status="budget_exceeded"),
    row(0, "lc", 50), row(1, "lc", 200), row(2, "lc", 400), row(3, "lc", 0, status="error"),
])


def test_counts_and_statistics_over_solved_rows():
    s = summarize(ROWS).set_index("heuristic")
    m = s.loc["manhattan"]
    assert (m.instances, m.solved, m.budget_exceeded, m.error, m.unsolvable) == (4, 3, 1, 0, 0)
    assert (m.nodes_mean, m.nodes_median, m.nodes_max) == (200, 200, 300)
    assert m.nodes_p90 == pytest.approx(280)
    assert m.nodes_per_second == pytest.approx(600 / 1.5) and m.cost_mean == 10
    assert s.loc["lc"].error == 1


def test_baseline_reduction_and_pairwise_counts():
    s = summarize(ROWS, baseline="manhattan").set_index("heuristic")
    lc = s.loc["lc"]
    assert (lc.paired, lc.fewer, lc.equal, lc.more) == (3, 1, 1, 1)
    assert lc.node_reduction_pct == pytest.approx(100 * (1 - 650 / 600))
    assert s.loc["manhattan"].node_reduction_pct == 0 and s.loc["manhattan"].equal == 3


def test_unknown_baseline_and_format():
    with pytest.raises(InvalidOptionError, match="'euclid'"):
        summarize(ROWS, baseline="euclid")
    with pytest.raises(InvalidOptionError, match="'xml'"):
        format_frame(summarize(ROWS), "xml")
    assert format_frame(summarize(ROWS), "csv").splitlines()[0].startswith("size,algorithm,heuristic,instances")
