"""The report's prediction section (jobs/report/prediction_section.py) on small real 8-puzzle
sweeps: its ratios equal jobs/predict.py's, an A*-only sweep says so in one line, and the section
in headless Chromium (a screenshot goes to ``test-artifacts/report/report-prediction.png``)."""

import os
from pathlib import Path

import pytest

from browser import require_chromium
from sweeps_local import local_sweep
from test_report_browser import PLOTS_JS, load
from tilesweep.jobs.predict import compare_sweep
from tilesweep.jobs.report.build import build_report
from tilesweep.jobs.report.export import chromium_driver
from tilesweep.jobs.results import load_results
from tilesweep.jobs.verify import read_spec
from tilesweep.pdb_store import open_store

pytestmark = pytest.mark.browser
ROOT = Path(__file__).resolve().parents[1]
ARTIFACTS = Path(os.environ.get("TILESWEEP_ARTIFACTS", ROOT / "test-artifacts")) / "report"


@pytest.fixture(scope="module")
def swept(tmp_path_factory):
    out = tmp_path_factory.mktemp("sweeps")
    with pytest.MonkeyPatch.context() as patch:
        patch.setenv("TILESWEEP_STORE", str(out / "store"))
        folder = local_sweep(out, "pred", size=3, count=40, seed=5, algorithms=("idastar",),
                             heuristics=("manhattan", "linear-conflict"), chunk_size=20)
        yield folder, build_report([str(folder)])


def test_the_section_shows_jobs_predict_ratios(swept):
    folder, report = swept
    html = report.path.read_text()
    expected = compare_sweep(read_spec(folder), load_results(folder), open_store(os.environ["TILESWEEP_STORE"]))
    for found in expected:
        for a in found.agreements:
            for value in (a.aggregate, a.iteration_gmean, a.instance_p10, a.instance_p90):
                assert f'data-value="{value!r}"' in html
    assert "Not predicted" not in html


def test_an_astar_sweep_says_why_in_one_line(tmp_path, monkeypatch):
    monkeypatch.setenv("TILESWEEP_STORE", str(tmp_path / "store"))
    folder = local_sweep(tmp_path, "astar", size=3, count=5, algorithms=("astar",), heuristics=("manhattan",))
    html = build_report([str(folder)]).path.read_text()
    assert "No prediction: these sweeps ran no IDA*" in html


def test_the_section_in_chromium(swept):
    require_chromium()
    _, report = swept
    with chromium_driver(1500, 1200) as driver:
        load(driver, report.path)
        plots = {p["name"]: p for p in driver.execute_script(PLOTS_JS)}
        assert {"predicted-0", "predicted-1"} <= set(plots)
        assert all(plots[n]["painted"] > 1000 and max(plots[n]["lengths"]) > 0 for n in ("predicted-0", "predicted-1"))
        section = driver.find_element("id", "prediction-section")
        driver.execute_script("arguments[0].scrollIntoView()", section)
        ARTIFACTS.mkdir(parents=True, exist_ok=True)
        target = ARTIFACTS / "report-prediction.png"
        section.screenshot(str(target))
        assert target.stat().st_size > 20_000
