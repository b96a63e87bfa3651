"""``tilesweep sweep --dry-run``: the plan without solving or writing, and IDA*'s predicted cost
(jobs/forecast.py) equal to what jobs/predict.py predicts for the same boards; bad input one line, exit 2."""

import subprocess

import numpy as np
import pytest

from program import CLI
from tilesweep.jobs.forecast import forecast_plan
from tilesweep.jobs.instances import make_instances
from tilesweep.jobs.predict import make_model, set_cost
from tilesweep.jobs.quality import distances_of
from tilesweep.jobs.spec import build_spec
from tilesweep.pdb_store import open_store

pytestmark = pytest.mark.slow  # forecasts from sampled distributions: about 2 s a test


def run_tilesweep(*args):
    return subprocess.run([*CLI, *args], capture_output=True, text=True)


def test_dry_run_prints_the_plan_and_writes_nothing(tmp_path):
    out = tmp_path / "sweeps"
    result = run_tilesweep("sweep", "--size", "3", "--count", "20", "-a", "astar", "-H", "manhattan", "--dry-run",
                           "--out", str(out))
    assert result.returncode == 0, result.stderr
    assert "20 instances x 1 runs" in result.stdout and "the plan runs no IDA*" in result.stdout
    assert not out.exists()


def test_no_predict_prints_the_plan_alone(tmp_path):
    result = run_tilesweep("sweep", "--size", "3", "--count", "5", "--dry-run", "--no-predict", "--out", str(tmp_path))
    assert result.returncode == 0 and result.stdout.count("\n") == 1


def test_unknown_lengths_are_said_in_one_line(tmp_path):
    result = run_tilesweep("sweep", "--size", "4", "--count", "3", "--dry-run", "--out", str(tmp_path))
    assert result.returncode == 0
    assert "idastar manhattan: not predicted: the optimal lengths of uniform 15-puzzles are unknown" in result.stdout


def test_bad_input_is_one_line_and_exit_2(tmp_path):
    result = run_tilesweep("sweep", "--dry-run", "--count", "zero", "--out", str(tmp_path))
    assert result.returncode == 2 and len(result.stderr.strip().splitlines()) == 1 and "zero" in result.stderr


def test_the_8_puzzle_forecast_is_predict_of_the_true_lengths(tmp_path):
    spec, _ = build_spec({"size": 3, "count": 12, "seed": 3, "heuristics": ("manhattan",), "out": str(tmp_path)})
    store = open_store(str(tmp_path / "store"))
    (found,), source = forecast_plan(spec, store, limit=8, rate_nodes=10_000)
    assert "breadth-first" in source and len(found.instances) == 8 and found.of == 12
    boards = np.array([b.tiles for b in make_instances(spec)], dtype=np.int8)[found.instances["instance"]]
    lengths = distances_of(boards, 3, spec.goal_tuple)
    model = make_model("manhattan", 3, spec.goal_tuple, (), store)
    expected = set_cost(model, boards, lengths)
    for method in ("kre", "cdp", "cdp2"):
        assert found.instances[method].to_numpy() == pytest.approx(expected[method].to_numpy())
    assert found.rate > 0 and found.scale == pytest.approx(1.5)
