"""The report's heuristic-quality section (``jobs/report/quality.py``, ``layers.py``) on a small
real sweep: IDA*'s nodes by f-layer against a per-row sum of the iterations column, h against
h* against ``check-heuristic --sweep``'s figures, a heuristic whose tables are missing named
with its reason, and the section in headless Chromium (a screenshot goes to
``test-artifacts/report/report-quality.png``)."""

import json
import os
from pathlib import Path

import pytest

from browser import require_chromium
from polling import wait_for
from sweeps_local import report_sweep
from test_report_browser import PLOTS_JS
from tilesweep.jobs.check import check_paths
from tilesweep.jobs.quality import solved_paths
from tilesweep.jobs.report.build import build_report
from tilesweep.jobs.report.data import load
from tilesweep.jobs.report.export import chromium_driver
from tilesweep.jobs.report.layers import layer_shares
from tilesweep.jobs.report.quality import path_quality
from tilesweep.jobs.report.sweeps import open_sweeps
from tilesweep.jobs.results import load_results
from tilesweep.solver.board import goal_tiles

ROOT = Path(__file__).resolve().parents[1]
ARTIFACTS = Path(os.environ.get("TILESWEEP_ARTIFACTS", ROOT / "test-artifacts")) / "report"
GOAL = goal_tiles("blank-last", 3)


@pytest.fixture(scope="module")
def swept(tmp_path_factory):
    """The report tests' sweep, its pattern databases in ``out/store``, which the report reads."""
    out = tmp_path_factory.mktemp("sweeps")
    folder = report_sweep(out)
    with pytest.MonkeyPatch.context() as patch:
        patch.setenv("TILESWEEP_STORE", str(out / "store"))
        yield folder


def test_nodes_by_f_layer_equal_a_sum_over_each_rows_iterations(swept):
    rows = load_results(swept)
    ida = rows[(rows["algorithm"] == "idastar") & (rows["status"] == "solved")]
    naive = {}
    for heuristic, cost, text in zip(ida["heuristic"], ida["cost"], ida["iterations"]):
        for it in json.loads(text):
            key = (f"idastar {heuristic}", it["bound"] - int(cost))
            naive[key] = naive.get(key, 0) + it["nodes_generated"]
    shares = layer_shares(load(open_sweeps([str(swept)])))
    assert {(c, int(k)): int(n) for c, k, n in zip(shares["config"], shares["layer"], shares["nodes"])} == naive
    assert shares.groupby("config", observed=True)["share"].sum().to_numpy() == pytest.approx(1)
    assert (shares["layer"] <= 0).all() and (shares[shares["layer"] == 0]["runs"] > 0).all()


def test_the_quality_table_equals_the_checks_of_the_sweeps_paths(swept):
    table, curve, skipped = path_quality(load(open_sweeps([str(swept)])))
    assert skipped == []
    assert list(table["heuristic"]) == ["manhattan", "linear-conflict", "pdb:4-4"]
    paths, solved = solved_paths(swept, 3, GOAL)
    store = os.environ["TILESWEEP_STORE"]
    from tilesweep.api import load_tables
    for _, row in table.iterrows():
        check = check_paths(row["heuristic"], 3, GOAL, load_tables(row["heuristic"], 3, GOAL, store, False), paths,
                            "sweep")
        assert row["instances"] == solved == check.starts.boards and row["path boards"] == check.boards
        assert row["mean h / h*"] == pytest.approx(check.mean_ratio) and row["h > h*"] == check.overestimates == 0
        assert row["h = h* (%)"] == pytest.approx(100 * check.exact_share)
        assert row["mean h0 / h*"] == pytest.approx(check.starts.mean_ratio)
    mine = curve[curve["label"] == "8-puzzle manhattan"]
    assert (mine["mean_h"] <= mine["distance"]).all() and mine["boards"].sum() == len(paths.boards)


def test_a_heuristic_whose_tables_are_missing_is_named_with_the_reason(swept, tmp_path, monkeypatch):
    monkeypatch.setenv("TILESWEEP_STORE", str(tmp_path / "empty-store"))
    table, _, skipped = path_quality(load(open_sweeps([str(swept)])))
    assert list(table["heuristic"]) == ["manhattan", "linear-conflict"]
    assert len(skipped) == 1 and skipped[0].startswith("pdb:4-4 on the 8-puzzle: ")


@pytest.mark.browser
def test_the_section_in_chromium(swept, tmp_path):
    require_chromium()
    path = build_report([str(swept)], out=str(tmp_path / "report.html")).path
    with chromium_driver(1500, 1200) as driver:
        driver.get(path.as_uri())
        wait_for(lambda: driver.execute_script(
            "return window.Bokeh && Bokeh.index && [...Bokeh.index.all_views()].length > 0"), what="bokeh views")
        plots = wait_for(lambda: (lambda ps: ps if all(p["painted"] for p in ps) else None)(
            driver.execute_script(PLOTS_JS)), what="painted plots")
        mine = {p["name"]: p for p in plots if p["name"] in ("h-against-distance", "f-layers")}
        assert set(mine) == {"h-against-distance", "f-layers"}
        for p in mine.values():
            assert max(p["lengths"]) > 5 and p["painted"] > 1000, p
        cells = driver.execute_script("""return [...document.querySelectorAll('#quality tbody tr')].map(
            (tr) => [...tr.children].map((td) => td.textContent));""")
        assert [c[1] for c in cells] == ["manhattan", "linear-conflict", "pdb:4-4"]
        assert all(c[-1] == "0" for c in cells)  # no overestimate
        assert "Not evaluated" not in driver.find_element("id", "quality-section").text
        section = driver.find_element("id", "quality-section")
        driver.execute_script("arguments[0].scrollIntoView()", section)
        ARTIFACTS.mkdir(parents=True, exist_ok=True)
        section.screenshot(str(ARTIFACTS / "report-quality.png"))


@pytest.mark.slow
def test_the_static_figure_draws_the_same_layers(swept):
    from tilesweep.jobs.report.figures import Style, build_figures

    data = load(open_sweeps([str(swept)]))
    fig = build_figures(data, Style())["f-layers"]
    shares = layer_shares(data)
    drawn = {line.get_label(): (list(line.get_xdata()), list(line.get_ydata())) for line in fig.axes[0].get_lines()}
    for config, rows in shares.groupby("config", observed=True):
        assert drawn[config] == (list(rows["layer"]), list(rows["share"]))
