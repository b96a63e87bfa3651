"""The sweep's worker plugins on a real cluster.

* a worker the scheduler cannot reach when the sweep registers its plugins is one line
  naming that worker, exit 1, no traceback;
* the kernels compile in the worker's first task, off its event loop: the worker goes on
  answering the scheduler (its heartbeats, ``client.run``) while they compile.
"""

import json
import os
import signal
import subprocess
import sys
import threading
from pathlib import Path

import pytest
from distributed import Client, LocalCluster

from test_cluster_faults import wait_for
from tilesweep.cluster import plugin as plugin_module
from tilesweep.cluster.plugin import SweepPlugin
from tilesweep.cluster.run import run_chunk
from tilesweep.jobs.work import ChunkJob
from tilesweep.solver.board import goal_tiles

pytestmark = pytest.mark.cluster

ROOT = Path(__file__).resolve().parents[1]
# How long the scheduler keeps a silent worker here: a stopped worker is dropped after this,
# which fails the plugin registration that waits for it.
WORKER_TTL = "30s"


def test_an_unreachable_worker_is_one_line_naming_it(tmp_path):
    env = {**os.environ, "DASK_DISTRIBUTED__SCHEDULER__WORKER_TTL": WORKER_TTL}
    file = tmp_path / "scheduler.json"
    scheduler = subprocess.Popen([sys.executable, "-m", "dask", "scheduler", "--host", "127.0.0.1", "--port", "0",
                                  "--no-dashboard", "--scheduler-file", str(file)], cwd=tmp_path, env=env,
                                 stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    worker = None
    try:
        wait_for(lambda: file.exists() and json.loads(file.read_text() or "{}").get("address"),
                 what="the scheduler address")
        address = json.loads(file.read_text())["address"]
        worker = subprocess.Popen([sys.executable, "-m", "dask", "worker", address, "--nthreads", "1",
                                   "--no-dashboard", "--no-nanny"], cwd=tmp_path, env=env,
                                  stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        with Client(address) as client:
            client.wait_for_workers(1, timeout=120)
            (worker_address,) = client.scheduler_info()["workers"]
        os.kill(worker.pid, signal.SIGSTOP)  # it keeps its connections but answers nothing
        done = subprocess.run([sys.executable, "cli.py", "sweep", "--scheduler", address, "--size", "3",
                               "--count", "4", "--algorithm", "idastar", "--heuristic", "manhattan",
                               "--out", str(tmp_path / "out"), "--name", "unreachable"],
                              cwd=ROOT, capture_output=True, text=True, timeout=300)
    finally:
        for proc in (worker, scheduler):
            if proc is not None:
                os.kill(proc.pid, signal.SIGCONT)
                proc.kill()
                proc.wait()
    assert done.returncode == 1, done.stderr
    assert "Traceback" not in done.stderr, done.stderr
    errors = [line for line in done.stderr.splitlines() if line.startswith("error:")]
    assert errors == [done.stderr.strip().splitlines()[-1]], done.stderr
    assert errors[0].startswith(f"error: worker '{worker_address}' did not answer the scheduler"), errors[0]
    assert "acknowledge the sweep's setup" in errors[0]


def test_kernels_compile_off_the_event_loop(monkeypatch):
    started, answered, released = threading.Event(), threading.Event(), []

    def slow_warm_up(*args, **options):
        """Stands for compiling: done once the worker's event loop has answered (or 30 s)."""
        started.set()
        released.append(answered.wait(30))

    monkeypatch.setattr(plugin_module, "warm_sweep_kernels", slow_warm_up)
    goal = goal_tiles("blank-last", 3)
    job = ChunkJob(sweep="s", chunk=0, size=3, goal=goal, combos=(("idastar", "manhattan"),), max_nodes=None,
                   instances=((0, (1, 2, 3, 4, 5, 6, 7, 0, 8)),))
    with LocalCluster(n_workers=1, threads_per_worker=1, processes=False, dashboard_address=None) as cluster, \
            Client(cluster) as client:
        client.register_plugin(SweepPlugin("p", None, 3, goal, job.combos), name="p")
        future = client.submit(run_chunk, job, "p", pure=False)
        assert started.wait(60), "the first task warms the kernels up"
        # While the kernels "compile", the worker's event loop answers: client.run is handled
        # there, as are the heartbeats. On the event loop, this call would wait for the warm-up.
        assert list(client.run(lambda: "alive").values()) == ["alive"]
        answered.set()
        rows = future.result(timeout=60)
    assert released == [True], "the event loop answered while the kernels compiled, once"
    assert rows.column("status").to_pylist() == ["solved"]
