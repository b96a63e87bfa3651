"""Inputs past the stated limits are one line quoting the value and the limit, exit 2, before
any work: counts, walks, chunks, local workers, node budgets, goals and tiles of thousands
of digits, on the command line and in a TOML spec; a report that cannot be written is
refused before it is built. Sweeps' own option cases are in ``test_sweep_options.py``."""

import os

import pytest
from typer.testing import CliRunner

from tilesweep.cli import app
from tilesweep.cluster.connect import WORKERS_PER_CORE
from tilesweep.jobs.spec import MAX_CHUNKS, build_spec
from tilesweep.jobs.sweep import finish, prepare, run_local

RUNNER = CliRunner()
HUGE = "9" * 5000  # more digits than Python converts to an int


def run(*args):
    """``tilesweep ARGS`` in this process: (exit code, the one line on stderr). An exception
    the command line let through (a traceback in a terminal) fails the test."""
    result = RUNNER.invoke(app, list(map(str, args)), env={"DASK_SCHEDULER_ADDRESS": ""})
    assert result.exception is None or isinstance(result.exception, SystemExit), result.exception
    lines = result.stderr.strip().splitlines()
    assert "Traceback" not in result.stderr and len(lines) == 1, result.stderr
    return result.exit_code, lines[0]


def test_a_node_budget_past_int64_is_refused():
    code, line = run("solve", "123456780", "--max-nodes", 10**21)
    assert code == 2 and "max-nodes 1000000000000000000000 is too large" in line
    assert "from 1 to 1,000,000,000,000,000,000" in line


@pytest.mark.parametrize("goal", [HUGE, f"1 2 3 4 5 6 7 0 {HUGE}"])
def test_a_goal_of_thousands_of_digits_is_refused(goal):
    code, line = run("solve", "123456780", "--goal", goal)
    assert code == 2 and line.startswith("error: goal '") and "out of range 0..8: 999999999... (5,000 digits)" in line


def test_a_tile_of_thousands_of_digits_is_refused():
    code, line = run("solve", f"1 2 3 4 5 6 7 0 {HUGE}")
    assert code == 2 and "out of range 0..8: 999999999... (5,000 digits)" in line


def test_a_sweep_goal_of_thousands_of_digits_is_refused(tmp_path):
    code, line = run("sweep", "--goal", HUGE, "--out", tmp_path)
    assert code == 2 and "999999999... (5,000 digits)" in line
    assert not any(tmp_path.iterdir())  # refused before any work


def limit_of_workers() -> int:
    return WORKERS_PER_CORE * (os.cpu_count() or 1)


def test_more_local_workers_than_the_machine_runs_are_refused(tmp_path):
    code, line = run("sweep", "--workers", 100000, "--out", tmp_path)
    assert code == 2
    assert f"workers 100000 is more than this machine runs well: expected at most {limit_of_workers()}" in line
    assert not any(tmp_path.iterdir())


def test_the_limits_hold_in_a_toml_spec(tmp_path):
    for key, value, fragment in [("workers", 100000, f"expected at most {limit_of_workers()} local worker"),
                                 ("count", 10**12, "count 1000000000000 is too large"),
                                 ("instances", '"walk:100000000000"', "a walk of at most 1,000,000 moves"),
                                 ("max-nodes", 10**21, "from 1 to 1,000,000,000,000,000,000"),
                                 ("count", HUGE, "is not valid TOML")]:
        spec = tmp_path / "spec.toml"
        spec.write_text(f"[sweep]\n{key} = {value}\nout = {str(tmp_path / 'out')!r}\n")
        code, line = run("sweep", spec)
        assert code == 2 and fragment in line, (key, line)
    assert not (tmp_path / "out").exists()


def test_a_chunk_size_making_too_many_chunks_is_refused_and_auto_stays_within(tmp_path):
    code, line = run("sweep", "--count", 1_000_000, "--chunk-size", 1, "--out", tmp_path)
    assert code == 2 and f"chunk-size 1 splits 1,000,000 instances into 1,000,000 chunks; expected at most " \
                         f"{MAX_CHUNKS:,} chunks" in line and "a chunk size of at least 10" in line
    spec, _ = build_spec({"count": 10**9, "out": str(tmp_path)})
    assert spec.n_chunks <= MAX_CHUNKS and spec.chunk_size * spec.n_chunks >= spec.count


@pytest.fixture(scope="module")
def finished(tmp_path_factory):
    spec, _ = build_spec(dict(size=3, count=4, seed=1, out=str(tmp_path_factory.mktemp("sweeps")), name="done"))
    run_local(prepare(spec))
    finish(spec)
    return spec.folder


@pytest.mark.parametrize("out, fragment", [("/proc/nope.html", "--out '/proc' cannot be written"),
                                           ("/proc", "--out '/proc' is a folder")])
def test_a_report_that_cannot_be_written_is_refused_first(finished, out, fragment):
    code, line = run("report", finished, "--out", out)
    assert code == 2 and fragment in line
