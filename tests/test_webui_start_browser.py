"""``tilesweep ui`` in Chromium from its start: the kernels' warm-up said on the page, a queued
solve, the server's caps and budgets typed in, h and f along a replay and h on the board, DFS
marked not optimal, the favicon, the baseline columns in view, a running sweep's dashboard.
One server (one solver, so a second solve queues) and one browser for the module;
screenshots go to ``test-artifacts/webui/``."""

import json
from contextlib import ExitStack

import pytest

from browser import require_chromium
from polling import wait_for
from sweeps_local import local_sweep
from test_webui_browser import board_tiles, css, figure, open_play, screenshot, set_board
from tilesweep.jobs.kernels import compile_lock
from tilesweep.jobs.report.export import chromium_driver
from tilesweep.solver import Board, solve
from webui_server import Server, running_sweep

pytestmark = pytest.mark.browser

BOARD = "7 6 2 8 5 3 0 1 4"  # blank-last: cost 24
KORF_1 = "14 13 15 7 11 12 9 5 6 0 2 1 4 8 10 3"


@pytest.fixture(scope="module")
def server(tmp_path_factory):
    """Started while this process holds the machine's compile lock, so its warm-up waits (as
    it would while compiling) until :func:`release` lets it load the kernels."""
    root = tmp_path_factory.mktemp("ui-start")
    local_sweep(root / "sweeps", "pair", size=3, count=6, seed=5, algorithms=("astar",),
                heuristics=("manhattan", "misplaced"), chunk_size=3)
    held = ExitStack()
    held.enter_context(compile_lock())
    srv = Server(root / "sweeps", root / "store", "--solvers", "1")
    srv.root, srv.held = root, held
    yield srv
    held.close()
    srv.stop()


def release(server):
    server.held.close()


@pytest.fixture(scope="module")
def browser():
    require_chromium()
    with chromium_driver(1280, 1100, logs=("browser",)) as driver:
        driver.implicitly_wait(0)
        yield driver


def choose(driver, algorithm, heuristic="manhattan"):
    from selenium.webdriver.support.ui import Select
    Select(driver.find_element("id", "algorithm")).select_by_value(algorithm)
    if algorithm in ("astar", "idastar"):
        Select(driver.find_element("id", "heuristic")).select_by_value(heuristic)


def start_solve(driver, algorithm, heuristic="manhattan"):
    """Click Solve; the new card (newest first), not waiting for its end."""
    choose(driver, algorithm, heuristic)
    before = len(css(driver, ".card"))
    driver.find_element("id", "solve").click()
    wait_for(lambda: len(css(driver, ".card")) == before + 1, what="a new card")
    return css(driver, ".card")[0]


def finished(card, timeout=300):
    wait_for(lambda: card.get_attribute("data-status"), timeout, "the solve's end")
    return card


def type_into(driver, field, text):
    box = driver.find_element("id", field)
    box.clear()
    if text:
        box.send_keys(text)


def test_the_page_says_warming_up_and_a_solve_waits_for_the_kernels(server, browser):
    open_play(browser, server)
    line = browser.find_element("id", "server-state")
    assert line.get_attribute("data-ready") == "false" and "Warming up" in line.text
    set_board(browser, BOARD)
    card = start_solve(browser, "astar")
    wait_for(lambda: card.get_attribute("data-state") == "warming", what="the card's warming state")
    assert "waiting for the kernels to compile" in card.text
    screenshot(browser, "start-warming")
    cancelled = start_solve(browser, "idastar")  # cancelled while it waits: the first one goes on
    wait_for(lambda: cancelled.get_attribute("data-state") == "warming", what="the second card waiting")
    cancelled.find_element("css selector", "button.cancel").click()
    wait_for(lambda: cancelled.get_attribute("data-status") == "cancelled", what="the cancel")
    release(server)
    finished(card)
    assert card.get_attribute("data-status") == "solved" and figure(card, "cost") == "24"
    wait_for(lambda: line.get_attribute("data-ready") == "true", what="the page's ready state")
    assert not line.text
    assert any("kernels ready" in entry for entry in server.stderr)


def test_a_solve_behind_a_busy_solver_is_queued(server, browser):
    release(server)
    open_play(browser, server, size="4", goal="blank-first")
    set_board(browser, KORF_1)
    type_into(browser, "time-limit", "3")
    slow = start_solve(browser, "bfs")
    wait_for(lambda: slow.get_attribute("data-state") == "solving", what="the first solve running")
    second = start_solve(browser, "bfs")
    wait_for(lambda: second.get_attribute("data-state") == "queued", what="the second solve queued")
    assert "queued: 0 waiting ahead, all 1 solvers busy" in second.text
    screenshot(browser, "start-queued")
    for card in (finished(slow), finished(second)):
        assert card.get_attribute("data-status") == "timeout" and "stopped by the time limit (3 s)" in card.text
    type_into(browser, "time-limit", "")


def test_caps_are_stated_and_lower_budgets_typed_in(server, browser):
    release(server)
    open_play(browser, server)
    caps = browser.find_element("id", "caps").text
    assert "20,000,000 nodes" in caps and "300 s per solve" in caps
    set_board(browser, BOARD)
    type_into(browser, "max-nodes", "100")
    budget = finished(start_solve(browser, "astar"))
    assert budget.get_attribute("data-status") == "budget_exceeded"
    assert "stopped by the node budget (100 nodes); the node budget above may go up to 20,000,000" in budget.text
    type_into(browser, "max-nodes", "30000000")
    above = finished(start_solve(browser, "astar"))
    assert above.get_attribute("data-status") == "error" and "above this server's budget" in above.text
    type_into(browser, "max-nodes", "")
    type_into(browser, "time-limit", "0.0001")
    tiny = finished(start_solve(browser, "bfs"))  # ~0.3 s of search
    assert tiny.get_attribute("data-status") == "timeout" and "stopped by the time limit (0.0001 s)" in tiny.text
    type_into(browser, "time-limit", "")
    screenshot(browser, "start-budgets")


def test_h_on_the_board_and_g_h_f_along_the_replay(server, browser):
    release(server)
    open_play(browser, server)
    set_board(browser, BOARD)
    goal = Board.goal(3).tiles
    h0 = solve(Board.parse(BOARD), goal, "astar", "linear-conflict").h0
    choose(browser, "astar", "linear-conflict")
    line = browser.find_element("id", "board-h")
    # Manhattan's h of BOARD is the same number: wait for the heuristic's name too
    wait_for(lambda: line.get_attribute("data-h") == str(h0) and line.text == f"h (linear-conflict) = {h0}",
             what="the board's h")
    css(browser, "#board .tile")[3].click()  # the tile above the blank (cell 6): the blank moves up
    moved = board_tiles(browser)
    assert moved == Board.parse(BOARD).apply("U").tiles
    h1 = solve(Board(moved, 3), goal, "astar", "linear-conflict").h0
    wait_for(lambda: line.get_attribute("data-h") == str(h1), what="h after a move")
    set_board(browser, BOARD)
    card = finished(start_solve(browser, "astar", "linear-conflict"))
    step = card.find_element("css selector", ".step-h")
    assert step.text == f"g = 0 · h = {h0} · f = {h0} (linear-conflict)"
    card.find_element("css selector", "button.forward").click()
    first = card.find_element("css selector", ".solution").text[0]
    after_one = solve(Board.parse(BOARD).apply(first), goal, "astar", "linear-conflict").h0
    assert step.text == f"g = 1 · h = {after_one} · f = {1 + after_one} (linear-conflict)"
    card.find_element("css selector", "button.end").click()
    assert step.text == "g = 24 · h = 0 · f = 24 (linear-conflict)"
    screenshot(browser, "start-h-f")


def test_dfs_is_marked_not_optimal(server, browser):
    release(server)
    open_play(browser, server)
    set_board(browser, BOARD)
    dfs = finished(start_solve(browser, "dfs"))
    assert dfs.get_attribute("data-status") == "solved" and int(figure(dfs, "cost").replace(",", "")) > 24
    assert "not optimal" in dfs.find_element("css selector", "h3").text
    assert "not optimal (DFS returns the first path it finds, not a shortest)" in dfs.text
    bfs = finished(start_solve(browser, "bfs"))
    assert figure(bfs, "cost") == "24" and "not optimal" not in bfs.text
    screenshot(browser, "start-dfs")


def test_the_favicon_is_served(server, browser):
    release(server)
    open_play(browser, server)
    answer = browser.execute_async_script(
        "const done = arguments[0]; const href = document.querySelector('link[rel=icon]').href;"
        "fetch(href).then(r => done([new URL(href).pathname, r.status, r.headers.get('Content-Type')]))")
    assert answer == ["/favicon.ico", 200, "image/vnd.microsoft.icon"]
    assert not [e for e in browser.get_log("browser") if "favicon" in e["message"]]


def test_baseline_columns_come_into_view(server, browser):
    release(server)
    from selenium.webdriver.support.ui import Select
    browser.get(server.url + "/sweeps/pair")
    wait_for(lambda: css(browser, "#summary td[data-column]"), what="the summary table")
    Select(browser.find_element("id", "baseline")).select_by_value("manhattan")
    wait_for(lambda: css(browser, "#summary th.baseline"), what="the baseline columns")
    width = browser.execute_script("return window.innerWidth")
    headers = css(browser, "#summary th.baseline")
    assert [h.text for h in headers] == ["nodes_ratio", "nodes_ratio_low", "nodes_ratio_high", "p_value",
                                         "node_reduction_pct", "paired", "fewer", "equal", "more"]
    for header in headers:
        assert header.rect["x"] + header.rect["width"] <= width, header.text
    screenshot(browser, "start-baseline")


def test_a_running_sweep_links_its_dask_dashboard(server, browser):
    release(server)  # the sweep warms its kernels under the same lock
    out = server.root / "sweeps"
    with running_sweep(out, "live"):
        browser.get(server.url + "/sweeps/live")
        link = wait_for(lambda: css(browser, "#dashboard"), 300, "the dashboard link")[0]
        href = link.get_attribute("href")
        assert href == json.loads((out / "live" / ".lock").read_text())["dashboard"]
        assert href.startswith("http://127.0.0.1:")
        screenshot(browser, "start-dashboard")
    browser.refresh()
    wait_for(lambda: browser.execute_script("return document.body.dataset.ready"), what="the page")
    wait_for(lambda: not css(browser, "#dashboard"), what="the link gone with the run")
