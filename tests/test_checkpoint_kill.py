"""Checkpointed solves killed for real: ``tilesweep solve --checkpoint`` (in one process, and
``--parallel`` on a real Dask cluster) is killed with SIGKILL twice, once in the middle of
an iteration (some of its subtree chunks recorded, not all), and run again each time: the
last run's counts, moves and iterations are the uninterrupted serial search's."""

import json
import os
import signal
import subprocess
import sys
import time

import pytest

from tilesweep.jobs.checkpoints import list_checkpoints
from tilesweep.solver import Board, solve

pytestmark = pytest.mark.cluster

KORF_1 = 1  # 276,361,933 nodes with Manhattan distance: seconds here, 16 chunks an iteration at the end
COUNTS = ("status", "cost", "moves", "nodes_generated", "nodes_expanded", "iterations")


def start(folder, tiles, parallel: bool) -> subprocess.Popen:
    args = [sys.executable, "-m", "tilesweep", "solve", tiles, "--goal", "blank-first", "--json",
            "--checkpoint", str(folder)]
    if parallel:
        args += ["--parallel", "--workers", "2"]
    # a session of its own: the embedded cluster's worker processes die with the client
    return subprocess.Popen(args, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                            start_new_session=True)


def state_now(folder):
    """The recorded state of the one solve in ``folder``, or None before the first record."""
    found = list_checkpoints(folder)
    return found[0].state if found else None


def kill_when(process, folder, ready, patience=300.0):
    """SIGKILL ``process`` (its whole session) once ``ready(state)`` holds; the state then."""
    deadline = time.monotonic() + patience
    while time.monotonic() < deadline:
        assert process.poll() is None, f"the solve ended before it was killed: {process.stderr.read()[-2000:]}"
        state = state_now(folder)
        if state is not None and ready(state):
            os.killpg(process.pid, signal.SIGKILL)
            process.wait()
            return state
        time.sleep(0.005)
    os.killpg(process.pid, signal.SIGKILL)
    pytest.fail("the solve never reached the state to kill it in")


@pytest.mark.parametrize("parallel", [False, True], ids=["serial", "parallel"])
def test_killed_twice_then_resumed_counts_as_uninterrupted(tmp_path, korf100, parallel):
    board = Board(korf100[KORF_1], 4)
    serial = solve(board, "blank-first")
    folder = tmp_path / "solve"
    first = kill_when(start(folder, board.text(), parallel), folder,
                      lambda s: len(s.iterations) >= 5 and 0 < len(s.done) < s.chunks)
    assert first.status == -1 and 0 < len(first.done) < first.chunks  # killed mid-iteration
    second = kill_when(start(folder, board.text(), parallel), folder,
                       lambda s: s.resumes == 1 and len(s.iterations) > len(first.iterations))
    assert second.resumes == 1
    last = start(folder, board.text(), parallel)
    out, err = last.communicate(timeout=600)
    assert last.returncode == 0, err[-2000:]
    row = json.loads(out)
    assert [row[k] for k in COUNTS] == [getattr(serial, k) for k in COUNTS]
    assert row["nodes_generated"] == 276_361_933
    final = state_now(folder)
    assert final.resumes == 2 and final.status == 0


def test_a_sweeps_hard_row_resumes_from_the_sweep_folder(tmp_path, korf100):
    """``sweep --parallel-above``: the client killed while its hard row's split search runs;
    the rerun goes on from the row's checkpoint in the sweep folder and writes the row an
    uninterrupted sweep writes."""
    from sweeps_local import local_sweep
    from tilesweep.jobs.results import load_results
    from tilesweep.jobs.schema import TIMING_COLUMNS

    (tmp_path / "boards.txt").write_text(" ".join(map(str, korf100[KORF_1])) + "\n")
    reference = load_results(local_sweep(tmp_path / "serial", "one", instances=str(tmp_path / "boards.txt"),
                                         goal="blank-first", algorithms=("idastar",), heuristics=("manhattan",)))
    words = [sys.executable, "-m", "tilesweep", "sweep", "--instances", str(tmp_path / "boards.txt"), "--goal",
             "blank-first", "--name", "one", "--out", str(tmp_path / "par"), "--workers", "2",
             "--parallel-above", "1000000"]
    folder = tmp_path / "par" / "one"
    client = subprocess.Popen(words, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                              start_new_session=True)
    killed = kill_when(client, folder, lambda s: len(s.iterations) >= 5 and 0 < len(s.done) < s.chunks)
    shown = subprocess.run([sys.executable, "-m", "tilesweep", "status", str(folder)], capture_output=True, text=True)
    assert f"iteration {len(killed.iterations) + 1}, threshold {killed.bound}" in shown.stdout, shown.stdout
    again = subprocess.run(words, capture_output=True, text=True, timeout=600)
    assert again.returncode == 0, again.stderr[-2000:]
    rows = load_results(folder)
    same = [c for c in reference.columns if c not in TIMING_COLUMNS]
    assert rows[same].equals(reference[same]) and rows["worker"].iloc[0].startswith("parallel:2@")
    assert state_now(folder).resumes == 1
