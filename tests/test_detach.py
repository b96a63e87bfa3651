"""Detached sweeps (``sweep --detach``) on the embedded cluster, followed by ``status`` and
stopped by ``cancel``; a client killed outright shows as interrupted; the command ``status``
prints resumes each, and both end with the same rows (that a resume gives an uninterrupted
run's rows is tests/test_cluster_finish.py's)."""

import json
import os
import shlex
import signal
import subprocess
import time

import pandas as pd
import pytest

from polling import wait_for
from program import CLI
from test_cluster_finish import ROOT, rows, sweep

pytestmark = pytest.mark.cluster

# Breadth-first search of 8-puzzles, one a chunk: a tenth of a second or more each, so
# both sweeps still run when the test stops them, on an idle machine too.
COUNT = 200
SPEC = ["--size", 3, "--count", COUNT, "--seed", 6, "--algorithm", "bfs", "--chunk-size", 1, "--workers", 1]


def cli(*args) -> subprocess.CompletedProcess:
    return subprocess.run([*CLI, *map(str, args)], cwd=ROOT, capture_output=True, text=True, timeout=300)


def status(folder) -> dict:
    done = cli("status", folder, "--format", "json")
    assert done.returncode == 0, done.stderr
    return json.loads(done.stdout)[0]


def ignoring_ctrl_c() -> None:
    signal.signal(signal.SIGINT, signal.SIG_IGN)


def detach(out, name):
    """Detach as a script's background job (``... &``) does: with SIGINT ignored."""
    done = sweep(*SPEC, "--out", out, "--name", name, "--detach", preexec_fn=ignoring_ctrl_c)
    assert done.returncode == 0, done.stderr
    assert done.stdout.splitlines()[-1] == str(out / name)  # the sweep's folder, last
    return out / name


def parts(folder) -> int:
    return len(list((folder / "results").glob("part-*.parquet")))


def test_detached_sweeps_stop_and_resume(tmp_path):
    killed = detach(tmp_path, "killed")
    cancelled = detach(tmp_path, "cancelled")
    info = status(killed)
    assert info["state"] == "running" and info["client_alive"] is True

    wait_for(lambda: parts(killed) >= 2, what="two parts of the sweep to kill", timeout=300)
    os.kill(json.loads((killed / "client.json").read_text())["pid"], signal.SIGKILL)
    wait_for(lambda: parts(cancelled) >= 2, what="two parts of the sweep to cancel", timeout=300)
    stopped = cli("cancel", cancelled)
    assert stopped.returncode == 0, stopped.stderr
    assert "\ninterrupted" in (cancelled / "client.log").read_text()  # stopped by the SIGINT, as a Ctrl-C

    for folder, state in ((killed, "interrupted"), (cancelled, "cancelled")):
        info = status(folder)  # the client is gone: killed, or cancel waited for it to end
        assert info["state"] == state and info["rows"][0] < COUNT and info["client_alive"] is False, info
        words = shlex.split(info["resume"])
        resumed = sweep(*words[words.index("sweep") + 1:])
        assert resumed.returncode == 0, resumed.stderr
        info = status(folder)
        assert info["state"] == "finished" and info["rows"] == [COUNT, COUNT]
    pd.testing.assert_frame_equal(rows(killed), rows(cancelled))


def test_a_sweep_run_in_a_terminal_shows_as_running_and_cancel_stops_it(tmp_path):
    """Not only detached clients: a sweep in the foreground is ``running`` while it runs (not
    ``interrupted``), and ``tilesweep cancel`` stops it as a Ctrl-C would."""
    folder = tmp_path / "foreground"
    argv = [*CLI, "sweep", *map(str, SPEC), "--out", tmp_path, "--name", "foreground"]
    with subprocess.Popen(argv, cwd=ROOT, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True) as proc:
        wait_for(lambda: parts(folder) >= 1, what="a part of the foreground sweep", timeout=300)
        info = status(folder)
        assert info["state"] == "running" and info["client_alive"] is True and info["log"] is None, info
        watch = subprocess.Popen([*CLI, "status", str(folder), "--watch"], cwd=ROOT, stdout=subprocess.PIPE, text=True)
        first = watch.stdout.readline()  # its first frame while the sweep runs (its start takes seconds under load)
        time.sleep(3)  # a refresh or two while it runs
        stopped = cli("cancel", folder)
        out, err = proc.communicate(timeout=120)
        frames = [first, *watch.communicate(timeout=30)[0].splitlines()]  # --watch ends once the sweep stops running
    assert stopped.returncode == 0, stopped.stderr
    assert ": running," in frames[0] and ": cancelled," in frames[-2] and "resume with:" in frames[-1], frames
    assert proc.returncode == 130 and "\ninterrupted" in err, err
    info = status(folder)
    assert info["state"] == "cancelled" and info["rows"][0] < COUNT, info
    assert "--name foreground" in info["resume"]
