"""Endings of a sweep on its embedded cluster are tilesweep's one line, with no traceback from
the workers or Dask's loggers:

* a terminal's Ctrl-C (SIGINT to the whole process group, workers included) mid-sweep and
  during the cluster's start: ``interrupted`` and the resume command, exit 130; the
  resume finishes the sweep;
* a pattern database damaged on disk: the store's line naming the file, exit 1;
* a Ctrl-C at a moment the command does not report itself (planning): ``error: interrupted``.
"""

import os
import signal
import subprocess

import pytest
from typer.testing import CliRunner

import tilesweep.jobs.sweep as sweep_module
from polling import wait_for
from program import CLI
from test_cluster_finish import ROOT, rows
from tilesweep.cli import app

# bfs solves take ~0.5 s each on the 8-puzzle: a sweep long enough to interrupt
SWEEP = ["sweep", "--size", "3", "--count", "16", "--seed", "9", "--algorithm", "bfs", "--chunk-size", "1",
         "--workers", "2"]


def start(out, *extra):
    """A sweep in a process group of its own, as a terminal starts a command."""
    return subprocess.Popen([*CLI, *SWEEP, "--out", str(out), "--name", "s", *extra], cwd=ROOT,
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, start_new_session=True)


def interrupted_ending(proc, before: str = "") -> str:
    """The resume command of an interrupted sweep, after checking its quiet ending."""
    _, rest = proc.communicate(timeout=300)
    err = before + rest
    assert proc.returncode == 130, err
    assert "Traceback" not in err and "KeyboardInterrupt" not in err and "distributed." not in err, err
    *_, line, resume = err.strip().splitlines()
    assert line.startswith("interrupted: ") and line.endswith("; resume with:"), err
    return resume.strip()


def resume_completes(resume: str, out) -> None:
    words = resume.split()
    done = subprocess.run([*CLI, *words[words.index("sweep"):]], cwd=ROOT, capture_output=True, text=True,
                          timeout=600)
    assert done.returncode == 0, done.stderr
    assert sorted(rows(out / "s")["instance"]) == list(range(16))


@pytest.mark.cluster
def test_ctrl_c_mid_sweep_is_one_line_and_resumes(tmp_path):
    proc = start(tmp_path)
    wait_for(lambda: list((tmp_path / "s" / "results").glob("part-*.parquet")), what="a part", every=0.02)
    os.killpg(proc.pid, signal.SIGINT)
    resume_completes(interrupted_ending(proc), tmp_path)


@pytest.mark.cluster
def test_ctrl_c_while_the_cluster_starts_is_one_line(tmp_path):
    proc = start(tmp_path)
    before = ""
    while not before.endswith(f"-> {tmp_path / 's'}\n"):  # planned: the cluster starts now
        line = proc.stderr.readline()
        assert line, before
        before += line
    os.killpg(proc.pid, signal.SIGINT)
    resume_completes(interrupted_ending(proc, before), tmp_path)


@pytest.mark.cluster
def test_a_damaged_store_is_the_stores_line(tmp_path):
    store = tmp_path / "store"
    built = subprocess.run([*CLI, "pdb", "build", "--size", "3", "--partition", "4-4", "--store", str(store)],
                           cwd=ROOT, capture_output=True, text=True, timeout=300)
    assert built.returncode == 0, built.stderr
    table = sorted(store.glob("*.npy"))[0]
    data = bytearray(table.read_bytes())
    data[-1] ^= 0x01
    table.write_bytes(bytes(data))
    done = subprocess.run([*CLI, "sweep", "--size", "3", "--count", "8", "--heuristic", "pdb:4-4", "--store",
                           str(store), "--workers", "1", "--out", str(tmp_path / "out")],
                          cwd=ROOT, capture_output=True, text=True, timeout=300)
    assert done.returncode == 1, done.stderr
    assert "Traceback" not in done.stderr and "Compute Failed" not in done.stderr, done.stderr
    errors = [line for line in done.stderr.splitlines() if line.startswith("error:")]
    assert errors == [done.stderr.strip().splitlines()[-1]], done.stderr
    assert f"pattern database {table} was altered" in errors[0]


def test_ctrl_c_while_planning_is_one_line(tmp_path, monkeypatch):
    def planning(*args):
        os.kill(os.getpid(), signal.SIGINT)  # a real SIGINT to this process, as a terminal sends

    monkeypatch.setattr(sweep_module, "prepare", planning)
    result = CliRunner().invoke(app, ["sweep", "--count", "4", "--workers", "1", "--out", str(tmp_path)])
    assert result.exit_code == 130 and result.stderr == "error: interrupted\n", result.stderr
