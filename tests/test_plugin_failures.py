"""A plugin that fails (returns a negative h, raises, does not compile) is one line naming it
in every command that meets it: ``check-heuristic``, ``sweep --check-heuristics``, ``solve``;
in a sweep, its row is ``error`` with the reason in the ``error`` column."""

import pytest
from typer.testing import CliRunner

from test_plugins import NEAR_GOAL, plugin_source
from tilesweep.cli import app
from tilesweep.jobs.results import load_results
from tilesweep.jobs.spec import build_spec
from tilesweep.jobs.sweep import prepare, run_local
from tilesweep.solver import Board, solve
from tilesweep.solver.plugins import PluginError, register

RUNNER = CliRunner()
# 0 at the goal (as the checks before a search ask), negative or raising on every other board
AWAY = "for c in range(tiles.shape[0]):\n    if tiles[c] != goal[c]:\n        {}\nreturn 0"
NEGATIVE = plugin_source(AWAY.format("return -3"), "negative")
RAISES = plugin_source(AWAY.format("raise ValueError('no such board')"), "raises")


def one_line(result) -> str:
    lines = result.stderr.strip().splitlines()
    assert len(lines) == 1, result.stderr
    return lines[0]


@pytest.fixture
def plugin_file(tmp_path):
    def write(source: str, name: str):
        path = tmp_path / f"{name}.py"
        path.write_text(source)
        return str(path)
    return write


def test_check_heuristic_refuses_a_negative_h_naming_the_board(plugin_file):
    result = RUNNER.invoke(app, ["check-heuristic", "plugin:negative", "--plugin", plugin_file(NEGATIVE, "negative")])
    assert result.exit_code == 2, result.output
    line = one_line(result)
    assert line.startswith("error: heuristic 'plugin:negative' returned a negative h (-3) on board '")
    assert line.endswith("; expected h >= 0") and "admissible" not in result.stdout


def test_a_plugin_that_raises_is_one_line_in_check_heuristic_and_sweep_check_heuristics(plugin_file, tmp_path):
    path = plugin_file(RAISES, "raises")
    for args in (["check-heuristic", "plugin:raises", "--plugin", path],
                 ["sweep", "--size", "3", "--count", "4", "--heuristic", "plugin:raises", "--plugin", path,
                  "--check-heuristics", "--out", str(tmp_path / "sweeps")]):
        result = RUNNER.invoke(app, args)
        assert result.exit_code == 2, result.output
        assert "Traceback" not in result.output
        line = one_line(result)
        assert line.startswith("error: heuristic 'plugin:raises' raised ValueError on board '"), line
        assert line.endswith("': no such board")


def test_a_compile_error_keeps_its_cause():
    register(plugin_source("return undefined_name", "broken"), "broken.py")
    with pytest.raises(PluginError) as caught:
        solve(Board.parse(NEAR_GOAL), "blank-last", "idastar", "plugin:broken")
    message = str(caught.value)
    assert "\n" not in message and message.startswith("heuristic 'plugin:broken' does not compile for int64 boards")
    assert message.endswith("NameError: name 'undefined_name' is not defined"), message


def test_a_sweep_row_of_a_negative_h_says_why_in_its_error_column(plugin_file, tmp_path):
    spec, _ = build_spec({"size": 3, "count": 4, "seed": 1, "algorithms": ("idastar",), "out": str(tmp_path),
                          "heuristics": ("plugin:negative",), "plugin_files": (plugin_file(NEGATIVE, "negative"),),
                          "name": "neg"})
    with prepare(spec) as plan:
        run_local(plan)
    rows = load_results(spec.folder)
    assert len(rows) == 4 and set(rows["status"]) == {"error"} and set(rows["status_reason"]) == {"heuristic"}
    assert set(rows["error"]) == {"heuristic 'plugin:negative' returned a negative h on a board of this search; "
                                  "expected h >= 0"}
