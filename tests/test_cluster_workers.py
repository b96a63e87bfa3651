"""Sweeps on real ``dask scheduler`` / ``dask worker`` processes whose workers are lost or wrong:

* a scheduler with no worker at the start: a line saying so, then exit 1 with the resume
  command after ``--worker-wait``;
* the scheduler killed and restarted on the same port while its workers die with it: the
  client reconnects, finds no worker, says so and exits 1 with the resume command (it
  used to wait for ever, silently); the resume gives the uninterrupted rows;
* a worker of another tilesweep version joining mid-sweep stops the sweep with one line
  naming it and both versions, and the resume command;
* ``--wait-for-workers 2`` with one worker: no task before the second joins, and exit 1 with
  the resume command after ``--worker-wait`` if it never does.
"""

import os
import re
import signal
import socket
import subprocess

import pandas as pd
import pytest

import tilesweep
from polling import wait_for
from program import CLI
from test_cluster_finish import DASK, ROOT, SLOW_SWEEP, make_cluster, rows, sweep  # noqa: F401 - make_cluster is a fixture
from tilesweep.jobs.results import load_results

pytestmark = pytest.mark.cluster


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


def start_sweep(address, out, name, *extra, env=None):
    args = [*SLOW_SWEEP, "--scheduler", address, "--out", out, "--name", name, *extra]
    return subprocess.Popen([*CLI, "sweep", *map(str, args)], cwd=ROOT, env={**os.environ, **(env or {})},
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)


def parts(out, name) -> int:
    return len(list((out / name / "results").glob("part-*.parquet")))


def ending(err: str) -> tuple[str, str]:
    """The last two lines on stderr: the error and the resume command; nothing of Dask's."""
    assert "Traceback" not in err and "distributed." not in err, err
    *_, error, resume = err.strip().splitlines()
    return error, resume.strip()


def resumed(resume: str, address: str) -> None:
    """Run the printed resume command against the scheduler at ``address``."""
    words = resume.split()[resume.split().index("sweep") + 1:]
    words[words.index("--scheduler") + 1] = address
    done = sweep(*words)
    assert done.returncode == 0, done.stderr


def test_no_worker_at_the_start(make_cluster, tmp_path):  # noqa: F811
    cluster = make_cluster()  # a scheduler alone
    done = sweep(*SLOW_SWEEP, "--scheduler", cluster.address, "--out", tmp_path, "--name", "alone",
                 "--worker-wait", 2)
    assert done.returncode == 1, done.stderr
    assert re.search(rf"no Dask worker at the scheduler {cluster.address} for \d+ s; the sweep stops after 2 s "
                     r"without one \(--worker-wait\)", done.stderr), done.stderr
    error, resume = ending(done.stderr)
    assert error == (f"error: no Dask worker joined the scheduler {cluster.address} in 2 s (--worker-wait): "
                     f"0 of 12 chunks are saved in {tmp_path / 'alone'}; resume with:")
    assert "--worker-wait 2.0" in resume
    cluster.add_workers(1)
    resumed(resume, cluster.address)
    assert sorted(rows(tmp_path / "alone")["instance"]) == list(range(12))


def test_wait_for_workers_holds_the_tasks_until_they_joined(make_cluster, tmp_path):  # noqa: F811
    cluster = make_cluster()
    cluster.add_workers(1)
    done = sweep(*SLOW_SWEEP, "--scheduler", cluster.address, "--out", tmp_path, "--name", "two",
                 "--wait-for-workers", 2, "--worker-wait", 2)
    assert done.returncode == 1, done.stderr
    error, resume = ending(done.stderr)
    assert error == (f"error: 1 of 2 Dask workers joined the scheduler {cluster.address} in 2 s (--wait-for-workers "
                     f"2, --worker-wait): 0 of 12 chunks are saved in {tmp_path / 'two'}; resume with:")
    assert "--wait-for-workers 2" in resume
    client = start_sweep(cluster.address, tmp_path, "two", "--wait-for-workers", 2)
    wait_for(lambda: (tmp_path / "two" / "client.json").exists(), what="the sweep's client")
    with pytest.raises(subprocess.TimeoutExpired):  # one worker: nothing runs
        client.wait(timeout=5)
    assert parts(tmp_path, "two") == 0
    cluster.add_workers(1)
    _, err = client.communicate(timeout=300)
    assert client.returncode == 0, err
    assert load_results(tmp_path / "two")["worker"].nunique() == 2


def test_scheduler_restarted_while_its_workers_die(make_cluster, tmp_path):  # noqa: F811
    port = free_port()
    first = make_cluster(port=port)
    first.add_workers(1, "--no-nanny")
    client = start_sweep(first.address, tmp_path, "restart", "--worker-wait", 5,
                         env={"TILESWEEP_RECONNECT_SECONDS": "120"})
    wait_for(lambda: parts(tmp_path, "restart") >= 2, what="two parts")
    for proc in [first.scheduler, *first.workers]:  # the scheduler dies, and its workers with it
        proc.kill()
        proc.wait()
    second = make_cluster(port=port)  # back on the same port, without workers
    _, err = client.communicate(timeout=300)
    assert client.returncode == 1, err
    assert "waiting up to 120 s for the scheduler to come back" in err
    assert re.search(rf"no Dask worker at the scheduler {second.address} for \d+ s", err), err
    error, resume = ending(err)
    saved = parts(tmp_path, "restart")
    assert error == (f"error: no Dask worker joined the scheduler {second.address} in 5 s (--worker-wait): "
                     f"{saved} of 12 chunks are saved in {tmp_path / 'restart'}; resume with:")
    second.add_workers(1)
    resumed(resume, second.address)
    assert sweep(*SLOW_SWEEP, "--scheduler", second.address, "--out", tmp_path, "--name", "ref").returncode == 0
    pd.testing.assert_frame_equal(rows(tmp_path / "restart"), rows(tmp_path / "ref"))


def test_a_late_worker_of_another_version_stops_the_sweep(make_cluster, tmp_path):  # noqa: F811
    preload = tmp_path / "other_version.py"  # the worker process alone reports another version
    preload.write_text("import tilesweep\ntilesweep.__version__ = '0.0.1+other'\n")
    cluster = make_cluster()
    (good,) = cluster.add_workers(1, "--no-nanny")
    client = start_sweep(cluster.address, tmp_path, "late")
    wait_for(lambda: parts(tmp_path, "late") >= 1, what="a part")
    good_process = cluster.workers[0]
    os.kill(good_process.pid, signal.SIGSTOP)  # the sweep goes on only if the late worker takes tasks
    try:
        cluster.workers.append(cluster.start("worker", [*DASK, "worker", cluster.address, "--nthreads", "1",
                                                        "--no-dashboard", "--no-nanny", "--preload", str(preload)]))
        _, err = client.communicate(timeout=300)
    finally:
        os.kill(good_process.pid, signal.SIGCONT)
    assert client.returncode == 1, err
    assert "TypeError" not in err
    error, resume = ending(err)
    assert re.fullmatch(rf"error: worker tcp://127\.0\.0\.1:\d+ runs tilesweep 0\.0\.1\+other but this client runs "
                        rf"tilesweep {re.escape(tilesweep.__version__)}; install the same version on every worker and "
                        rf"the client: \d+ of 12 chunks are saved in {re.escape(str(tmp_path / 'late'))}; resume with:",
                        error), error
    assert good not in error
    cluster.workers[-1].kill()  # the other version leaves; the resume runs on the good worker
    cluster.workers[-1].wait()
    resumed(resume, cluster.address)
    assert sorted(rows(tmp_path / "late")["instance"]) == list(range(12))


def test_tables_wait_for_a_late_first_worker(make_cluster, tmp_path):  # noqa: F811
    """Worker jobs still queued when the sweep starts (a busy Slurm, an adaptive cluster at
    zero): the store's missing tables are built once the first worker joins."""
    cluster = make_cluster()  # a scheduler alone
    args = ["--size", 3, "--count", 4, "--seed", 1, "--algorithm", "astar", "--heuristic", "pdb:4-4",
            "--store", tmp_path / "store", "--scheduler", cluster.address, "--out", tmp_path, "--name", "late"]
    proc = subprocess.Popen([*CLI, "sweep", *map(str, args)], cwd=ROOT, stdout=subprocess.PIPE,
                            stderr=subprocess.PIPE, text=True)
    for line in proc.stderr:  # the sweep is at its tables: only then does a worker join
        if line.startswith("pattern databases for pdb:4-4"):
            break
    cluster.add_workers(1)
    _, err = proc.communicate(timeout=300)
    assert proc.returncode == 0, err
    assert (rows(tmp_path / "late")["status"] == "solved").sum() == 4


def test_reading_a_task_s_error_never_waits_for_ever(monkeypatch):
    """A task whose state never settles (the client closed under the run) is taken as
    cancelled after a bounded wait, and a closed client's futures are not read at all: a
    sweep whose worker watch closed its client under load used to wait there for ever."""
    import threading
    import time
    from concurrent.futures import CancelledError

    from distributed import Client, LocalCluster

    from tilesweep.cluster import run as cluster_run

    monkeypatch.setattr(cluster_run, "READ_SECONDS", 1.0)

    def read(client, future):
        found = []
        reader = threading.Thread(target=lambda: found.append(cluster_run.done_error(client, future)), daemon=True)
        reader.start()
        reader.join(30)
        assert found, "reading the task's error is still waiting after 30 s"
        return found[0]

    with LocalCluster(n_workers=0, processes=False, dashboard_address=None) as cluster:
        client = Client(cluster.scheduler_address)  # a loop of its own, as the CLI's client has
        never = client.submit(time.sleep, 0, pure=False)  # no worker: it stays pending
        assert isinstance(read(client, never), CancelledError)
        client.close()
        assert isinstance(read(client, never), CancelledError)
