"""benchmarks/predict_fixed.py --by-distance: CDP's ratio split by the starts' true distance,
checked on hand-made counts (three starts, two thresholds)."""

import importlib.util
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parents[1]


def predict_fixed():
    spec = importlib.util.spec_from_file_location("predict_fixed", ROOT / "benchmarks" / "predict_fixed.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def test_ratios_split_by_true_distance_and_by_gap(capsys):
    h0s, hstar = np.array([2, 4, 6]), np.array([3, 8, 10])
    measured = np.array([[10.0, 20.0], [5.0, 30.0], [1.0, 40.0]])
    predicted = np.array([[20.0, 20.0], [5.0, 60.0], [1.0, 40.0]])
    predict_fixed().by_distance([4, 6], measured, predicted, h0s, hstar)
    rows = [line for line in capsys.readouterr().out.splitlines() if line.startswith("| ") and line[2].isdigit()]
    # d = 4: the third start (h 6) is above it; the first ends within it (true distance 3)
    assert rows[0] == "| 4 | 1.667 (2) | 1.000 (1) | 2.000 (1) |"
    assert rows[1] == "| 6 | 1.333 (3) | 1.429 (2) | 1.000 (1) |"
    # completed iterations by d - h: gap 0 (second start at 4, third at 6), gap 2 (second at 6)
    assert rows[2:] == ["| 0 | 1.000 (2) |", "| 2 | 2.000 (1) |"]
