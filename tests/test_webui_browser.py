"""``tilesweep ui`` in a real browser: headless Chromium (Debian's chromium and chromium-driver,
installed by .ci/install) driven by Selenium against a server on a free loopback port.
Screenshots of every page go to ``test-artifacts/webui/``."""

import json
import shutil
import subprocess
import sys
import time

import pytest

from browser import require_chromium
from polling import wait_for
from sweeps_local import local_sweep
from tilesweep.jobs.report.export import chromium_driver
from tilesweep.solver import Board
from webui_server import ARTIFACTS, ENV, ROOT, Server, running_sweep

pytestmark = pytest.mark.browser

SEED = "7 6 2 8 5 3 0 1 4"


@pytest.fixture(scope="module")
def server(tmp_path_factory):
    root = tmp_path_factory.mktemp("ui")
    local_sweep(root / "sweeps", "compare", size=3, count=40, seed=3, algorithms=("astar", "idastar"),
                heuristics=("manhattan", "linear-conflict"), chunk_size=10)
    srv = Server(root / "sweeps", root / "store")
    srv.root = root
    yield srv
    srv.stop()


@pytest.fixture(scope="module")
def browser():
    require_chromium()
    with chromium_driver(1280, 1100, logs=("browser",)) as driver:
        driver.implicitly_wait(0)
        yield driver


def css(driver, selector):
    return driver.find_elements("css selector", selector)


def screenshot(driver, name):
    ARTIFACTS.mkdir(parents=True, exist_ok=True)
    driver.execute_script("window.scrollTo(0, 0)")
    driver.save_screenshot(str(ARTIFACTS / f"{name}.png"))


def open_play(driver, server, size="3", goal="blank-last"):
    from selenium.webdriver.support.ui import Select
    driver.get(server.url + "/")
    wait_for(lambda: driver.execute_script("return document.body.dataset.ready"), what="the play page")
    if goal != "blank-last":
        Select(driver.find_element("id", "goal")).select_by_value(goal)
    if size != "3":
        Select(driver.find_element("id", "size")).select_by_value(size)
    wait_for(lambda: board_tiles(driver) == Board.goal(int(size), goal).tiles, what="the goal board")


def data_of(driver, selector, key):
    """The ``data-<key>`` of the first element matching ``selector``, read in one script call: the
    pages redraw as they poll, so a reference kept between two calls can go stale."""
    return driver.execute_script(
        "const e = document.querySelector(arguments[0]); return e ? e.dataset[arguments[1]] : null;",
        selector, key)


def board_tiles(driver, selector="#board"):
    text = driver.find_element("css selector", selector).get_attribute("data-tiles")
    return tuple(int(t) for t in text.split()) if text else None


def set_board(driver, tiles):
    field = driver.find_element("id", "tiles-input")
    field.clear()
    field.send_keys(tiles)
    driver.find_element("id", "set-board").click()
    wait_for(lambda: board_tiles(driver) == tuple(map(int, tiles.split())), what=f"board {tiles}")
    wait_for(lambda: driver.find_element("id", "board-status").text, what="the solvability line")


def solve(driver, algorithm, heuristic="manhattan"):
    """Start a solve; return its card once finished."""
    from selenium.webdriver.support.ui import Select
    Select(driver.find_element("id", "algorithm")).select_by_value(algorithm)
    if algorithm in ("astar", "idastar"):
        Select(driver.find_element("id", "heuristic")).select_by_value(heuristic)
    before = len(css(driver, ".card"))
    driver.find_element("id", "solve").click()
    wait_for(lambda: len(css(driver, ".card")) == before + 1, what="a new card")
    card = css(driver, ".card")[0]  # newest first
    # A first plugin solve compiles its kernel in the server: minutes on a loaded 2-core machine
    wait_for(lambda: card.get_attribute("data-status"), 600, what=f"{algorithm} to finish")
    return card


def figure(card, key):
    return card.find_element("css selector", f".r-{key}").text


def test_clicks_and_arrow_keys_move_the_blank_by_the_rules(server, browser):
    from selenium.webdriver.common.keys import Keys
    open_play(browser, server)
    expected = Board.goal(3)  # blank in the bottom-right cell
    cells = css(browser, "#board .tile")
    cells[0].click()  # far from the blank: nothing moves
    assert board_tiles(browser) == expected.tiles
    css(browser, "#board .tile")[4].click()  # diagonal to the blank: nothing moves
    assert board_tiles(browser) == expected.tiles
    css(browser, "#board .tile")[5].click()  # above the blank: the blank moves up
    expected = expected.apply("U")
    assert board_tiles(browser) == expected.tiles
    css(browser, "#board .tile")[3].click()  # two cells to the left: nothing moves
    assert board_tiles(browser) == expected.tiles
    body = browser.find_element("tag name", "body")
    for key, letter in [(Keys.ARROW_LEFT, "L"), (Keys.ARROW_LEFT, "L"), (Keys.ARROW_LEFT, None),
                        (Keys.ARROW_UP, "U"), (Keys.ARROW_UP, None), (Keys.ARROW_RIGHT, "R"),
                        (Keys.ARROW_DOWN, "D"), (Keys.ARROW_DOWN, "D"), (Keys.ARROW_DOWN, None)]:
        body.send_keys(key)
        if letter:  # None: the blank is at the edge, the key does nothing
            expected = expected.apply(letter)
        assert board_tiles(browser) == expected.tiles, key
    assert browser.find_element("id", "move-log").text == "ULLURDD"
    screenshot(browser, "play-moves")


def test_seed_case_a_star_bfs_and_dfs(server, browser):
    open_play(browser, server, goal="blank-first")
    set_board(browser, SEED)
    goal = Board.goal(3, "blank-first").tiles
    card = solve(browser, "astar", "manhattan")
    assert card.get_attribute("data-status") == "solved" and figure(card, "cost") == "22"
    speed = card.find_element("css selector", ".speed")
    browser.execute_script("arguments[0].value = arguments[0].max; "
                           "arguments[0].dispatchEvent(new Event('input'))", speed)  # fastest
    card.find_element("css selector", "button.play").click()
    wait_for(lambda: card.find_element("css selector", ".counter").text == "22 / 22", 60, "the animation")
    assert board_tiles(card, ".board.small") == goal
    bfs = solve(browser, "bfs")
    assert bfs.get_attribute("data-status") == "solved" and figure(bfs, "cost") == "22"
    dfs = solve(browser, "dfs")
    assert dfs.get_attribute("data-status") == "solved" and int(figure(dfs, "cost").replace(",", "")) > 22
    dfs.find_element("css selector", "button.end").click()
    moves = len(dfs.find_element("css selector", ".moves").text)
    assert dfs.find_element("css selector", ".counter").text == f"{moves} / {moves}"
    assert board_tiles(dfs, ".board.small") == goal
    screenshot(browser, "play-solves")


def test_unsolvable_board_is_said_before_any_search(server, browser):
    open_play(browser, server)
    set_board(browser, "1 3 2 4 5 6 7 8 0")
    assert browser.find_element("id", "board-status").text == "Unsolvable."
    assert "odd permutation" in browser.find_element("id", "board-reason").text
    card = solve(browser, "astar")
    assert card.get_attribute("data-status") == "unsolvable" and "no search was run" in card.text
    assert "odd permutation" in card.find_element("css selector", ".reason").text
    requests = browser.execute_script(
        "return performance.getEntriesByType('resource').map(e => e.name).filter(n => n.includes('/api/solve'))")
    assert requests == []
    screenshot(browser, "play-unsolvable")


def test_korf_79_with_idastar_manhattan(server, browser, korf100):
    open_play(browser, server, size="4", goal="blank-first")
    set_board(browser, " ".join(map(str, korf100[79])))
    card = solve(browser, "idastar", "manhattan")
    assert figure(card, "cost") == "42" and figure(card, "generated") == "540,860"
    assert card.find_elements("css selector", ".iterations tr")  # the IDA* iteration table
    note_needed = css(browser, "#heuristic option[value='pdb:7-8']")[0]
    assert "not built" in note_needed.text
    screenshot(browser, "play-korf79")


def test_a_bad_sweep_json_is_one_row_and_the_other_sweeps_stay_listed(server, browser):
    broken = server.root / "sweeps" / "broken"
    shutil.copytree(server.root / "sweeps" / "compare", broken)
    text = (broken / "sweep.json").read_text()
    (broken / "sweep.json").write_text(text[: len(text) // 2])
    try:
        browser.get(server.url + "/sweeps")
        row = wait_for(lambda: css(browser, "#sweeps tr.damaged[data-name='broken']"), what="the bad sweep's row")[0]
        assert "is not a tilesweep spec" in row.text and str(broken / "sweep.json") in row.text
        assert row.find_element("css selector", ".badge").get_attribute("data-run") == "damaged"
        good = css(browser, "#sweeps tr[data-name='compare']")[0]
        assert "160 / 160" in good.text and good.find_element("css selector", ".badge").get_attribute(
            "data-run") == "finished"
        assert browser.find_element("id", "error").text == ""
        screenshot(browser, "sweeps-one-damaged")
    finally:
        shutil.rmtree(broken)


def test_sweeps_page_matches_tilesweep_summary(server, browser):
    browser.get(server.url + "/sweeps")
    row = wait_for(lambda: css(browser, "#sweeps tr[data-name='compare']"), what="the sweep's row")[0]
    assert row.get_attribute("data-parts") == "4" and "160 / 160" in row.text and "solved 160" in row.text
    assert row.find_element("css selector", ".badge").get_attribute("data-run") == "finished"
    screenshot(browser, "sweeps")
    row.find_element("tag name", "a").click()
    wait_for(lambda: css(browser, "#summary td[data-column]"), what="the summary table")
    folder = server.root / "sweeps" / "compare"
    cli = subprocess.run([sys.executable, str(ROOT / "cli.py"), "summary", str(folder), "--format", "json"],
                         cwd=ROOT, env=ENV, capture_output=True, text=True, timeout=300, check=True)
    expected = json.loads(cli.stdout)
    rows = css(browser, "#summary tbody tr")
    assert len(rows) == len(expected) == 4
    for tr, want in zip(rows, expected, strict=True):
        cells = {td.get_attribute("data-column"): td.get_attribute("data-value")
                 for td in tr.find_elements("css selector", "td")}
        assert set(cells) == set(want)
        for column, value in want.items():
            if isinstance(value, str):
                assert cells[column] == value
            elif value is None:
                assert cells[column] == ""
            else:
                assert float(cells[column]) == pytest.approx(value, rel=1e-12), column
    assert css(browser, "#download") and not css(browser, "#report")
    screenshot(browser, "sweep")


def test_running_sweep_shows_rising_progress(server, browser):
    with running_sweep(server.root / "sweeps", "running"):
        browser.get(server.url + "/sweeps/running")
        seen = []

        def parts():
            text = data_of(browser, "#progress-text", "parts")
            if text is not None and (not seen or int(text) != seen[-1]):
                seen.append(int(text))
            return len([p for p in seen if 0 < p < 20]) >= 2

        wait_for(parts, 300, "two progress readings")
        assert seen == sorted(seen) and len(set(seen)) == len(seen)
        assert data_of(browser, "#badge .badge", "run") == "running"
        screenshot(browser, "sweep-running")
    # Stopped as by Ctrl-C: the page says so, with the command that resumes it
    wait_for(lambda: data_of(browser, "#badge .badge", "run") == "interrupted", 60,
             "the interrupted state")
    resume = browser.find_element("id", "resume")
    assert resume.is_displayed() and "--name running" in resume.text and "sweep" in resume.text
    screenshot(browser, "sweep-interrupted")


def test_cancel_ends_a_slow_solve(server, browser, korf100):
    open_play(browser, server, size="4", goal="blank-first")
    set_board(browser, " ".join(map(str, korf100[1])))
    from selenium.webdriver.support.ui import Select
    Select(browser.find_element("id", "algorithm")).select_by_value("astar")
    Select(browser.find_element("id", "heuristic")).select_by_value("misplaced")
    browser.find_element("id", "solve").click()
    card = wait_for(lambda: css(browser, ".card.running"), what="a running card")[0]
    time.sleep(1)
    card.find_element("css selector", "button.cancel").click()
    wait_for(lambda: card.get_attribute("data-status") == "cancelled", 30, "the cancel")
    assert "cancelled after" in card.text
    wait_for(lambda: any("solve cancelled" in line for line in server.stderr), 30, "the server's cancel")
    set_board(browser, " ".join(map(str, korf100[79])))
    again = solve(browser, "idastar", "manhattan")  # the server goes on solving
    assert figure(again, "cost") == "42"
    screenshot(browser, "play-cancelled")


def test_shuffles_and_reset(server, browser):
    open_play(browser, server, size="4", goal="blank-first")
    goal = Board.goal(4, "blank-first")
    walk = browser.find_element("id", "walk-k")
    walk.clear()
    walk.send_keys("1")
    browser.find_element("id", "walk").click()
    one = wait_for(lambda: board_tiles(browser) != goal.tiles and board_tiles(browser), what="a walk of 1")
    assert any(goal.apply(m).tiles == one for m in "RD")  # the blank starts in the top-left corner
    browser.find_element("id", "shuffle").click()
    wait_for(lambda: board_tiles(browser) not in (one, goal.tiles), what="a uniform shuffle")
    wait_for(lambda: browser.find_element("id", "board-status").text == "Solvable.", what="its check")
    browser.find_element("id", "reset").click()
    wait_for(lambda: board_tiles(browser) == goal.tiles, what="the reset")


def test_the_card_says_when_the_budget_stopped_a_search(server, browser, korf100):
    open_play(browser, server, size="4", goal="blank-first")
    set_board(browser, " ".join(map(str, korf100[1])))
    browser.find_element("id", "max-nodes").send_keys("1000")
    card = solve(browser, "idastar", "manhattan")
    assert card.get_attribute("data-status") == "budget_exceeded"
    assert "stopped by the node budget (1,000 nodes)" in card.text
    browser.find_element("id", "max-nodes").clear()


def failed_requests(driver) -> list[str]:
    """The console's errors since the last call (a refused request logs one: "... 400 (Bad Request)")."""
    return [e["message"] for e in driver.get_log("browser") if e["level"] == "SEVERE"]


def test_a_size_switch_asks_for_no_board_of_the_old_size(server, browser):
    open_play(browser, server)
    wait_for(lambda: browser.find_element("id", "board-h").text, what="h of the 3x3 goal")
    failed_requests(browser)  # drain
    open_play(browser, server, size="4")  # the page's own select: options first, then the new board
    wait_for(lambda: browser.find_element("id", "board-h").text.startswith("h (manhattan) = 0"), what="h of 4x4")
    assert failed_requests(browser) == []  # no /api/board of 9 tiles and size 4 (was a 400 on every switch)


def test_bfs_and_dfs_cards_show_no_heuristic_value(server, browser):
    open_play(browser, server)
    set_board(browser, "1 2 3 4 5 6 0 7 8")
    informed = solve(browser, "astar", "linear-conflict")
    assert figure(informed, "h0") == "2"
    for algorithm in ("bfs", "dfs"):  # the heuristic select is greyed out: its h0 is no figure of the search
        card = solve(browser, algorithm)
        assert card.get_attribute("data-status") == "solved" and not card.find_elements("css selector", ".r-h0")
        assert "h0" not in card.find_element("css selector", "table.figures").text


def test_a_one_number_board_is_named_in_the_singular(server, browser):
    open_play(browser, server)
    field = browser.find_element("id", "tiles-input")
    field.clear()
    field.send_keys("5")
    browser.find_element("id", "set-board").click()
    wait_for(lambda: browser.find_element("id", "board-error").text, what="the refusal")
    assert "'5' has 1 number; expected" in browser.find_element("id", "board-error").text


def test_a_cpu_time_limit_of_0_names_the_servers_cap(server, browser):
    open_play(browser, server)
    cap = browser.find_element("id", "time-limit").get_attribute("max")
    assert f"{cap} s per solve" in browser.find_element("id", "caps").text
    field = browser.find_element("id", "cpu-time-limit")
    field.send_keys("0")
    before = len(css(browser, ".card"))
    browser.find_element("id", "solve").click()
    wait_for(lambda: len(css(browser, ".card")) == before + 1, what="a new card")
    wait_for(lambda: css(browser, ".card")[0].get_attribute("data-status"), what="the refusal on the card")
    text = css(browser, ".card")[0].text
    field.clear()
    assert f"cpu-time-limit 0 is not a number of seconds; expected a number > 0 and at most {cap} " in text
    assert "years" not in text and "1,000,000,000" not in text


def test_a_cpu_time_limit_from_the_form_stops_a_search_on_the_cpu_clock(server, browser, korf100):
    open_play(browser, server, size="4", goal="blank-first")
    set_board(browser, " ".join(map(str, korf100[1])))
    field = browser.find_element("id", "cpu-time-limit")
    assert field.get_attribute("max") == browser.find_element("id", "time-limit").get_attribute("max")
    assert "A CPU time limit" in browser.find_element("id", "caps").text
    field.send_keys("0.05")  # about 7 M nodes, under the server's 20 M node cap
    card = solve(browser, "idastar", "manhattan")
    assert card.get_attribute("data-status") == "timeout", card.text
    assert "stopped by the CPU time limit (0.05 s of CPU)" in card.text
    screenshot(browser, "play-cpu-time-limit")
    browser.find_element("id", "time-limit").send_keys("1")  # both limits: the server's one line
    before = len(css(browser, ".card"))
    browser.find_element("id", "solve").click()
    wait_for(lambda: len(css(browser, ".card")) == before + 1, what="a new card")
    wait_for(lambda: "are both given" in css(browser, ".card")[0].text, what="the refusal on the card")
    assert "time-limit 1 and cpu-time-limit 0.05 are both given" in css(browser, ".card")[0].text
    field.clear()
    browser.find_element("id", "time-limit").clear()


ATTACK = """<!doctype html><title>another site</title><body><script>
const ui = "{ui}", body = JSON.stringify({{tiles: "1 2 3 4 5 6 7 0 8", algorithm: "astar"}});
async function attempt(path, options) {{
  try {{ const answer = await fetch(ui + path, options); return `${{answer.type}} ${{answer.status}}`; }}
  catch (error) {{ return `blocked: ${{error.name}}`; }}
}}
(async () => {{
  const results = {{
    plain: await attempt("/api/solve", {{method: "POST", mode: "no-cors",
                                        headers: {{"Content-Type": "text/plain"}}, body}}),
    json: await attempt("/api/solve", {{method: "POST", body,
                                       headers: {{"Content-Type": "application/json", "X-Tilesweep-Page": "1"}}}}),
    read: await attempt("/api/sweeps", {{}}),
  }};
  document.body.dataset.results = JSON.stringify(results);
}})();
</script></body>"""


@pytest.fixture
def another_site(tmp_path):
    """A page of another origin, served on another loopback port (reached as evil.example)."""
    import functools
    import http.server
    import threading

    site = http.server.ThreadingHTTPServer(("127.0.0.1", 0), functools.partial(
        http.server.SimpleHTTPRequestHandler, directory=str(tmp_path)))
    threading.Thread(target=site.serve_forever, daemon=True).start()
    yield tmp_path, site.server_address[1]
    site.shutdown()


def test_another_sites_page_cannot_drive_the_ui(tmp_path, another_site):
    """In Chromium, with evil.example resolving to 127.0.0.1: another site's page posting to the
    UI is refused (a plain POST by its Origin; a JSON one never leaves the browser, since its
    preflight is refused), cannot read the UI's JSON, and a DNS-rebinding page (evil.example
    at the UI's own port) gets only the Host refusal."""
    require_chromium()
    folder, site_port = another_site
    srv = Server(tmp_path / "sweeps", tmp_path / "store")
    ui_port = srv.url.rsplit(":", 1)[1]
    (folder / "attack.html").write_text(ATTACK.format(ui=srv.url))
    try:
        with chromium_driver(1000, 700, args=("--host-resolver-rules=MAP evil.example 127.0.0.1",)) as driver:
            driver.get(f"http://evil.example:{site_port}/attack.html")
            results = json.loads(wait_for(lambda: driver.execute_script("return document.body.dataset.results"),
                                          what="the other site's attempts"))
            assert results == {"plain": "opaque 0", "json": "blocked: TypeError", "read": "blocked: TypeError"}
            driver.get(f"http://evil.example:{ui_port}/api/sweeps")
            text = driver.find_element("tag name", "body").text
            assert text.startswith(f"error: Host 'evil.example:{ui_port}' is not this server's name")
            screenshot(driver, "rebinding-refused")
        refused = [line for line in srv.stderr if f"Origin 'http://evil.example:{site_port}'" in line]
        # the plain one; the JSON one never came
        assert len([line for line in refused if "POST /api/solve" in line]) == 1
        assert len([line for line in refused if "OPTIONS /api/solve" in line]) == 1  # its preflight
    finally:
        srv.stop()


def test_a_plugin_heuristic_from_the_select_and_inside_a_typed_max(tmp_path, browser):
    """``tilesweep ui --plugin FILE``: its heuristics in the select, a typed ``max(...)`` with one,
    and the card's heuristic version (the sha256 of the plugin's source)."""
    from tilesweep.solver import solve as solve_board
    from tilesweep.solver.plugins import source_sha256
    plugin = ROOT / "examples" / "heuristics" / "line_conflicts.py"
    srv = Server(tmp_path / "sweeps", tmp_path / "store", "--plugin", str(plugin))
    try:
        open_play(browser, srv, goal="blank-first")
        set_board(browser, SEED)
        assert "plugin:line-conflicts" in [o.get_attribute("value") for o in css(browser, "#heuristic option")]
        card = solve(browser, "idastar", "plugin:line-conflicts")
        assert card.get_attribute("data-heuristic") == "plugin:line-conflicts"
        assert card.get_attribute("data-status") == "solved" and figure(card, "cost") == "22"
        assert figure(card, "heuristic-version") == source_sha256(plugin.read_text())[:12]
        builtin = solve(browser, "idastar", "manhattan")
        assert int(figure(card, "generated").replace(",", "")) < int(figure(builtin, "generated").replace(",", ""))
        assert not builtin.find_elements("css selector", ".r-heuristic-version")
        # linear-conflict is never below line-conflicts: the max searches as linear-conflict does
        typed = "max(plugin:line-conflicts,linear-conflict)"
        browser.find_element("id", "heuristic-text").send_keys(typed)
        most = solve(browser, "astar", "manhattan")  # the typed name wins over the select
        expected = solve_board(Board.parse(SEED), "blank-first", "astar", "linear-conflict")
        assert most.get_attribute("data-heuristic") == typed and figure(most, "cost") == "22"
        assert figure(most, "generated") == f"{expected.nodes_generated:,}"
        screenshot(browser, "play-plugin")
    finally:
        srv.stop()
