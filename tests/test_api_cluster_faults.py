"""A sweep run from Python, as a notebook runs one, survives what ``tilesweep sweep`` survives
(the same run, :func:`tilesweep.cluster.runner.run_sweep`), on real ``dask scheduler`` /
``dask worker`` processes:

* a scheduler with no worker: a warning, then ``NoWorkersError`` after ``worker_wait``; the
  next ``run`` resumes once a worker is there;
* the scheduler killed and restarted on the same port mid-run: a warning, the run waits
  for it and ends with the uninterrupted rows; killed for good: ``SchedulerGoneError`` once
  ``$TILESWEEP_RECONNECT_SECONDS`` pass, and ``run`` on another scheduler completes it.
"""

import logging

import pandas as pd
import pytest

import tilesweep
from polling import wait_for
from sweeps_local import local_sweep
from test_cluster_finish import make_cluster, rows  # noqa: F401 - make_cluster is a fixture
from test_cluster_workers import free_port, parts
from tilesweep.cluster.runner import SchedulerGoneError
from tilesweep.cluster.watch import NoWorkersError

pytestmark = pytest.mark.cluster

# bfs solves of ~0.5 s, one a chunk: a run long enough to lose its scheduler in
SLOW = dict(size=3, count=12, seed=4, algorithms="bfs", chunk_size=1)


def warnings_of(caplog) -> str:
    return "\n".join(r.getMessage() for r in caplog.records if r.name == "tilesweep.api")


def test_a_run_without_workers_stops_after_worker_wait_and_resumes(make_cluster, tmp_path, caplog):  # noqa: F811
    cluster = make_cluster()  # a scheduler alone
    sweep = tilesweep.define_sweep(**SLOW, scheduler=cluster.address, worker_wait=2, out=tmp_path, name="alone")
    with caplog.at_level(logging.WARNING, logger="tilesweep.api"), \
            pytest.raises(NoWorkersError, match=f"no Dask worker joined the scheduler {cluster.address} in 2 s"):
        sweep.run()
    assert f"no Dask worker at the scheduler {cluster.address} for " in warnings_of(caplog)
    assert "the run stops after 2 s without one" in warnings_of(caplog)
    assert parts(tmp_path, "alone") == 0
    cluster.add_workers(1)
    summary = sweep.run()
    assert summary["solved"].item() == 12
    assert sorted(sweep.results()["instance"]) == list(range(12))


def test_a_started_run_waits_for_its_lost_scheduler_and_goes_on(make_cluster, tmp_path, monkeypatch,  # noqa: F811
                                                                 caplog):
    # First, in this process: it also compiles the kernels into numba's cache, which the worker then
    # loads; compiled by the worker on a loaded machine they outlasted the wait for two parts.
    reference = rows(local_sweep(tmp_path / "local", "ref", **{**SLOW, "algorithms": ("bfs",)}))
    port = free_port()
    first = make_cluster(port=port)
    first.add_workers(1)
    monkeypatch.setenv("TILESWEEP_RECONNECT_SECONDS", "120")
    sweep = tilesweep.define_sweep(**SLOW, scheduler=first.address, out=tmp_path, name="restart")
    with caplog.at_level(logging.WARNING, logger="tilesweep.api"):
        run = sweep.start()
        wait_for(lambda: parts(tmp_path, "restart") >= 2, what="two parts")
        first.close()  # the scheduler and its worker stop
        second = make_cluster(port=port)
        second.add_workers(1)
        summary = run.result(timeout=300)
    assert "connection to the Dask scheduler was lost" in warnings_of(caplog)
    assert "waiting up to 120 s for the scheduler to come back" in warnings_of(caplog)
    assert summary["solved"].item() == 12
    pd.testing.assert_frame_equal(rows(tmp_path / "restart"), reference)

    monkeypatch.setenv("TILESWEEP_RECONNECT_SECONDS", "2")
    gone = tilesweep.define_sweep(**SLOW, scheduler=second.address, out=tmp_path, name="gone")
    run = gone.start()
    wait_for(lambda: parts(tmp_path, "gone") >= 2, what="two parts")
    second.kill_scheduler()
    with pytest.raises(SchedulerGoneError, match=r"did not come back in 2 s \(\$TILESWEEP_RECONNECT_SECONDS\)"):
        run.result(timeout=300)
    assert parts(tmp_path, "gone") < 12
    third = make_cluster()
    third.add_workers(1)
    gone.run(scheduler=third.address)
    pd.testing.assert_frame_equal(rows(tmp_path / "gone"), reference)
