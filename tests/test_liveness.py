"""A sweep's run is the process its records name, never a later holder of that pid: ``status``
does not call a dead sweep running and ``cancel`` signals nothing but the sweep's own client;
deleting the lock file does not let a second run start beside the first; a dashboard address
noted in the lock file is shown and linked only when it is http(s) on loopback.

Every process here is real: the sweeps' runs are processes that take the sweep's lock
(``prepare``, as ``tilesweep sweep`` does) and record themselves as its client; an unrelated
``sleep`` stands for the process the kernel later gives a dead client's pid, written into
that client's records as pid reuse leaves them.
"""

import json
import re
import subprocess
import sys

import pytest

from browser import require_chromium
from polling import wait_for
from program import CLI
from sweeps_local import local_sweep
from tilesweep.jobs.lock import LOCK_FILE
from tilesweep.jobs.report.export import chromium_driver
from tilesweep.jobs.spec import build_spec
from tilesweep.jobs.sweep import prepare
from webui_server import ARTIFACTS, Server, request

pytestmark = pytest.mark.slow  # real sweep clients, pids and signals: 2-12 s a test

SPEC = dict(size=3, count=12, seed=7, algorithms=("astar",), heuristics=("manhattan",), chunk_size=4)
LOOPBACK_DASHBOARD = "http://127.0.0.1:8787/status"
FOREIGN_DASHBOARDS = ["javascript:alert(document.domain)", "http://attacker.example:8787/status",
                      "http://127.0.0.1@attacker.example/status"]

# A sweep's run as far as liveness goes: it takes the sweep's lock as a run does, notes a
# dashboard in it, records itself as the client and, with "hold", keeps both until killed.
RUN = """
import sys, time
from pathlib import Path
from tilesweep.jobs.client import record_this_client
from tilesweep.jobs.spec import SweepSpec
from tilesweep.jobs.sweep import prepare
folder, dashboard, hold = Path(sys.argv[1]), sys.argv[2], sys.argv[3] == "hold"
plan = prepare(SweepSpec.from_json((folder / "sweep.json").read_text()))
plan.lock.note(dashboard=dashboard)
record_this_client(folder, "tilesweep sweep --name " + folder.name)
print("held", flush=True)
try:
    while hold:
        time.sleep(1)
except KeyboardInterrupt:  # what cancel sends
    sys.exit(130)
"""


def new_sweep(out, name):
    """A planned sweep (its folder and sweep.json, no part), as a run's start leaves it."""
    spec, _ = build_spec({**SPEC, "out": str(out), "name": name}, workers=1)
    with prepare(spec):
        pass
    return spec


def start_run(folder, dashboard=LOOPBACK_DASHBOARD, hold=True) -> subprocess.Popen:
    run = subprocess.Popen([sys.executable, "-c", RUN, str(folder), dashboard, "hold" if hold else "end"],
                           stdout=subprocess.PIPE, text=True)
    assert run.stdout.readline().strip() == "held"
    return run


def cli(*args, timeout=60) -> subprocess.CompletedProcess:
    return subprocess.run([*CLI, *map(str, args)], capture_output=True, text=True, timeout=timeout)


def status(folder) -> dict:
    done = cli("status", folder, "--format", "json")
    assert done.returncode == 0, done.stderr
    return json.loads(done.stdout)[0]


def give_pid(folder, pid: int) -> None:
    """Write ``pid`` where the records name their process, as when the kernel gives it anew."""
    for name in ("client.json", LOCK_FILE):
        record = json.loads((folder / name).read_text())
        (folder / name).write_text(json.dumps({**record, "pid": pid}))


@pytest.fixture
def reused(tmp_path):
    """A dead sweep whose client's pid (in client.json and .lock) now belongs to a live,
    unrelated process; (folder, that process)."""
    folder = new_sweep(tmp_path, "dead").folder
    run = start_run(folder, hold=False)
    assert run.wait(timeout=60) == 0
    with subprocess.Popen(["sleep", "120"]) as unrelated:
        give_pid(folder, unrelated.pid)
        yield folder, unrelated
        assert unrelated.poll() is None, "the unrelated process was signalled"
        unrelated.kill()


def test_status_does_not_take_a_reused_pid_for_the_client(reused):
    folder, unrelated = reused
    info = status(folder)
    assert info["state"] == "interrupted" and info["client_alive"] is False, info
    assert info["rate"] is None and info["dashboard"] is None, info
    table = cli("status", folder)
    assert table.returncode == 0 and ": interrupted," in table.stdout, table.stdout
    assert "running" not in table.stdout and "dashboard" not in table.stdout, table.stdout


def test_cancel_signals_no_process_that_took_the_clients_pid(reused):
    folder, unrelated = reused
    before = (folder / "client.json").read_text()
    done = cli("cancel", folder)
    assert done.returncode == 1 and done.stdout == "", done
    [line] = done.stderr.splitlines()
    assert line.startswith(f"error: sweep {str(folder)!r} has no running client on this host")
    assert f"pid {unrelated.pid} has ended and the pid now belongs to another process" in line
    assert (folder / "client.json").read_text() == before  # not marked cancelled
    assert unrelated.poll() is None


def test_cancel_stops_the_sweeps_own_client_and_says_what_it_waited_for(tmp_path):
    folder = new_sweep(tmp_path, "live").folder
    run = start_run(folder)
    try:
        assert status(folder)["state"] == "running"
        done = cli("cancel", folder)
        assert run.wait(timeout=30) == 130  # ended by the SIGINT, as by Ctrl-C
    finally:
        run.kill()
        run.wait()
    assert done.returncode == 0, done.stderr
    assert done.stderr.splitlines() == [f"waiting for pid {run.pid} (client of sweep {str(folder)!r}) to close "
                                        "its cluster and end, up to 120 s"]
    assert done.stdout.startswith(f"cancelled {folder}: its client (pid {run.pid}) ended after "), done.stdout
    assert done.stdout.splitlines()[-1] == f"  tilesweep sweep --name {folder.name}"
    assert status(folder)["state"] == "cancelled"


def test_cancel_says_so_when_the_sweep_finished_before_its_client_ended(tmp_path):
    folder = local_sweep(tmp_path, "done", **SPEC)  # every chunk saved; its client still runs
    run = start_run(folder)
    try:
        done = cli("cancel", folder)
        assert run.wait(timeout=30) == 130
    finally:
        run.kill()
        run.wait()
    assert done.returncode == 0, done.stderr
    said = rf"{re.escape(str(folder))}: its client \(pid {run.pid}\) ended after [0-9.]+ s, with every chunk saved: "
    assert re.fullmatch(said + "the sweep finished\n", done.stdout), done.stdout
    assert status(folder)["state"] == "finished"


def test_deleting_the_lock_file_does_not_let_a_second_run_start(tmp_path):
    spec = new_sweep(tmp_path, "once")
    first = start_run(spec.folder)
    try:
        (spec.folder / LOCK_FILE).unlink()
        second = cli(*spec.command().split()[1:], "--scheduler", "tcp://127.0.0.1:9", timeout=120)
        refusal = f"error: sweep 'once' in {str(tmp_path)!r} is already running"
        assert second.returncode == 1 and second.stderr.startswith(refusal), second.stderr
        assert len(second.stderr.splitlines()) == 1, second.stderr
    finally:
        first.kill()
        first.wait()
    with prepare(spec):  # the lock goes with its holder
        pass


def test_a_dashboard_is_shown_and_linked_only_on_loopback(tmp_path):
    names = ["loopback", *(f"foreign{i}" for i in range(len(FOREIGN_DASHBOARDS)))]
    runs = [start_run(new_sweep(tmp_path, name).folder, dashboard)
            for name, dashboard in zip(names, [LOOPBACK_DASHBOARD, *FOREIGN_DASHBOARDS])]
    server = Server(tmp_path, tmp_path / "store")
    try:
        for name in names:
            info = status(tmp_path / name)
            assert info["state"] == "running", info
            shown = LOOPBACK_DASHBOARD if name == "loopback" else None
            assert info["dashboard"] == shown, info
            code, text = request(server, "GET", f"/api/sweeps/{name}")
            assert code == 200 and json.loads(text)["dashboard"] == shown, text
        table = cli("status", "--out", tmp_path).stdout
        assert table.count("dashboard:") == 1 and f"  dashboard: {LOOPBACK_DASHBOARD}" in table, table
        assert all(address not in table for address in FOREIGN_DASHBOARDS), table
    finally:
        server.stop()
        for run in runs:
            run.kill()
            run.wait()


@pytest.mark.browser
def test_the_sweep_page_links_a_dashboard_only_on_loopback(tmp_path):
    require_chromium()
    runs = [start_run(new_sweep(tmp_path, name).folder, dashboard)
            for name, dashboard in (("loopback", LOOPBACK_DASHBOARD), ("foreign", FOREIGN_DASHBOARDS[0]))]
    server = Server(tmp_path, tmp_path / "store")
    try:
        with chromium_driver(1280, 900) as driver:
            driver.get(server.url + "/sweeps/loopback")
            link = wait_for(lambda: driver.find_elements("id", "dashboard"), 60, "the dashboard link")[0]
            assert link.get_attribute("href") == LOOPBACK_DASHBOARD
            driver.get(server.url + "/sweeps/foreign")
            wait_for(lambda: driver.execute_script("return document.body.dataset.ready") == "true", 60, "the page")
            assert driver.find_elements("id", "dashboard") == []
            ARTIFACTS.mkdir(parents=True, exist_ok=True)
            driver.save_screenshot(str(ARTIFACTS / "sweep-foreign-dashboard.png"))
            # the page's own rule, for whatever address a server might send
            check = "return loopbackHttp(arguments[0])"
            assert driver.execute_script(check, LOOPBACK_DASHBOARD) is True
            assert [driver.execute_script(check, address) for address in FOREIGN_DASHBOARDS] == [False] * 3
    finally:
        server.stop()
        for run in runs:
            run.kill()
            run.wait()
