"""Checkpointed split search, in one process: a search resumed from any state it recorded
counts exactly as the uninterrupted serial search, and a damaged record is refused."""

import hashlib
import json

import numpy as np
import pytest
from typer.testing import CliRunner

from tilesweep.cli import app
from tilesweep.jobs.checkpoints import _canonical, folder_checkpoints, list_checkpoints, read_checkpoint
from tilesweep.solver import Board, solve
from tilesweep.solver.checkpoint import CheckpointError, DoneChunk, state_from_dict
from tilesweep.solver.frontier import expand
from tilesweep.solver.heuristics import kernel_heuristic, parse_heuristic
from tilesweep.solver.limits import make_limits
from tilesweep.solver.splitsearch import local_chunks, local_runner
from tilesweep.solver.subtrees import subtrees_call

COUNTS = ("status", "cost", "moves", "nodes_generated", "nodes_expanded", "iterations")


def counts(result) -> tuple:
    return tuple(getattr(result, name) for name in COUNTS)


def recorded_states(board, depth, complete=False) -> list[dict]:
    """Every state the split search records on ``board``, as JSON would give it back."""
    states = []

    def checkpoints(identity, n_nodes):
        return None, lambda s: states.append(json.loads(json.dumps(s.to_dict())))
    solve(board, "blank-first", split=local_runner(depth, 2, complete, checkpoints=checkpoints))
    return states


def resumed(board, depth, state: dict, complete=False):
    def checkpoints(identity, n_nodes):
        return state_from_dict(state, n_nodes), None
    return solve(board, "blank-first", split=local_runner(depth, 2, complete, checkpoints=checkpoints))


@pytest.mark.parametrize("number, depth", [(12, 6), (79, 2)])
def test_resumed_from_every_state_counts_as_serial(korf100, number, depth):
    board = Board(korf100[number], 4)
    serial = solve(board, "blank-first")
    states = recorded_states(board, depth)
    assert any(s["done"] and len(s["done"]) < s["chunks"] for s in states)  # mid-iteration records
    assert states[-1]["status"] == 0 and states[-1]["moves"] == serial.moves
    for state in states:
        again = resumed(board, depth, state)
        assert counts(again) == counts(serial)


def test_whole_last_iteration_resumed(korf100):
    board = Board(korf100[12], 4)
    whole = solve(board, "blank-first", split=local_runner(6, 2, complete_last_iteration=True))
    for state in recorded_states(board, 6, complete=True)[-6:]:
        again = resumed(board, 6, state, complete=True)
        assert counts(again) == counts(whole)
        assert again.extra["nodes_last_iteration"] == whole.extra["nodes_last_iteration"]


def test_a_chunk_recorded_after_the_goal_is_not_counted(korf100):
    """On Dask a later chunk can finish (and be recorded) before the chunk with the goal: a
    resumed search drops it from the count, as serial IDA* never reaches it."""
    board = Board(korf100[12], 4)
    serial = solve(board, "blank-first")
    states = recorded_states(board, 6)
    start = next(s for s in states if len(s["iterations"]) == len(serial.iterations) - 1 and not s["done"])
    H = kernel_heuristic(parse_heuristic("manhattan", 4, _goal()), 4, _goal())
    frontier = expand(board.tiles, 4, _goal(), H, 6)
    top = frontier.at(start["bound"], 1 << 30)
    search = local_chunks(subtrees_call(4, _goal(), H))
    chunks = frontier.chunks(top.roots, np.ones(len(top.roots)), 8)
    later = search(chunks[-1:], start["bound"], False, make_limits(1 << 60))
    on_path = [i for i in top.roots if serial.moves.startswith(frontier.path(i))]
    assert frontier.rank[on_path[0]] < frontier.rank[chunks[-1].ids[0]] and later[0].generated > 0
    state = dict(start, done=[DoneChunk.of(later[0]).__dict__])
    assert counts(resumed(board, 6, state)) == counts(serial)


def _goal():
    from tilesweep.solver.board import goal_tiles
    return goal_tiles("blank-first", 4)


def test_cli_checkpoint_folder_and_status(tmp_path):
    runner = CliRunner()
    args = ["solve", "0 1 9 7 11 13 5 3 14 12 4 2 8 6 10 15", "--goal", "blank-first", "--json"]
    plain = json.loads(runner.invoke(app, args).stdout)
    first = runner.invoke(app, [*args, "--checkpoint", str(tmp_path / "run")])
    again = runner.invoke(app, [*args, "--checkpoint", str(tmp_path / "run")])  # from the finished record
    for out in (first, again):
        row = json.loads(out.stdout)
        assert [row[k] for k in COUNTS] == [plain[k] for k in COUNTS]
    shown = runner.invoke(app, ["status", str(tmp_path / "run")])
    assert shown.exit_code == 0 and "solved after 8 iterations, 540,860 nodes" in shown.stdout


def test_checkpoint_needs_a_folder_and_idastar(tmp_path):
    runner = CliRunner()
    board = "0 1 9 7 11 13 5 3 14 12 4 2 8 6 10 15"
    (tmp_path / "file").write_text("")
    out = runner.invoke(app, ["solve", board, "--checkpoint", str(tmp_path / "file" / "b")])
    assert out.exit_code == 2 and "is a file" in out.stderr
    out = runner.invoke(app, ["solve", board, "--checkpoint", str(tmp_path / "file")])
    assert out.exit_code == 2 and "is a file" in out.stderr
    out = runner.invoke(app, ["solve", board, "-a", "astar", "--checkpoint", str(tmp_path)])
    assert out.exit_code == 2 and "IDA* only" in out.stderr


def _recorded(tmp_path, korf100):
    board = Board(korf100[12], 4)
    states = []

    def keep(identity, n_nodes):
        state, record = folder_checkpoints(tmp_path)(identity, n_nodes)
        return state, lambda s: (record(s), states.append(s))
    solve(board, "blank-first", split=local_runner(6, 2, checkpoints=keep))
    (path,) = (tmp_path / "checkpoints").glob("*.json")
    return board, path


def _resign(data: dict) -> bytes:
    body = {k: data[k] for k in ("identity", "label", "state")}
    return _canonical({**data, "sha256": hashlib.sha256(_canonical(body)).hexdigest()})


@pytest.mark.parametrize("damage, reason", [
    (lambda b: b[:len(b) // 2], "not JSON"),
    (lambda b: b.replace(b'"generated":', b'"generated":1', 1), "sha256 does not match"),
    (lambda b: _resign(json.loads(b) | {"state": json.loads(b)["state"] | {"bound": True}}), "'bound'"),
    (lambda b: _resign(json.loads(b) | {"state": json.loads(b)["state"] | {"sizes": [0]}}), "'sizes'"),
    (lambda b: _resign(json.loads(b) | {"state": json.loads(b)["state"] | {"moves": "__import__('os')"}}),
     "'moves'"),
    (lambda b: _resign(json.loads(b) | {"identity": json.loads(b)["identity"] | {"heuristic": "misplaced"}}),
     "another solve"),
])
def test_a_damaged_checkpoint_is_refused(tmp_path, korf100, damage, reason):
    board, path = _recorded(tmp_path, korf100)
    path.write_bytes(damage(path.read_bytes()))
    with pytest.raises(CheckpointError, match=reason):
        solve(board, "blank-first", split=local_runner(6, 2, checkpoints=folder_checkpoints(tmp_path)))
    out = CliRunner().invoke(app, ["solve", board.text(), "--goal", "blank-first", "--split-depth", "6",
                                   "--checkpoint", str(tmp_path)])
    assert out.exit_code == 1 and len(out.stderr.strip().splitlines()) == 1 and "is damaged" in out.stderr
    assert "Traceback" not in out.stderr


def test_listed_records_read_whole(tmp_path, korf100):
    _, path = _recorded(tmp_path, korf100)
    (found,) = list_checkpoints(tmp_path)
    assert found.state.status == 0 and found == read_checkpoint(path)


@pytest.mark.slow
def test_status_watch_follows_a_checkpointed_solve_until_it_finishes(tmp_path, korf100):
    """``status --watch`` on a ``solve --checkpoint`` folder refreshes while its solve is
    recorded running, and ends once the record says it finished."""
    import subprocess
    import sys
    import time

    from tilesweep.jobs.checkpoints import checkpoint_path, write_checkpoint
    from tilesweep.solver.checkpoint import state_from_dict

    board, folder = Board(korf100[12], 4), tmp_path / "run"
    saved = []

    def checkpoints(identity, n_nodes):
        return None, lambda s: saved.append((identity, json.loads(json.dumps(s.to_dict())), n_nodes))
    solve(board, "blank-first", split=local_runner(6, 2, checkpoints=checkpoints))
    identity, middle, n_nodes = next(item for item in saved if item[1]["status"] == -1 and item[1]["done"])
    path = checkpoint_path(folder, identity)
    path.parent.mkdir(parents=True)
    write_checkpoint(path, identity, {}, state_from_dict(middle, n_nodes))
    watch = subprocess.Popen([sys.executable, "-m", "tilesweep", "status", str(folder), "--watch"],
                             stdout=subprocess.PIPE, text=True)
    time.sleep(5)
    assert watch.poll() is None  # a running solve: still refreshing
    write_checkpoint(path, identity, {}, state_from_dict(saved[-1][1], n_nodes))  # the solve finished
    out, _ = watch.communicate(timeout=30)
    assert watch.returncode == 0
    assert out.count("subtree chunks of this iteration done") >= 2 and "solved after" in out.splitlines()[-1]
