"""Faults on a real cluster of separate processes: ``dask scheduler`` + two ``dask worker``.

* a worker killed with SIGKILL mid-sweep costs time, not rows;
* the client (a ``tilesweep sweep`` process) killed mid-sweep, then rerun, gives exactly
  the uninterrupted table;
* a solve that raises becomes a row with status ``error`` and the sweep goes on.
"""

import json
import os
import signal
import subprocess
import sys
from pathlib import Path

import pandas as pd
import pytest
from distributed import Client

import faults
from polling import wait_for
from program import CLI
from tilesweep.jobs.results import load_results
from tilesweep.jobs.schema import TIMING_COLUMNS

pytestmark = pytest.mark.cluster

ROOT = Path(__file__).resolve().parents[1]
FAULTS = Path(__file__).resolve().parent / "faults.py"
# bfs solves take ~0.5 s each on the 8-puzzle: long enough to interrupt mid-sweep.
SWEEP = ["--size", "3", "--count", "10", "--seed", "9", "--algorithm", "bfs", "--algorithm", "idastar",
         "--heuristic", "manhattan", "--chunk-size", "1"]


@pytest.fixture(scope="module")
def cluster(tmp_path_factory):
    """A scheduler and two single-threaded workers, each its own process, on 127.0.0.1."""
    tmp = tmp_path_factory.mktemp("cluster")
    env = {**os.environ, faults.ENV: "faulty:2,faulty:7"}
    file = tmp / "scheduler.json"
    scheduler = subprocess.Popen([sys.executable, "-m", "dask", "scheduler", "--host", "127.0.0.1", "--port", "0",
                                  "--no-dashboard", "--scheduler-file", str(file)], cwd=tmp, env=env,
                                 stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    wait_for(file.exists, what="the scheduler file")
    wait_for(lambda: json.loads(file.read_text() or "{}").get("address"), what="the scheduler address")
    address = json.loads(file.read_text())["address"]
    # the workers load tests/faults.py, which makes instances 2 and 7 of sweep "faulty" raise
    workers = [subprocess.Popen([sys.executable, "-m", "dask", "worker", address, "--nthreads", "1", "--no-dashboard",
                                 "--no-nanny", "--name", f"w{i}", "--preload", str(FAULTS)], cwd=tmp, env=env,
                                stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL) for i in range(2)]
    with Client(address) as client:
        client.wait_for_workers(2, timeout=60)
    yield address, workers, env
    for proc in workers + [scheduler]:
        if proc.poll() is None:
            proc.terminate()
    for proc in workers + [scheduler]:
        try:
            proc.wait(timeout=20)
        except subprocess.TimeoutExpired:
            proc.kill()


def start_sweep(env, address, out, name, *extra):
    args = [*CLI, "sweep", *SWEEP, "--scheduler", address,
            "--out", str(out), "--name", name, *extra]
    return subprocess.Popen(args, cwd=ROOT, env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)


def parts(out, name):
    return sorted((Path(out) / name / "results").glob("part-*.parquet"))


def table(out, name) -> pd.DataFrame:
    return load_results(Path(out) / name).drop(columns=list(TIMING_COLUMNS)).drop(columns="sweep")


def finish(proc):
    out, err = proc.communicate(timeout=300)
    assert proc.returncode == 0, err
    return out, err


def test_faults_cost_time_not_rows(cluster, tmp_path):
    address, workers, env = cluster
    reference = start_sweep(env, address, tmp_path, "reference")
    finish(reference)
    expected = table(tmp_path, "reference")
    assert len(expected) == 20 and (expected["status"] == "solved").all()

    # the client dies (SIGKILL) mid-sweep; a rerun gives exactly the uninterrupted table
    client = start_sweep(env, address, tmp_path, "client-killed")
    wait_for(lambda: len(parts(tmp_path, "client-killed")) >= 2, what="two parts")
    client.send_signal(signal.SIGKILL)
    client.wait(timeout=30)
    kept = len(parts(tmp_path, "client-killed"))
    assert kept < 10
    rerun = start_sweep(env, address, tmp_path, "client-killed")
    _, err = finish(rerun)
    assert f"({kept} already done)" in err or f"({kept + 1} already done)" in err
    pd.testing.assert_frame_equal(table(tmp_path, "client-killed"), expected)

    # a worker dies (SIGKILL) mid-sweep: its task reruns on the survivor, every instance once
    sweep = start_sweep(env, address, tmp_path, "worker-killed")
    wait_for(lambda: len(parts(tmp_path, "worker-killed")) >= 2, what="two parts")
    workers[0].send_signal(signal.SIGKILL)
    assert len(parts(tmp_path, "worker-killed")) < 10
    finish(sweep)
    got = load_results(tmp_path / "worker-killed")
    assert sorted(got["instance"].value_counts().to_dict().items()) == [(i, 2) for i in range(10)]
    pd.testing.assert_frame_equal(table(tmp_path, "worker-killed"), expected)


def test_a_solve_that_raises_is_an_error_row(cluster, tmp_path):
    address, _, env = cluster
    finish(start_sweep(env, address, tmp_path, "faulty"))
    df = load_results(tmp_path / "faulty")
    errors = df[df["status"] == "error"]
    assert sorted(errors["instance"].unique()) == [2, 7] and len(errors) == 4
    assert errors["error"].str.contains("injected fault").all()
    assert (df[df["status"] != "error"]["status"] == "solved").all() and len(df) == 20
