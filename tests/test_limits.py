"""Statuses and the limits a solve runs under: node budget, time limit, memory budget."""

import json
import time

import numpy as np
import pytest

from tilesweep.solver import Board, InvalidOptionError, solve
from tilesweep.solver.jit import kernel
from tilesweep.solver.limits import CHECK_EVERY, CPU_CLOCK, WALL_CLOCK, make_limits, monotonic_ns, next_check
from tilesweep.solver.solve import BYTES_PER_STATE
from tilesweep.solver.status import OUTCOMES, REASONS, STATUSES

KORF_1 = "14 13 15 7 11 12 9 5 6 0 2 1 4 8 10 3"  # 276,361,933 IDA* nodes: seconds of search
KORF_79 = "0 1 9 7 11 13 5 3 14 12 4 2 8 6 10 15"


@kernel
def _clock_pair():
    return monotonic_ns()


@kernel
def _first_check(limits):
    return next_check(0, limits)


def test_kernel_clock_is_pythons_monotonic_clock():
    before = time.monotonic_ns()
    inside = _clock_pair()
    after = time.monotonic_ns()
    assert before <= inside <= after


def test_every_kernel_outcome_is_in_the_vocabulary():
    for status, reason in OUTCOMES.values():
        assert status in STATUSES
        assert reason is None or reason in REASONS[status]


def test_node_budget_has_reason_nodes():
    result = solve(Board.parse(KORF_1), "blank-first", "idastar", "manhattan", max_nodes=1000)
    assert (result.status, result.status_reason, result.nodes_generated) == ("budget_exceeded", "nodes", 1000)
    assert result.max_nodes == 1000 and result.time_limit is None


@pytest.mark.parametrize("algorithm", ["idastar", "astar"])
def test_time_limit_ends_a_long_solve_as_timeout(algorithm):
    result = solve(Board.parse(KORF_1), "blank-first", algorithm, "manhattan", max_nodes=10**12,
                   time_limit=0.2, max_memory="4GB")
    assert (result.status, result.status_reason, result.cost, result.moves) == ("timeout", None, None, None)
    assert result.time_limit == 0.2 and result.nodes_generated > 0
    assert 0.2 <= result.seconds < 0.2 + 0.5  # one check interval is milliseconds; slack for a busy machine


def test_a_solve_within_its_time_limit_keeps_its_exact_node_count():
    result = solve(Board.parse(KORF_79), "blank-first", "idastar", "manhattan", time_limit=600)
    assert (result.status, result.nodes_generated, result.cost) == ("solved", 540_860, 42)


@pytest.mark.parametrize("algorithm", ["idastar", "astar", "bfs", "dfs"])
def test_a_time_limit_shorter_than_one_check_interval_is_honoured(algorithm):
    """0.1 ms passes long before CHECK_EVERY nodes (at ~15 ns a node, 65,536 take ~1 ms):
    the clock is read often enough to stop there, not at the first full interval."""
    result = solve(Board.parse(KORF_1), "blank-first", algorithm, "manhattan", time_limit=0.0001, max_memory="1GB")
    assert (result.status, result.time_limit) == ("timeout", 0.0001)
    assert 0 < result.nodes_generated < CHECK_EVERY


def test_the_check_interval_shrinks_with_the_time_limit():
    assert [int(_first_check(make_limits(10**9, t))) for t in (None, 10.0, 0.0001, 1e-9)] == \
        [CHECK_EVERY, CHECK_EVERY, 100, 1]


def test_solve_command_honours_a_tiny_time_limit():
    """An 8-puzzle BFS (~0.3 s) under --time-limit 0.0001 ends as timeout."""
    from typer.testing import CliRunner

    from tilesweep.cli import app
    result = CliRunner().invoke(app, ["solve", "8 6 7 2 5 4 3 0 1", "-a", "bfs", "--time-limit", "0.0001", "--json"])
    assert result.exit_code == 0, result.output
    assert json.loads(result.stdout)["status"] == "timeout"


@pytest.mark.parametrize("algorithm", ["astar", "bfs", "dfs"])
def test_memory_budget_stops_graph_search(algorithm):
    result = solve(Board.parse(KORF_1), "blank-first", algorithm, "manhattan", max_nodes=10**12,
                   max_memory="8MB")
    assert (result.status, result.status_reason, result.max_memory) == ("budget_exceeded", "memory", 8_000_000)
    cap = 8_000_000 // BYTES_PER_STATE[algorithm]
    assert cap // 4 < result.nodes_generated < 4 * cap  # boards stored stay under the cap


def test_memory_budget_does_not_change_a_solve_that_fits():
    board = Board.parse("8 6 7 2 5 4 3 0 1")
    free = solve(board, "blank-last", "astar", "manhattan")
    capped = solve(board, "blank-last", "astar", "manhattan", max_memory="64MiB")
    assert capped.status == "solved" and capped.nodes_generated == free.nodes_generated
    assert capped.max_memory == 64 << 20 and free.max_memory is None


def test_idastar_has_no_memory_budget():
    result = solve(Board.parse("8 6 7 2 5 4 3 0 1"), "blank-last", "idastar", "manhattan", max_memory="1GB")
    assert result.max_memory is None and result.status == "solved"


@pytest.mark.parametrize("bad", [0, -1, "soon", "nan", "inf", True])
def test_bad_time_limit_is_refused(bad):
    with pytest.raises(InvalidOptionError, match="time-limit"):
        solve(Board.parse("8 6 7 2 5 4 3 0 1"), "blank-last", "idastar", "manhattan", time_limit=bad)


@pytest.mark.parametrize("bad", ["lots", "12XB", "100", 1000, "-5MB"])
def test_bad_memory_budget_is_refused(bad):
    with pytest.raises(InvalidOptionError, match="max-memory"):
        solve(Board.parse("8 6 7 2 5 4 3 0 1"), "blank-last", "astar", "manhattan", max_memory=bad)


def test_limits_array_is_int64():
    limits = make_limits(5, 0.5, 7)
    assert limits.dtype == np.int64 and limits.tolist() == [5, 500_000_000, 7, WALL_CLOCK]
    assert make_limits(5, 0.5, 7, cpu_clock=True).tolist() == [5, 500_000_000, 7, CPU_CLOCK]


@pytest.mark.slow
def test_korf100_with_a_time_limit(tmp_path):
    """A sweep of Korf's 100 with --time-limit 0.5: the easy instances solve with the node
    counts of unlimited solves, the rest end as timeout after at least the limit.
    (benchmarks/time_limit.py measures how far past it.)"""
    from tilesweep.jobs.results import load_results
    from tilesweep.jobs.spec import build_spec
    from tilesweep.jobs.sweep import prepare, run_local

    spec, _ = build_spec(dict(instances="korf100", algorithms=("idastar",), heuristics=("manhattan",),
                              time_limit=0.5, out=str(tmp_path), name="korf", chunk_size=25))
    run_local(prepare(spec))
    rows = load_results(spec.folder)
    assert len(rows) == 100 and set(rows["status"]) == {"solved", "timeout"} and (rows["time_limit"] == 0.5).all()
    timeouts = rows[rows["status"] == "timeout"]
    assert (timeouts["seconds"] >= 0.5).all() and timeouts["cost"].isna().all()
    for _, row in rows[rows["status"] == "solved"].iterrows():
        free = solve(Board.parse(row["tiles"]), "blank-first", "idastar", "manhattan")
        assert free.nodes_generated == row["nodes_generated"], row["instance"]
