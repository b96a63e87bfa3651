"""The report in a real browser: headless Chromium (Debian's chromium and chromium-driver,
installed by .ci/install) opens the HTML file from disk with every request sent to a dead
proxy; nothing may be requested, nothing logged as an error; every plot has drawn data;
the instance table sorts and filters; a replay reaches the goal in the row's cost.
A screenshot goes to ``test-artifacts/report/`` (``$TILESWEEP_ARTIFACTS``)."""

import json
import os
from pathlib import Path

import pytest
from selenium.webdriver.common.actions.action_builder import ActionBuilder

from browser import require_chromium
from polling import wait_for
from sweeps_local import local_sweep, report_sweep
from tilesweep.jobs.report.build import build_report
from tilesweep.jobs.report.export import chromium_driver
from tilesweep.jobs.results import load_results

pytestmark = pytest.mark.browser

ROOT = Path(__file__).resolve().parents[1]
ARTIFACTS = Path(os.environ.get("TILESWEEP_ARTIFACTS", ROOT / "test-artifacts")) / "report"
# Every plot: its name, the length of each glyph renderer's data, and the count of
# painted pixels on its canvas (bokeh's own view objects, read in the page).
PLOTS_JS = """
const out = [];
for (const view of Bokeh.index.all_views()) {
  if (view.model.type !== "Figure") continue;
  const lengths = view.model.renderers.filter((r) => r.data_source).map((r) => r.data_source.get_length());
  const canvas = view.canvas_view.primary.canvas;
  const pixels = canvas.getContext("2d").getImageData(0, 0, canvas.width, canvas.height).data;
  let painted = 0;
  for (let i = 3; i < pixels.length; i += 4) if (pixels[i] > 0) painted++;
  out.push({name: view.model.name, lengths: lengths, painted: painted});
}
return out;
"""


@pytest.fixture(scope="module")
def report(tmp_path_factory):
    out = tmp_path_factory.mktemp("sweeps")
    folder = report_sweep(out)
    return build_report([str(folder)]).path, load_results(folder)


def load(driver, path):
    """Open the report at ``path`` and wait until every plot has painted."""
    driver.get(path.as_uri())
    wait_for(lambda: driver.execute_script(
        "return window.Bokeh && Bokeh.index && [...Bokeh.index.all_views()].length > 0"), what="bokeh views")
    wait_for(lambda: all(p["painted"] for p in driver.execute_script(PLOTS_JS)), what="painted plots")


@pytest.fixture(scope="module")
def page(report):
    require_chromium()
    path, rows = report
    # The network is off for the page: a proxy on a port nothing listens on, for every host.
    args = ("--proxy-server=127.0.0.1:9", "--proxy-bypass-list=<-loopback>")
    with chromium_driver(1500, 1200, args=args, logs=("browser", "performance")) as driver:
        load(driver, path)
        yield driver, rows


def shown_rows(driver):
    return driver.execute_script("""
        return [...document.querySelectorAll('#instances tbody tr')].map(
            (tr) => [...tr.children].map((td) => td.textContent));""")


def test_no_requests_and_no_console_errors(page):
    driver, _ = page
    events = [json.loads(e["message"])["message"] for e in driver.get_log("performance")]
    urls = {m["params"]["request"]["url"] for m in events if m["method"] == "Network.requestWillBeSent"}
    assert urls and all(u.startswith(("file://", "data:")) for u in urls), urls
    errors = [e for e in driver.get_log("browser") if e["level"] == "SEVERE"]
    assert errors == []


def test_every_plot_is_rendered_with_data(page):
    driver, rows = page
    plots = driver.execute_script(PLOTS_JS)
    names = {p["name"] for p in plots}
    configs = {f"{a} {h}" for a, h in zip(rows["algorithm"], rows["heuristic"], strict=True)}
    expected = {f"scatter-{v}-{c}" for v in ("nodes_generated", "seconds")
                for c in configs if not c.endswith("manhattan")}
    expected |= {"by-length", "coverage-nodes_generated", "coverage-seconds", "ebf", "iterations",
                 "h-against-distance", "f-layers"}
    expected |= {n for n in names if n.startswith("predicted-")}  # as the store holds what they need
    assert names == expected
    for p in plots:
        assert p["lengths"] and max(p["lengths"]) > 0 and p["painted"] > 1000, p


def test_instance_table_sorts_and_filters(page):
    driver, rows = page
    header = {th.text.strip(" ▲▼"): th for th in driver.find_elements("css selector", "#instances thead th")}
    driver.find_element("css selector", "#instances th[data-col='nodes']").click()
    nodes = [int(r[7].replace(",", "")) for r in shown_rows(driver)]
    assert nodes == sorted(rows["nodes_generated"].astype(int))[:25]
    driver.find_element("css selector", "#instances th[data-col='nodes']").click()
    nodes = [int(r[7].replace(",", "")) for r in shown_rows(driver)]
    assert nodes == sorted(rows["nodes_generated"].astype(int), reverse=True)[:25]
    assert "nodes" in header
    box = driver.find_element("id", "instance-filter")
    box.send_keys("idastar budget")
    want = rows[(rows["algorithm"] == "idastar") & (rows["status"] == "budget_exceeded")]
    assert 25 < len(want) <= 50  # two pages
    shown = shown_rows(driver)
    driver.find_element("id", "page-next").click()
    shown += shown_rows(driver)
    assert sorted(int(r[1]) for r in shown) == sorted(want["instance"])
    assert all(r[2] == "idastar" and r[4] == "budget_exceeded" and r[5] == "nodes" for r in shown)
    assert f"page 2 of 2 · {len(want)} of {len(rows)} rows" in driver.find_element("id", "page-info").text
    box.clear()
    box.send_keys("x")
    box.clear()  # an empty filter shows every row again
    driver.execute_script("document.getElementById('instance-filter').dispatchEvent(new Event('input'))")
    assert f"{len(rows)} of {len(rows)} rows" in driver.find_element("id", "page-info").text


def open_row(driver, words):
    box = driver.find_element("id", "instance-filter")
    box.clear()
    box.send_keys(words)
    driver.find_element("css selector", "#instances tbody tr").click()
    return shown_rows(driver)[0]


def replay_state(driver):
    return driver.execute_script("""
        const s = document.getElementById('replay-state'), b = document.getElementById('replay-board');
        return {text: s.textContent, step: +s.dataset.step, goal: s.dataset.goal, tiles: b.dataset.tiles};""")


def test_replay_played_to_the_end_reaches_the_goal_in_the_rows_cost(page):
    driver, rows = page
    solved = rows[(rows["status"] == "solved") & (rows["algorithm"] == "idastar") & (rows["heuristic"] == "manhattan")]
    target = solved.sort_values("cost").iloc[-1]
    row = open_row(driver, f"instance={target['instance']} idastar manhattan")
    assert row[:4] == ["rep", str(target["instance"]), "idastar", "manhattan"]
    start = replay_state(driver)
    assert start["step"] == 0 and start["tiles"] == target["tiles"] and start["goal"] == "no"
    assert f"h = {target['h0']}" in start["text"]  # the page's Manhattan distance equals the recorded h0
    driver.find_element("id", "replay-play").click()
    end = wait_for(lambda: (s := replay_state(driver))["goal"] == "yes" and s, timeout=60, what="the goal board")
    assert end["step"] == target["cost"] and end["tiles"] == "1 2 3 4 5 6 7 8 0"
    assert f"move {target['cost']} of {target['cost']}" in end["text"] and "h = 0" in end["text"]
    ARTIFACTS.mkdir(parents=True, exist_ok=True)
    driver.execute_script("document.getElementById('replay').scrollIntoView()")
    driver.save_screenshot(str(ARTIFACTS / "report-replay.png"))
    driver.find_element("id", "replay-back").click()
    assert replay_state(driver)["step"] == target["cost"] - 1


def test_replay_of_linear_conflict_and_pdb_rows(page):
    driver, rows = page
    lc = rows[(rows["status"] == "solved") & (rows["algorithm"] == "astar")
              & (rows["heuristic"] == "linear-conflict")].iloc[0]
    open_row(driver, f"instance={lc['instance']} algorithm=astar linear-conflict")
    assert f"h = {lc['h0']}" in replay_state(driver)["text"]
    pdb = rows[(rows["status"] == "solved") & (rows["heuristic"] == "pdb:4-4")].iloc[0]
    open_row(driver, f"instance={pdb['instance']} algorithm={pdb['algorithm']} pdb:4-4")
    driver.find_element("id", "replay-last").click()
    state = replay_state(driver)
    assert state["goal"] == "yes" and state["step"] == pdb["cost"] and "not computed in the page" in state["text"]


def test_screenshot_of_the_report(page):
    driver, _ = page
    ARTIFACTS.mkdir(parents=True, exist_ok=True)
    height = driver.execute_script("return document.body.scrollHeight")
    driver.set_window_size(1500, min(height, 16000))
    driver.execute_script("window.scrollTo(0, 0)")
    target = ARTIFACTS / "report.png"
    driver.save_screenshot(str(target))
    assert target.stat().st_size > 50_000
    print(f"screenshot: {target}")


@pytest.mark.parametrize("ticks, labels", [
    ([1_500, 10_000, 2_000_000, 3_000_000, 2.5e9], ["1.5k", "10k", "2M", "3M", "2.5G"]),
    ([0.005, 0.01, 0.5, 45], ["0.005", "0.01", "0.5", "45"]),
    ([0.0002, 0.0005, 0.001], ["0.0002", "0.0005", "0.001"]),
    ([1e-6, 0.00002, 0.00005, 0.0001, 0.0005, 2], ["1e-6", "2e-5", "5e-5", "1e-4", "5e-4", "2"]),
])
def test_log_axis_labels_stay_short_and_alike_on_one_axis(page, ticks, labels):
    """The log axes' tick labels, as the browser formats them: a few characters each, so a
    range of less than a power of ten (every tick labelled) does not run them together, and
    one form below 1 on an axis (no 5e-5 beside 0.0001)."""
    from tilesweep.jobs.report.plots import COMPACT_TICKS
    driver, _ = page
    script = f"return arguments[0].map((tick, index, ticks) => {{ {COMPACT_TICKS} }});"
    assert driver.execute_script(script, ticks) == labels


def test_the_filter_finds_numbers_as_shown_and_an_unsolved_row_has_nothing_to_play(page):
    driver, rows = page
    big = rows[rows["nodes_generated"] >= 1000].iloc[0]
    shown = f"{int(big['nodes_generated']):,}"  # as the table shows it, e.g. 1,735
    row = open_row(driver, f"{shown} instance={big['instance']}")
    assert row[7] == shown and row[1] == str(big["instance"])
    assert all(r[7] == shown for r in shown_rows(driver))
    stopped = rows[rows["status"] == "budget_exceeded"].iloc[0]
    open_row(driver, f"instance={stopped['instance']} algorithm={stopped['algorithm']} "
                     f"heuristic={stopped['heuristic']}")
    assert replay_state(driver)["text"] == "no moves to replay: the run ended budget_exceeded"
    assert driver.find_element("id", "replay-play").get_attribute("disabled") is not None
    in_view = driver.execute_script("const r = document.getElementById('replay').getBoundingClientRect();"
                                    "return r.top >= 0 && r.bottom <= window.innerHeight + 1;")  # +1: a fractional edge
    assert in_view  # opened where the reader is, not below the table
    seconds = [r[9] for r in shown_rows(driver)]
    assert all(s[-2:] in ("us", "ms") or s.endswith("s") for s in seconds) and all(len(s) <= 7 for s in seconds)


@pytest.fixture(scope="module")
def compared(tmp_path_factory):
    """A report comparing 150 8-puzzles solved in full with the same under a 200-node budget
    (over 200 changed pairs), and that comparison."""
    out = tmp_path_factory.mktemp("compared")
    spec = dict(size=3, count=150, seed=4, algorithms=("idastar",), heuristics=("manhattan", "linear-conflict"))
    full, tight = local_sweep(out, "full", **spec), local_sweep(out, "tight", max_nodes=200, **spec)
    return build_report([str(full), str(tight)], str(out / "compare.html"), with_compare=True)


def changes_shown(driver):
    return driver.execute_script("""
        return [...document.querySelectorAll('#compare-changes tbody tr')].map(
            (tr) => [...tr.children].map((td) => td.textContent));""")


def test_every_changed_pair_is_reachable_page_by_page(compared):
    require_chromium()
    changes = compared.comparison.changes
    assert len(changes) > 200
    with chromium_driver(1280, 1000) as driver:
        load(driver, compared.path)
        headers = [th.text.strip(" ▲▼") for th in driver.find_elements("css selector", "#compare-changes thead th")]
        assert headers == list(changes.columns)
        seen = []
        pages = -(-len(changes) // 100)
        for number in range(1, pages + 1):
            info = driver.find_element("id", "changes-info").text
            assert info == f"page {number} of {pages} · {len(changes):,} of {len(changes):,} rows"
            rows = changes_shown(driver)
            assert len(rows) == (100 if number < pages else len(changes) - 100 * (pages - 1))
            seen += rows
            driver.find_element("id", "changes-next").click()
        col = headers.index("instance")
        keys = sorted((r[headers.index("heuristic")], int(r[col])) for r in seen)
        assert keys == sorted(zip(changes["heuristic"], changes["instance"].astype(int)))
        box = driver.find_element("id", "changes-filter")
        box.send_keys("heuristic=linear-conflict")
        want = int((changes["heuristic"] == "linear-conflict").sum())
        assert f"{want:,} of {len(changes):,} rows" in driver.find_element("id", "changes-info").text
        driver.find_element("css selector", "#compare-changes th[data-col='nodes_generated_old']").click()
        driver.find_element("css selector", "#compare-changes th[data-col='nodes_generated_old']").click()
        top = changes_shown(driver)[0][headers.index("nodes_generated_old")]
        lc = changes[changes["heuristic"] == "linear-conflict"]
        assert top == f"{int(lc['nodes_generated_old'].max()):,}"
        driver.execute_script("document.getElementById('compare-section').scrollIntoView()")
        ARTIFACTS.mkdir(parents=True, exist_ok=True)
        driver.save_screenshot(str(ARTIFACTS / "compare-changes.png"))


# The most crowded place of one renderer's points (on screen, to the pixel) and how many share it.
CROWDED_JS = """
const [name, state] = arguments;
const view = [...Bokeh.index.all_views()].find((v) => v.model.type === "Figure" && v.model.name === name);
const glyph = view.views.find_one(view.model.renderers.find((r) => r.name === state)).glyph;
const box = view.canvas_view.primary.canvas.getBoundingClientRect();
const at = new Map();
for (let i = 0; i < glyph.sx.length; i++) {
  const key = `${Math.round(glyph.sx[i])},${Math.round(glyph.sy[i])}`;
  at.set(key, (at.get(key) || 0) + 1);
}
const [key, count] = [...at].sort((a, b) => b[1] - a[1])[0];
const [sx, sy] = key.split(",").map(Number);
return {x: box.left + sx, y: box.top + sy, count: count};
"""
# The text of every tooltip on screen (bokeh draws a tooltip per renderer, each in its own
# shadow root, stacking in it an entry per point hit).
TOOLTIPS_JS = """
const out = [];
(function walk(root) {
  for (const el of root.querySelectorAll("*")) {
    if (el.shadowRoot) walk(el.shadowRoot);
    if (el.classList.contains("bk-Tooltip") && getComputedStyle(el).display !== "none"
        && el.getBoundingClientRect().width > 0)
      out.push(el.shadowRoot.querySelector(".bk-tooltip-content").innerText);
  }
})(document);
return out;
"""


def test_a_hover_over_stacked_unsolved_points_shows_one_tooltip_with_their_count(page):
    driver, _ = page
    name = "scatter-nodes_generated-idastar linear-conflict"
    driver.execute_script("[...Bokeh.index.all_views()].find((v) => v.model.name === arguments[0])"
                          ".el.scrollIntoView({block: 'center'})", name)
    spot = driver.execute_script(CROWDED_JS, name, "neither solved")
    assert spot["count"] > 1, spot  # runs both configurations left unsolved share the corner
    hover = ActionBuilder(driver)
    hover.pointer_action.move_to_location(int(spot["x"]), int(spot["y"]))
    hover.perform()
    tips = wait_for(lambda: driver.execute_script(TOOLTIPS_JS), what="a tooltip")
    assert len(tips) == 1 and tips[0].count("instance:\t") == 1, tips  # one entry, not one per point
    lines = dict(line.split(":\t", 1) for line in tips[0].splitlines() if ":\t" in line)  # label:<tab>value
    assert int(lines["points here"]) >= spot["count"] and "neither solved" in tips[0]
    # each side says its status, not the budget it stopped at as if it were a value
    assert lines["idastar manhattan"] == lines["idastar linear-conflict"] == "not solved (budget_exceeded)", lines
    ARTIFACTS.mkdir(parents=True, exist_ok=True)
    driver.save_screenshot(str(ARTIFACTS / "report-hover.png"))


# Per section holding plots: its width, and the left and right edges its plots reach; per legend of
# the coverage and length plots, its box and the plot frame's (bokeh's own views).
LAYOUT_JS = """
const sections = {};
for (const div of document.querySelectorAll("[data-root-id]")) {
  const section = div.closest("section"), box = section.getBoundingClientRect();
  const plot = div.firstElementChild.getBoundingClientRect();
  const s = sections[section.id] ??= {width: section.clientWidth, left: box.left, reach: 0};
  s.reach = Math.max(s.reach, plot.right - box.left);
}
const legends = [];
for (const view of Bokeh.index.all_views()) {
  if (view.model.type !== "Figure" || !/^(coverage|by-length)/.test(view.model.name)) continue;
  const legend = view.views.find_one(view.model.right.find((m) => m.type === "Legend"));
  legends.push({name: view.model.name, frame: view.frame.bbox.x1, legend: legend.bbox.x0,
                items: view.model.right.find((m) => m.type === "Legend").items.length});
}
return {sections: sections, legends: legends, overflow: document.documentElement.scrollWidth - window.innerWidth};
"""


@pytest.fixture(scope="module")
def nine(tmp_path_factory):
    """A report of 9 configurations: A* and IDA* with four heuristics, and BFS, on 8-puzzles."""
    out = tmp_path_factory.mktemp("nine")
    folder = local_sweep(out, "nine", size=3, count=30, seed=9, algorithms=("astar", "idastar", "bfs"),
                         heuristics=("manhattan", "linear-conflict", "misplaced", "walking-distance"), max_nodes=3000)
    return build_report([str(folder)]).path


@pytest.mark.parametrize("width", [1280, 1920])
def test_plots_use_the_page_width_and_nine_legends_stay_outside_the_curves(nine, width):
    require_chromium()
    with chromium_driver(width, 1000) as driver:
        load(driver, nine)
        layout = driver.execute_script(LAYOUT_JS)
        assert layout["overflow"] <= 0, layout  # nothing wider than the window
        for section, s in layout["sections"].items():
            assert s["reach"] >= 0.97 * s["width"], (section, s)  # the plots reach the right edge
        assert {lg["name"] for lg in layout["legends"]} == {"by-length", "coverage-nodes_generated",
                                                            "coverage-seconds"}
        for lg in layout["legends"]:
            assert lg["items"] == 9 and lg["legend"] >= lg["frame"], lg  # beside the frame, not over it
        ARTIFACTS.mkdir(parents=True, exist_ok=True)
        for section in ("scatter-section", "curves-section", "length-section"):
            driver.execute_script("document.getElementById(arguments[0]).scrollIntoView()", section)
            driver.save_screenshot(str(ARTIFACTS / f"nine-{section}-{width}.png"))


@pytest.mark.parametrize("start, end, ticks", [
    (60, 3500, [100, 200, 500, 1000, 2000]),  # under two decades bokeh's own ticks go linear: 500, 1k, ..., 3.5k
    (2e-6, 2e-3, [1e-5, 1e-4, 1e-3]),
    (1.4e5, 1.4e7, [2e5, 5e5, 1e6, 2e6, 5e6, 1e7]),  # Korf's 100 under a 0.5 s limit: two decades
    (1.7e6, 3.9e6, [2e6, 3e6]),
    (250, 1800, [300, 500, 1000]),
    (2.01e6, 2.07e6, [2.02e6, 2.04e6, 2.06e6]),  # a sliver of a decade: linear
    (1, 1e12, [1, 1e2, 1e4, 1e6, 1e8, 1e10, 1e12]),
])
def test_log_axis_ticks_are_round_and_few(page, start, end, ticks):
    """The log axes' tick places, as the browser computes them: round multiples of powers of ten,
    spread over the range, so labels neither crowd one end nor leave the other bare."""
    from tilesweep.jobs.report.plots import LOG_TICKS
    driver, _ = page
    got = driver.execute_script(f"return (function (cb_data) {{ {LOG_TICKS} }})(arguments[0]);",
                                {"start": start, "end": end})
    assert got == pytest.approx(ticks, rel=1e-9)


# The right edges of the published section's tables and of the page, against the window's width.
PUBLISHED_JS = """
const section = document.getElementById("published-section");
section.scrollIntoView();
const tables = [...section.querySelectorAll("table")].map((t) => ({id: t.id, right: t.getBoundingClientRect().right}));
return {tables: tables, window: window.innerWidth, section: section.scrollWidth - section.clientWidth,
        page: document.documentElement.scrollWidth - window.innerWidth};
"""


@pytest.fixture(scope="module")
def korf_report(tmp_path_factory):
    """Korf's 100 under a node budget, IDA* with Manhattan and linear conflict: the published section."""
    out = tmp_path_factory.mktemp("korf")
    folder = local_sweep(out, "korf", instances="korf100", algorithms=("idastar",),
                         heuristics=("manhattan", "linear-conflict"), max_nodes=300_000, chunk_size=50)
    return build_report([str(folder)]).path


@pytest.mark.parametrize("width", [1280, 1920])
def test_published_figures_are_in_view_without_scrolling_sideways(korf_report, width):
    require_chromium()
    with chromium_driver(width, 1000) as driver:
        load(driver, korf_report)
        layout = driver.execute_script(PUBLISHED_JS)
        assert {t["id"] for t in layout["tables"]} == {"published-agreement", "published-runs"}
        assert all(t["right"] <= layout["window"] for t in layout["tables"]), layout
        assert layout["section"] <= 0 and layout["page"] <= 0, layout
        headers = [th.text.replace("\n", "") for th in driver.find_elements("css selector", "#published-runs th")]
        assert headers[:10] == ["instance", "board", "configuration", "status", "published length", "length",
                                "length diff", "published nodes", "nodes", "nodes diff"]
        rows = driver.find_elements("css selector", "#published-runs tbody tr")
        assert len(rows) == 200
        ARTIFACTS.mkdir(parents=True, exist_ok=True)
        driver.save_screenshot(str(ARTIFACTS / f"published-{width}.png"))
        driver.execute_script("document.getElementById('coverage-section').scrollIntoView()")
        driver.save_screenshot(str(ARTIFACTS / f"korf-coverage-{width}.png"))
        driver.execute_script("document.getElementById('length-section').scrollIntoView()")
        driver.save_screenshot(str(ARTIFACTS / f"korf-by-length-{width}.png"))
        driver.execute_script("document.getElementById('iterations-section').scrollIntoView()")
        title = driver.execute_script("return [...Bokeh.index.all_views()].find((v) => v.model.name === "
                                      "'iterations').model.title.text")
        assert title.startswith("IDA*: nodes generated per iteration: instance korf:")
        driver.save_screenshot(str(ARTIFACTS / f"korf-iterations-{width}.png"))
