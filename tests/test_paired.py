"""Paired statistics (jobs/paired.py): geometric mean ratios with bootstrap intervals, the
signed-rank test and Wilson intervals, against hand computations and a naive bootstrap."""

from pathlib import Path

import numpy as np
import pandas as pd
import pytest

from sweeps_local import local_sweep
from tilesweep.jobs.paired import BOOTSTRAP_MAX, coverage_interval, paired_ratio
from tilesweep.jobs.summary import format_summary, summarize


def lognormal_pairs(n, shift, seed=1):
    rng = np.random.default_rng(seed)
    baseline = np.exp(rng.normal(10, 2, n)).round() + 1
    return baseline * np.exp(rng.normal(shift, 0.5, n)), baseline


def test_the_ratio_is_the_geometric_mean_and_its_interval_a_percentile_bootstrap():
    values, baseline = lognormal_pairs(400, -0.7)
    found = paired_ratio(values, baseline)
    d = np.log(values) - np.log(baseline)
    assert found["ratio"] == pytest.approx(np.exp(d.mean()), rel=1e-12)
    rng = np.random.default_rng(7)  # a naive bootstrap of the mean log ratio, other draws
    means = np.array([d[rng.integers(0, len(d), len(d))].mean() for _ in range(4000)])
    low, high = np.exp(np.percentile(means, [2.5, 97.5]))
    assert found["ratio_low"] == pytest.approx(low, rel=0.01) and found["ratio_high"] == pytest.approx(high, rel=0.01)
    assert found["ratio_low"] < found["ratio"] < found["ratio_high"]
    assert paired_ratio(values, baseline) == found  # seeded: the same figures every time


def test_the_signed_rank_test_tells_a_shift_from_noise():
    assert paired_ratio(*lognormal_pairs(200, -0.3))["p"] < 0.001
    assert paired_ratio(*lognormal_pairs(200, 0.0, seed=3))["p"] > 0.05
    same = np.arange(1.0, 50.0)
    assert paired_ratio(same, same) == {"ratio": 1.0, "ratio_low": 1.0, "ratio_high": 1.0, "p": 1.0}
    doubled = paired_ratio(2 * same, same)  # 2x every instance: no spread, certain
    assert doubled["ratio"] == pytest.approx(2.0) and doubled["p"] < 0.001


def test_pairs_without_nodes_and_too_few_pairs():
    found = paired_ratio(np.array([0.0, 10.0]), np.array([5.0, 20.0]))  # the goal itself: no ratio
    assert found["ratio"] == pytest.approx(0.5) and np.isnan(found["ratio_low"])
    assert np.isnan(paired_ratio(np.array([]), np.array([]))["ratio"])


def test_many_pairs_take_the_t_interval_which_the_bootstrap_agrees_with():
    values, baseline = lognormal_pairs(BOOTSTRAP_MAX + 1, 0.2)
    big = paired_ratio(values, baseline)
    small = paired_ratio(values[:BOOTSTRAP_MAX], baseline[:BOOTSTRAP_MAX])  # the bootstrap
    assert big["ratio_low"] < big["ratio"] < big["ratio_high"]
    assert big["ratio_high"] / big["ratio_low"] == pytest.approx(small["ratio_high"] / small["ratio_low"], rel=0.05)


def test_coverage_has_the_wilson_interval():
    low, high = coverage_interval(45, 100)
    assert (low, high) == (pytest.approx(0.3562, abs=1e-4), pytest.approx(0.5476, abs=1e-4))
    assert coverage_interval(100, 100)[1] == pytest.approx(1.0) and coverage_interval(0, 100)[0] == 0.0


def test_a_summary_against_a_baseline_prints_each_ratio_with_its_interval():
    values, baseline = lognormal_pairs(300, -0.7)
    rows = pd.DataFrame([{"sweep": "s", "instance": i, "size": 4, "goal": "blank-first", "tiles": str(i),
                          "algorithm": "idastar", "heuristic": h, "status": "solved", "cost": 50,
                          "nodes_generated": int(n), "ebf": 1.5, "seconds": 1.0, "pruning": "parent"}
                         for h, column in (("manhattan", baseline), ("mine", values)) for i, n in enumerate(column)])
    frame = summarize(rows, "manhattan").set_index("heuristic")
    mine = frame.loc["mine"]
    expected = paired_ratio(rows[rows.heuristic == "mine"].nodes_generated.to_numpy(), baseline.astype(int))
    assert (mine.nodes_ratio, mine.nodes_ratio_low, mine.nodes_ratio_high, mine.p_value) == tuple(expected.values())
    assert (mine.solved_low, mine.solved_high) == coverage_interval(300, 300)
    lines = format_summary(frame.reset_index(), "table").splitlines()
    line = next(x for x in lines if x.startswith("  idastar mine"))
    assert f"{mine.nodes_ratio:#.3g} ({mine.nodes_ratio_low:#.3g}-{mine.nodes_ratio_high:#.3g})" in line
    assert line.endswith("p < 0.001")


def test_a_sweep_of_twice_manhattan_against_manhattan_gives_p_below_a_thousandth(tmp_path):
    """A real sweep's pairs: 2 x Manhattan (inadmissible, so its costs are not optimal; the
    paired figure is nodes generated on the instances both solved) against Manhattan."""
    plugin = str(Path(__file__).parents[1] / "examples" / "heuristics" / "manhattan.py")
    folder = local_sweep(tmp_path, "twice", size=3, count=400, seed=0,
                         heuristics=("manhattan", "plugin:twice-manhattan"),
                         plugin_files=(plugin,))
    frame = summarize(sorted((folder / "results").glob("*.parquet")), "manhattan")
    twice = frame.set_index("heuristic").loc["plugin:twice-manhattan"]
    assert twice.paired == 400 and twice.p_value < 0.001 and twice.nodes_ratio_high < 1
    line = next(x for x in format_summary(frame, "table").splitlines() if x.startswith("  idastar plugin:twice"))
    assert line.endswith("p < 0.001")
