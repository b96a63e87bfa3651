"""Parallel IDA* on a real Dask cluster: the same completed-iteration counts, cost and (with
the whole last iteration) the same last-iteration count and moves as in one process."""

import json
import os
import signal
import threading
import time

import pytest
from typer.testing import CliRunner

from tilesweep.cli import app
from tilesweep.cluster.connect import connect
from tilesweep.cluster.parallel import dask_runner
from tilesweep.pdb_store import open_store, tables_for
from tilesweep.solver import Board, solve
from tilesweep.solver.board import goal_tiles
from tilesweep.solver.heuristics import parse_heuristic
from tilesweep.solver.splitsearch import local_runner

pytestmark = pytest.mark.cluster


def completed(result) -> int:
    return sum(it["nodes_generated"] for it in result.iterations[:-1])


@pytest.fixture(scope="module")
def client():
    with connect(workers=2) as c:
        yield c


@pytest.mark.parametrize("depth", [2, 9])
def test_korf_79_on_two_workers(client, korf100, depth):
    board = Board(korf100[79], 4)
    serial = solve(board, "blank-first")
    for complete in (False, True):
        par = solve(board, "blank-first", split=dask_runner(client, None, depth, complete, small_here=False))
        assert (par.status, par.cost) == ("solved", serial.cost)
        assert par.extra["nodes_completed_iterations"] == completed(serial) == 216_572
        assert par.extra["workers"] == 2 and par.extra["split_depth"] == depth
        assert board.apply(par.moves) == Board.goal(4, "blank-first")
    local = solve(board, "blank-first", split=local_runner(depth, 5, complete_last_iteration=True))
    assert par.extra["nodes_last_iteration"] == local.extra["nodes_last_iteration"]
    assert par.moves == serial.moves


def test_pattern_databases_from_the_workers_plugin(client, tmp_path):
    """The workers map the tables of the given store themselves."""
    goal = goal_tiles("blank-last", 3)
    board = Board((8, 6, 7, 2, 5, 4, 3, 0, 1), 3)
    with open_store(tmp_path) as store:
        tables = tables_for(parse_heuristic("pdb:4-4", 3, goal), 3, goal, store, build=True)
    serial = solve(board, goal, "idastar", "pdb:4-4", tables)
    par = solve(board, goal, "idastar", "pdb:4-4", tables,
                split=dask_runner(client, str(tmp_path), 6, small_here=False))
    assert par.extra["nodes_completed_iterations"] == completed(serial)
    assert par.cost == serial.cost == 31


def test_small_iterations_in_the_client_count_the_same(client, korf100):
    """Korf #12's iterations are small enough for the client to run them all or most."""
    board = Board(korf100[12], 4)
    serial = solve(board, "blank-first")
    par = solve(board, "blank-first", split=dask_runner(client, None, 11, True))
    local = solve(board, "blank-first", split=local_runner(11, 1, complete_last_iteration=True))
    assert par.extra["nodes_completed_iterations"] == completed(serial)
    assert par.extra["nodes_last_iteration"] == local.extra["nodes_last_iteration"]
    assert par.moves == serial.moves


def test_solve_parallel_json_and_text():
    """The command line: the new fields in JSON and text (an embedded 2-worker cluster)."""
    result = CliRunner().invoke(app, ["solve", "8 6 7 2 5 4 3 0 1", "--parallel", "--workers", "2",
                                      "--split-depth", "5", "--complete-last-iteration", "--json"])
    assert result.exit_code == 0, result.output
    data = json.loads(result.stdout)
    serial = solve(Board((8, 6, 7, 2, 5, 4, 3, 0, 1), 3))
    assert data["cost"] == 31 and data["moves"] == serial.moves
    assert data["nodes_completed_iterations"] == completed(serial)
    assert data["nodes_generated"] == data["nodes_completed_iterations"] + data["nodes_last_iteration"]
    assert (data["workers"], data["split_depth"]) == (2, 5)


def test_a_worker_killed_mid_iteration_changes_no_count(korf100):
    """SIGKILL of a worker holding a chunk: the chunk runs again elsewhere; every count is
    the same as without the kill (the whole last iteration searched, so it is fixed too)."""
    board = Board(korf100[12], 4)
    serial = solve(board, "blank-first")
    local = solve(board, "blank-first", split=local_runner(11, 2, complete_last_iteration=True))
    with connect(workers=2) as c:
        pids = c.run(os.getpid)
        out = {}
        runner = dask_runner(c, None, 11, complete_last_iteration=True, small_here=False)
        thread = threading.Thread(target=lambda: out.update(result=solve(board, "blank-first", split=runner)))
        thread.start()
        victim = None
        while victim is None and thread.is_alive():
            busy = [w for w, keys in c.processing().items() if any("search_chunk" in str(k) for k in keys)]
            victim = busy[0] if busy else None
            time.sleep(0.005)
        assert victim is not None, "no chunk was seen on a worker"
        os.kill(pids[victim], signal.SIGKILL)
        thread.join()
    result = out["result"]
    assert (result.status, result.cost, result.moves) == ("solved", serial.cost, serial.moves)
    assert result.extra["nodes_completed_iterations"] == completed(serial)
    assert result.extra["nodes_last_iteration"] == local.extra["nodes_last_iteration"]
