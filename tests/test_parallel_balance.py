"""Parallel IDA* on a real 2-worker cluster: chunks of equal predicted work, the search
stopping where serial IDA* stops with its counts, and running chunks stopped on demand."""

import time

import numpy as np
import pytest

from tilesweep.cluster.connect import connect
from tilesweep.cluster.parallel import SubtreeJob, dask_runner, search_chunk, stop_chunks, warm
from tilesweep.solver import Board, solve
from tilesweep.solver.board import goal_tiles
from tilesweep.solver.frontier import expand
from tilesweep.solver.heuristics import kernel_heuristic, parse_heuristic
from tilesweep.solver.limits import make_limits
from tilesweep.solver.status import BUDGET_NODES

pytestmark = pytest.mark.cluster


@pytest.fixture(scope="module")
def client():
    with connect(workers=2) as c:
        yield c


@pytest.mark.parametrize("number", [79, 12])
def test_stopping_at_the_goal_gives_serial_counts_on_two_workers(client, korf100, number):
    board = Board(korf100[number], 4)
    serial = solve(board, "blank-first")
    for depth in (6, 11):
        par = solve(board, "blank-first", split=dask_runner(client, None, depth, small_here=False))
        assert (par.iterations, par.nodes_expanded, par.moves) == (serial.iterations, serial.nodes_expanded,
                                                                   serial.moves)


def test_a_running_chunk_stops_when_told(client, korf100):
    """A chunk of hours (Korf #88 below depth 2 at bound 80) stops within moments."""
    goal = goal_tiles("blank-first", 4)
    frontier = expand(korf100[88], 4, goal, kernel_heuristic(parse_heuristic("manhattan", 4, goal), 4, goal), 2)
    roots = np.flatnonzero(frontier.depth == 2)
    job = SubtreeJob(4, goal, "manhattan", 0, None)
    client.run(warm, job)
    future = client.submit(search_chunk, job, frontier.chunks(roots, np.ones(len(roots)), 1)[0], 80, False,
                           make_limits(), pure=False)
    deadline = time.monotonic() + 30
    while not any(future.key in keys for keys in client.processing().values()) and time.monotonic() < deadline:
        time.sleep(0.01)
    time.sleep(0.5)
    client.run(stop_chunks, [future.key])
    assert future.result(timeout=10).status == BUDGET_NODES
