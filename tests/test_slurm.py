"""Sweeps whose workers are batch jobs of a real Slurm (``--cluster slurm``), against the
embedded cluster's rows. The single-node Slurm on loopback comes from ``.ci/install-slurm``
(run by ``.ci/install``); the tests skip where Slurm is not installed.
"""

import json
import os
import shutil
import subprocess
import sys

import pandas as pd
import pytest

from polling import wait_for
from program import CLI
from test_cluster_finish import ROOT, rows, sweep

pytestmark = [pytest.mark.slurm,
              pytest.mark.skipif(shutil.which("sbatch") is None,
                                 reason="Slurm is not installed (as root: .ci/install-slurm installs and starts one)")]

SPEC = ["--size", 3, "--count", 8, "--seed", 5, "--algorithm", "astar", "--heuristic", "manhattan",
        "--heuristic", "pdb:4-4", "--chunk-size", 2]
# One single-threaded worker a job, on loopback (the node is this machine)
JOB = ["--cluster", "slurm", "--cluster-option", "cores=1", "--cluster-option", "memory=1GB",
       "--cluster-option", "walltime=00:10:00", "--cluster-option", "interface=lo", "--worker-wait", 120]


def queued() -> list[str]:
    """This machine's Slurm jobs, pending or running."""
    listed = subprocess.run(["squeue", "-h", "-o", "%i %T"], capture_output=True, text=True)
    assert listed.returncode == 0, f"no Slurm controller answers: {listed.stderr.strip()}"
    return listed.stdout.split("\n")[:-1]


@pytest.fixture(scope="module")
def embedded(tmp_path_factory):
    out = tmp_path_factory.mktemp("embedded")
    done = sweep(*SPEC, "--workers", 2, "--store", out / "store", "--out", out, "--name", "ref")
    assert done.returncode == 0, done.stderr
    return rows(out / "ref")


def test_fixed_jobs_give_the_embedded_rows(embedded, tmp_path):
    assert queued() == []
    done = sweep(*SPEC, *JOB, "--jobs", 2, "--store", tmp_path / "store", "--out", tmp_path, "--name", "jobs")
    assert done.returncode == 0, done.stderr
    pd.testing.assert_frame_equal(rows(tmp_path / "jobs"), embedded)
    assert queued() == []  # the jobs ended with the sweep
    assert list((tmp_path / "jobs" / "jobs").glob("*.err"))  # the workers' logs, in the sweep's folder


def test_adaptive_jobs_from_none_build_the_tables(embedded, tmp_path):
    """No worker when the sweep starts: the empty store's tables are built once one joins."""
    done = sweep(*SPEC, *JOB, "--max-jobs", 2, "--store", tmp_path / "store", "--out", tmp_path, "--name", "adapt")
    assert done.returncode == 0, done.stderr
    pd.testing.assert_frame_equal(rows(tmp_path / "adapt"), embedded)
    assert queued() == []


def test_cancel_ends_the_jobs_and_a_rerun_completes(embedded, tmp_path):
    """``tilesweep cancel`` of a detached sweep whose jobs were submitted: no job is left."""
    folder = tmp_path / "cancel"
    done = sweep(*SPEC, *JOB, "--jobs", 2, "--store", tmp_path / "store", "--out", tmp_path, "--name", "cancel",
                 "--detach")
    assert done.returncode == 0, done.stderr
    wait_for(lambda: queued(), what="the sweep's jobs in the queue")
    cancel = subprocess.run([*CLI, "cancel", folder], cwd=ROOT, capture_output=True, text=True, timeout=300)
    assert cancel.returncode == 0, cancel.stderr
    wait_for(lambda: queued() == [], what="no job left", timeout=60)  # completing jobs leave the queue
    status = subprocess.run([*CLI, "status", folder, "--format", "json"], cwd=ROOT, capture_output=True, text=True)
    info = json.loads(status.stdout)[0]
    assert info["state"] == "cancelled" and info["rows"][0] < info["rows"][1], info
    words = info["resume"].split()
    rerun = sweep(*words[words.index("sweep") + 1:])
    assert rerun.returncode == 0, rerun.stderr
    pd.testing.assert_frame_equal(rows(folder), embedded)
    assert queued() == []


def test_one_allocation_script_runs_a_sweep_under_sbatch(embedded, tmp_path):
    """``tilesweep sbatch-script`` as a user submits it: scheduler, two workers (srun) and the
    sweep in one allocation, joined by --scheduler-file; its rows are the embedded cluster's."""
    script = tmp_path / "sweep.sbatch"
    printed = subprocess.run([*CLI, "sbatch-script"], cwd=ROOT, capture_output=True, text=True, timeout=120)
    assert printed.returncode == 0, printed.stderr
    script.write_text(printed.stdout)
    # tilesweep and dask from this environment; one node, so the loopback interface
    path = f"{os.path.dirname(sys.executable)}:{os.environ['PATH']}"
    env = {**os.environ, "PATH": path, "TILESWEEP_INTERFACE": "lo"}
    submitted = subprocess.run(["sbatch", "--wait", "--ntasks", "2", "--mem-per-cpu", "1G", "--time", "00:10:00",
                                "--output", str(tmp_path / "job.log"), str(script),
                                *map(str, SPEC), "--store", tmp_path / "store", "--out", tmp_path, "--name", "alloc"],
                               cwd=tmp_path, env=env, capture_output=True, text=True, timeout=600)
    log = (tmp_path / "job.log").read_text() if (tmp_path / "job.log").is_file() else ""
    assert submitted.returncode == 0, f"{submitted.stderr}\n{log}"
    assert "--scheduler-file" in json.loads((tmp_path / "alloc" / "client.json").read_text())["command"]
    pd.testing.assert_frame_equal(rows(tmp_path / "alloc"), embedded)
    assert not list(tmp_path.glob("tilesweep-scheduler-*.json"))  # the script cleans up after itself
    assert queued() == []


def test_jobs_held_in_the_queue_are_waited_for_and_said_so(tmp_path):
    """Jobs that never start (held): the sweep says it waits for them, stops after
    --worker-wait with the resume command (exit 1), and cancels them."""
    done = sweep(*SPEC, *JOB[:-2], "--worker-wait", 15, "--cluster-option", 'job_extra_directives=["--hold"]',
                 "--jobs", 1, "--store", tmp_path / "store", "--out", tmp_path, "--name", "held")
    assert done.returncode == 1, done.stderr
    assert "waiting for workers: 0 of 1 Slurm job(s) submitted run a worker after" in done.stderr
    assert "(the queue says why: squeue --me)" in done.stderr
    assert "no Dask worker joined the scheduler" in done.stderr and "resume with:" in done.stderr
    wait_for(lambda: queued() == [], what="the held job cancelled", timeout=60)


def test_a_worker_job_cancelled_mid_sweep_costs_no_row(tmp_path):
    """``scancel`` of one of two worker jobs while the sweep runs: the other finishes it."""
    count = 60  # breadth-first searches, one a chunk: seconds of work for two workers
    spec = ["--size", 3, "--count", count, "--seed", 8, "--algorithm", "bfs", "--chunk-size", 1]
    argv = [*CLI, "sweep", *map(str, spec), *map(str, JOB), "--jobs", 2, "--out", tmp_path, "--name", "scancel"]
    folder = tmp_path / "scancel"
    with subprocess.Popen(list(map(str, argv)), cwd=ROOT, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                          text=True) as proc:
        wait_for(lambda: len(list((folder / "results").glob("part-*.parquet"))) >= 2 or proc.poll() is not None,
                 what="two parts written", timeout=300)
        victim = queued()[0].split()[0]
        subprocess.run(["scancel", victim], check=True)
        out, err = proc.communicate(timeout=300)
    assert proc.returncode == 0, err
    table = rows(folder)
    assert len(table) == count and table["instance"].nunique() == count and (table["status"] == "solved").all()
    assert queued() == []


def test_a_job_no_node_can_satisfy_is_one_line_before_any_wait(tmp_path):
    """A worker job Slurm would refuse (more memory than the node has): one line quoting
    Slurm's reason and the options given, exit 2, and nothing left queued."""
    job = [*JOB[:4], "--cluster-option", "memory=900TB", *JOB[6:]]
    done = sweep(*SPEC, *job, "--jobs", 1, "--store", tmp_path / "store", "--out", tmp_path, "--name", "refused")
    assert done.returncode == 2, done.stderr
    error = [line for line in done.stderr.splitlines() if line.startswith("error:")]
    assert len(error) == 1 and "Slurm refuses the worker job" in error[0] and "memory=900TB" in error[0], done.stderr
    assert "Traceback" not in done.stderr and "waiting for workers" not in done.stderr
    assert queued() == []
