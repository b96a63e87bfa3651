"""``tilesweep report`` and ``compare`` keep configurations apart by pruning (``parent``
and ``fsm:DEPTH`` sweeps of the same instances), naming it only when the rows hold several."""

import json

import pytest
from typer.testing import CliRunner

from sweeps_local import local_sweep
from tilesweep.cli import app
from tilesweep.jobs.report.data import coverage_table, load
from tilesweep.jobs.report.plotted import baseline_of
from tilesweep.jobs.report.sweeps import open_sweeps
from tilesweep.jobs.summary import summarize

SPEC = dict(size=3, count=12, seed=5, algorithms=("idastar",), heuristics=("manhattan", "linear-conflict"),
            chunk_size=6)
LABELS = ["idastar manhattan parent", "idastar linear-conflict parent",
          "idastar manhattan fsm:14", "idastar linear-conflict fsm:14"]


@pytest.fixture(scope="module")
def pruned(tmp_path_factory):
    """Two runs (folders ``a`` and ``b``) of a ``--prune parent`` and a ``--prune fsm`` sweep."""
    out = tmp_path_factory.mktemp("pruned")
    return {(run, prune): local_sweep(out / run, prune, prune=prune, **SPEC)
            for run in ("a", "b") for prune in ("parent", "fsm")} | {"out": out}


def test_report_gives_each_pruning_its_own_configuration(pruned):
    data = load(open_sweeps([pruned["a", "parent"], pruned["a", "fsm"]]))
    assert data.configs == LABELS and "sweep" not in data.config_keys
    table = coverage_table(data)
    assert list(table["pruning"]) == ["parent", "parent", "fsm:14", "fsm:14"]
    assert (table["instances"] == 12).all() and (table["solved"] == 12).all()
    for prune, sweep in (("parent", pruned["a", "parent"]), ("fsm:14", pruned["a", "fsm"])):
        want = summarize(str(sweep)).set_index("heuristic")["nodes_mean"]
        for heuristic in SPEC["heuristics"]:
            assert table.loc[f"idastar {heuristic} {prune}", "nodes_mean"] == pytest.approx(want[heuristic])
    # the two prunings expand different trees: the figures are not one configuration's twice
    assert table.loc[LABELS[0], "nodes_mean"] != table.loc[LABELS[2], "nodes_mean"]
    assert baseline_of(data, LABELS[3]) == LABELS[2] and baseline_of(data, LABELS[1]) == LABELS[0]


def test_one_pruning_is_not_named(pruned):
    data = load(open_sweeps([pruned["a", "fsm"]]))
    assert data.configs == ["idastar manhattan", "idastar linear-conflict"]
    assert "pruning" not in coverage_table(data)


def test_report_page_of_both_prunings_is_written(pruned, tmp_path):
    out = tmp_path / "r.html"
    result = CliRunner().invoke(app, ["report", str(pruned["a", "parent"]), str(pruned["a", "fsm"]),
                                      "--out", str(out)])
    assert result.exit_code == 0, result.output
    page = out.read_text()
    assert all(label in page for label in LABELS)


def compare(old, new) -> dict:
    result = CliRunner().invoke(app, ["compare", str(old), str(new), "--format", "json"])
    assert result.exit_code == 0, result.output
    return json.loads(result.stdout)


def test_compare_pairs_rows_by_pruning_too(pruned):
    report = compare(pruned["out"] / "a", pruned["out"] / "b")  # folders holding both prunings
    configs = report["configurations"]
    assert sorted((c["heuristic"], c["pruning"]) for c in configs) == [
        ("linear-conflict", "fsm:14"), ("linear-conflict", "parent"), ("manhattan", "fsm:14"), ("manhattan", "parent")]
    for c in configs:
        assert (c["paired"], c["only_old"], c["only_new"]) == (12, 0, 0)
        assert (c["cost_diff"], c["nodes_diff"], c["status_diff"]) == (0, 0, 0)
    across = CliRunner().invoke(app, ["compare", str(pruned["a", "parent"]), str(pruned["a", "fsm"])])
    assert across.exit_code == 2  # the same instances, but no row pairs across prunings
    assert "share 12 instance(s) but no configuration (algorithm, heuristic, pruning)" in across.stderr


def test_compare_of_one_pruning_has_no_pruning_column(pruned):
    report = compare(pruned["a", "parent"], pruned["b", "parent"])
    assert all("pruning" not in c for c in report["configurations"]) and len(report["configurations"]) == 2
