"""Sweeps that always finish, on real ``dask scheduler`` / ``dask worker`` processes.

* workers with a small memory limit: A* stops with ``budget_exceeded``/``memory`` before
  the nanny acts; with the budget switched off, the poison instance becomes one
  ``error`` row (reason ``worker_died``) and the others are solved;
* a worker with another tilesweep version is named before any work;
* the scheduler killed mid-sweep: the client waits for it and goes on, or exits with the
  resume command; either way the rows equal an uninterrupted run's;
* a full file system: one line, no partial part, and the rerun completes.
"""

import json
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pandas as pd
import pytest
from distributed import Client

from polling import wait_for
from program import CLI
from tilesweep.jobs.results import load_results
from tilesweep.jobs.schema import TIMING_COLUMNS
from tilesweep.jobs.sources import KORF100, read_instance_file

pytestmark = pytest.mark.cluster

ROOT = Path(__file__).resolve().parents[1]
DASK = [sys.executable, "-m", "dask"]  # this interpreter's tilesweep, not another install's
KORF = read_instance_file(str(KORF100), 4)


class Cluster:
    """A scheduler and workers, each its own process; stopped by :meth:`close`. What each
    writes on stderr is kept in ``tmp`` (``dask-*.stderr``): a failed test shows it
    (``tests/conftest.py``)."""

    def __init__(self, tmp: Path, env: dict, port: int = 0):
        self.tmp, self.env, self.workers = tmp, env, []
        self.file = tmp / f"scheduler-{time.monotonic_ns()}.json"
        self.scheduler = self.start("scheduler", [*DASK, "scheduler", "--host", "127.0.0.1", "--port", str(port),
                                                  "--no-dashboard", "--scheduler-file", str(self.file)])
        wait_for(lambda: self.file.exists() and json.loads(self.file.read_text() or "{}").get("address"),
                 what="the scheduler address")
        self.address = json.loads(self.file.read_text())["address"]

    def start(self, kind: str, args):
        with open(self.tmp / f"dask-{time.monotonic_ns()}-{kind}.stderr", "wb") as log:
            return subprocess.Popen(args, cwd=self.tmp, env=self.env, stdout=subprocess.DEVNULL, stderr=log)

    def add_workers(self, n: int, *extra: str):
        for _ in range(n):
            self.workers.append(self.start("worker", [*DASK, "worker", self.address, "--nthreads", "1",
                                                      "--no-dashboard", *extra]))
        with Client(self.address, timeout="30s") as client:
            client.wait_for_workers(n, timeout=90)
            return set(client.scheduler_info()["workers"])

    def worker_addresses(self) -> set[str]:
        with Client(self.address, timeout="30s") as client:
            return set(client.scheduler_info()["workers"])

    def kill_scheduler(self):
        self.scheduler.send_signal(signal.SIGKILL)
        self.scheduler.wait(timeout=30)

    def close(self):
        procs = self.workers + [self.scheduler]
        for proc in procs:
            if proc.poll() is None:
                proc.terminate()
        for proc in procs:
            try:
                proc.wait(timeout=30)
            except subprocess.TimeoutExpired:
                proc.kill()


@pytest.fixture
def make_cluster(tmp_path):
    made = []

    def make(env_extra=None, port=0):
        cluster = Cluster(tmp_path, {**os.environ, **(env_extra or {})}, port)
        made.append(cluster)
        return cluster

    yield make
    for cluster in made:
        cluster.close()


def sweep(*args, env=None, timeout=300, preexec_fn=None) -> subprocess.CompletedProcess:
    """Run ``tilesweep sweep ARGS``; one still running after ``timeout`` seconds fails the test
    with every thread's stack (faulthandler, on SIGABRT) and what it printed."""
    argv = [*CLI, "sweep", *map(str, args)]
    env = {**os.environ, **(env or {}), "PYTHONFAULTHANDLER": "1"}
    with subprocess.Popen(argv, cwd=ROOT, env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                          preexec_fn=preexec_fn) as proc:
        try:
            out, err = proc.communicate(timeout=timeout)
        except subprocess.TimeoutExpired:
            proc.send_signal(signal.SIGABRT)
            out, err = proc.communicate()
            pytest.fail(f"{' '.join(argv)} still ran after {timeout} s; its stacks:\n{err}\n{out}")
    return subprocess.CompletedProcess(argv, proc.returncode, out, err)


def rows(folder) -> pd.DataFrame:
    return load_results(folder).drop(columns=[*TIMING_COLUMNS, "sweep"]).reset_index(drop=True)


def write_boards(path: Path, boards) -> Path:
    path.write_text("".join(" ".join(map(str, b)) + "\n" for b in boards))
    return path


def test_small_memory_limit_budget_exceeded_not_a_killed_worker(make_cluster, tmp_path):
    """The scenario of a new user: five of Korf's puzzles, A* + Manhattan, 700 MB workers."""
    cluster = make_cluster()
    before = cluster.add_workers(2, "--memory-limit", "700MB")
    proc = sweep("--instances", "korf100", "--count", 5, "--algorithm", "astar", "--heuristic", "manhattan",
                 "--chunk-size", 2, "--scheduler", cluster.address, "--out", tmp_path, "--name", "mem")
    assert proc.returncode == 0, proc.stderr
    df = load_results(tmp_path / "mem")
    assert sorted(df["instance"]) == [0, 1, 2, 3, 4]
    memory = df[df["status"] == "budget_exceeded"]
    assert len(memory) >= 1 and (memory["status_reason"] == "memory").all()
    assert set(df["status"]) <= {"solved", "budget_exceeded"}
    assert (df["max_memory"] < 700_000_000).all()
    assert cluster.worker_addresses() == before  # no worker died and came back under a new address


def test_poison_instance_is_one_error_row(make_cluster, tmp_path):
    """Without the memory budget Korf #1 outgrows a 700 MB worker: its chunk is split, the
    instance that still kills workers gets an error row naming the dead worker."""
    cluster = make_cluster({"DASK_DISTRIBUTED__SCHEDULER__ALLOWED_FAILURES": "1",
                            "TILESWEEP_NO_MEMORY_BUDGET": "1"})
    cluster.add_workers(2, "--memory-limit", "700MB")
    boards = write_boards(tmp_path / "boards.txt", [KORF[78], KORF[0], KORF[96], KORF[54]])  # #1 is the poison
    args = ["--instances", boards, "--size", 4, "--goal", "blank-first", "--algorithm", "astar",
            "--heuristic", "manhattan", "--max-nodes", 10**9, "--chunk-size", 2, "--scheduler", cluster.address,
            "--out", tmp_path, "--name", "poison"]
    proc = sweep(*args, env={"TILESWEEP_NO_MEMORY_BUDGET": "1"})
    assert proc.returncode == 0, proc.stderr
    assert "1 solve(s) killed every worker" in proc.stderr
    df = load_results(tmp_path / "poison").set_index("instance")
    assert list(df.index) == [0, 1, 2, 3]
    assert df.loc[1, "status"] == "error" and df.loc[1, "status_reason"] == "worker_died"
    assert "tcp://127.0.0.1:" in df.loc[1, "error"]
    assert (df.drop(index=1)["status"] == "solved").all()
    # a rerun keeps the error row; --retry-errors tries it again (and it fails again the same way)
    again = sweep(*args, env={"TILESWEEP_NO_MEMORY_BUDGET": "1"})
    assert again.returncode == 0 and "(2 already done)" in again.stderr
    assert "killed every worker" not in again.stderr


def test_worker_of_another_version_is_named_before_any_work(make_cluster, tmp_path):
    preload = tmp_path / "other_version.py"
    preload.write_text("import tilesweep\ntilesweep.__version__ = '0.0.1+other'\n")
    cluster = make_cluster()
    cluster.add_workers(1, "--preload", str(preload))
    proc = sweep("--size", 3, "--count", 4, "--scheduler", cluster.address, "--out", tmp_path, "--name", "v",
                 timeout=120)
    assert proc.returncode == 1
    errors = [line for line in proc.stderr.splitlines() if line.startswith("error:")]
    assert len(errors) == 1 and "0.0.1+other" in errors[0] and "Traceback" not in proc.stderr
    import tilesweep
    assert f"client runs tilesweep {tilesweep.__version__}" in errors[0]
    assert not list((tmp_path / "v" / "results").glob("part-*"))


SLOW_SWEEP = ["--size", 3, "--count", 12, "--seed", 4, "--algorithm", "bfs", "--chunk-size", 1]


def test_scheduler_restart_mid_sweep(make_cluster, tmp_path):
    """Killed and restarted on the same port: the client waits, reconnects and finishes;
    killed for good: it exits 1 with the resume command. Both end with the reference rows."""
    reference = make_cluster()
    reference.add_workers(1)
    assert sweep(*SLOW_SWEEP, "--scheduler", reference.address, "--out", tmp_path, "--name", "ref").returncode == 0
    expected = rows(tmp_path / "ref")
    reference.close()

    port = int(reference.address.rsplit(":", 1)[1]) + 7
    first = make_cluster(port=port)
    first.add_workers(1)
    args = [*SLOW_SWEEP, "--scheduler", first.address, "--out", tmp_path, "--name", "restart"]
    client = subprocess.Popen([*CLI, "sweep", *map(str, args)], cwd=ROOT,
                              env={**os.environ, "TILESWEEP_RECONNECT_SECONDS": "120"},
                              stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    parts = tmp_path / "restart" / "results"
    wait_for(lambda: len(list(parts.glob("part-*.parquet"))) >= 2, what="two parts")
    first.close()
    second = make_cluster(port=port)
    second.add_workers(1)
    _, err = client.communicate(timeout=300)
    assert client.returncode == 0, err
    assert "waiting up to 120 s for the scheduler" in err
    pd.testing.assert_frame_equal(rows(tmp_path / "restart"), expected)

    third = make_cluster()
    third.add_workers(1)
    args = [*SLOW_SWEEP, "--scheduler", third.address, "--out", tmp_path, "--name", "gone"]
    client = subprocess.Popen([*CLI, "sweep", *map(str, args)], cwd=ROOT,
                              env={**os.environ, "TILESWEEP_RECONNECT_SECONDS": "2"},
                              stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    wait_for(lambda: len(list((tmp_path / "gone" / "results").glob("part-*.parquet"))) >= 2, what="two parts")
    third.kill_scheduler()
    _, err = client.communicate(timeout=300)
    assert client.returncode == 1, err
    assert "Traceback" not in err and "distributed." not in err, err  # tilesweep's lines, not Dask's log
    resume = err.strip().splitlines()[-1].strip()
    assert resume.startswith("python cli.py sweep") or resume.startswith("tilesweep sweep")
    fourth = make_cluster()
    fourth.add_workers(1)
    words = resume.split()[resume.split().index("sweep") + 1:]
    words[words.index("--scheduler") + 1] = fourth.address
    assert sweep(*words).returncode == 0
    pd.testing.assert_frame_equal(rows(tmp_path / "gone"), expected)


@pytest.fixture
def small_tmpfs(tmpfs):
    """A 96 KiB tmpfs (the machine's real file system code, not a simulation)."""
    return tmpfs("size=96k")


def test_full_disk_is_one_line_and_the_rerun_completes(small_tmpfs, tmp_path):
    args = ["--size", 3, "--count", 60, "--seed", 8, "--algorithm", "idastar", "--chunk-size", 2, "--workers", 1,
            "--name", "disk"]
    assert sweep(*args, "--out", tmp_path / "ref").returncode == 0
    proc = sweep(*args, "--out", small_tmpfs)
    assert proc.returncode == 1, proc.stderr
    errors = [line for line in proc.stderr.splitlines() if line.startswith("error:")]
    assert len(errors) == 1 and "writing the results failed" in errors[0], proc.stderr
    assert "No space left on device" in errors[0]
    assert "Traceback" not in proc.stderr and "on the cluster" not in proc.stderr, proc.stderr
    results = small_tmpfs / "disk" / "results"
    assert not [p for p in results.iterdir() if p.name.startswith(".")]  # no temporary part left behind
    kept = len(list(results.glob("part-*.parquet")))
    assert 0 < kept < 30
    subprocess.run(["mount", "-o", "remount,size=8m", str(small_tmpfs)], check=True)
    rerun = sweep(*args, "--out", small_tmpfs)
    assert rerun.returncode == 0, rerun.stderr
    assert f"({kept} already done)" in rerun.stderr
    pd.testing.assert_frame_equal(rows(small_tmpfs / "disk"), rows(tmp_path / "ref" / "disk"))
