"""Sweeps whose workers are batch jobs of a real Slurm (``--cluster slurm``), against the
embedded cluster's rows. The single-node Slurm on loopback comes from ``.ci/install-slurm``
(run by ``.ci/install``); the tests skip where Slurm is not installed.
"""

import json
import shutil
import subprocess

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
