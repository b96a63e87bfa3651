"""Kernels compiled ahead and once, and progress that leaves compiling out of its figures.

* a pattern database's stand-in for warming reaches the kernels with the same numba types
  as the real tables, for every heuristic form that reads them;
* :func:`watch_compiles` sees a compile (not a cached or repeated call), its seconds, and
  says so once;
* the compile lock makes a second process wait, and says it waits only past its patience;
* the sweep's progress takes rate and ETA from measured task seconds only.
"""

import json
import os
import subprocess
import sys
import threading
import time
from pathlib import Path

import numba
import numpy as np
import pytest

from tilesweep.cluster import forkwarm
from tilesweep.cluster.run import Progress, task_seconds
from tilesweep.commands.progress import BuildProgressLine, ProgressBar, clock
from tilesweep.jobs import kernels
from tilesweep.pdb_store import BuildProgress
from tilesweep.pdb_store.files import file_lock
from tilesweep.solver.board import goal_tiles
from tilesweep.solver.heuristics import expected_table_size, kernel_heuristic, parse_heuristic
from tilesweep.solver.jit import watch_compiles
from tilesweep.solver.warmup import kernel_family, types_of

GOALS = {3: goal_tiles("blank-last", 3), 4: goal_tiles("blank-first", 4)}


@pytest.mark.parametrize("size, name", [(3, "pdb:4-4"), (3, "pdb:5-3+reflect"), (3, "pdb:1,2,3/4,5,6,7,8"),
                                        (3, "max(pdb:4-4,walking-distance)"), (4, "pdb:7-8+reflect"),
                                        (4, "max(pdb:6-6-3,manhattan)")])
def test_a_pdb_stand_in_has_the_kernel_types_of_the_real_tables(size, name):
    goal = GOALS[size]
    spec = parse_heuristic(name, size, goal)
    # zero tables of the true sizes, untouched (no memory is used): only their type counts
    real = tuple(np.zeros(expected_table_size(size, group), np.uint8) for group in spec.groups)
    stand_in, tables = types_of(spec, size)
    assert stand_in.bases == spec.bases and len(stand_in.groups) == len(spec.groups)
    assert all(t.size == size * size for t in tables), "one-tile tables: size*size entries"
    assert numba.typeof(kernel_heuristic(stand_in, size, goal, tables)) == \
        numba.typeof(kernel_heuristic(spec, size, goal, real))


def test_other_heuristics_stand_for_themselves():
    spec = parse_heuristic("linear-conflict", 3, GOALS[3])
    assert types_of(spec, 3) == (spec, ())


def fresh_kernel():
    """A kernel numba has not compiled yet (not cached: a new one each call)."""
    @numba.njit(cache=False)
    def add_one(x):
        return x + 1
    return add_one


def test_watch_compiles_sees_a_compile_once_and_its_time():
    said = []
    kernel = fresh_kernel()
    with watch_compiles(lambda: said.append("compiling")) as watch:
        assert kernel(1) == 2
        assert kernel(2) == 3  # compiled already: nothing more
    assert said == ["compiling"]
    assert watch.compiled == ["fresh_kernel.<locals>.add_one"] and watch.seconds > 0
    with watch_compiles(lambda: said.append("again")) as again:
        kernel(3)
    assert again.compiled == [] and again.seconds == 0 and said == ["compiling"]


def test_watch_compiles_counts_each_outer_compile():
    first, second = fresh_kernel(), fresh_kernel()
    with watch_compiles() as watch:
        first(1)
        second(1.5)
    assert len(watch.compiled) == 2


def test_the_compile_lock_lives_where_numba_caches_the_kernels(tmp_path):
    """Under ``$NUMBA_CACHE_DIR`` when it is set (read by numba at its import: a new process)."""
    code = ("from tilesweep.jobs import kernels\nwith kernels.compile_lock():\n"
            "    print((kernels.cache_folder() / kernels.LOCK_NAME).is_file(), kernels.cache_folder())")
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=300,
                          env={**os.environ, "NUMBA_CACHE_DIR": str(tmp_path)})
    held, folder = done.stdout.split()
    assert done.returncode == 0 and held == "True", done.stderr
    assert Path(folder).parent == tmp_path and Path(folder).name.startswith("solver_")


@pytest.mark.slow  # waits out a patience on purpose
def test_a_second_holder_waits_and_says_so_only_past_its_patience(tmp_path):
    lock = tmp_path / "compile.lock"
    said, order = [], []

    def second():
        with file_lock(lock, on_wait=lambda: said.append("waiting"), patience=0.2):
            order.append("second")

    with file_lock(lock):
        waiter = threading.Thread(target=second)
        waiter.start()
        waiter.join(2.0)
        assert waiter.is_alive() and said == ["waiting"] and order == []  # blocked, and told so
        order.append("first")
    waiter.join(10)
    assert order == ["first", "second"]
    with file_lock(lock, on_wait=lambda: said.append("unsaid"), patience=0.2):
        pass  # free: taken at once, nothing said
    assert said == ["waiting"]


def test_the_fork_server_request_round_trips_and_nothing_runs_without_it(tmp_path, monkeypatch):
    status = tmp_path / "status"
    text = forkwarm.request(3, GOALS[3], (("astar", "manhattan"), ("idastar", "pdb:4-4")), "uniform", status)
    asked = json.loads(text)
    assert asked["combos"] == [["astar", "manhattan"], ["idastar", "pdb:4-4"]]
    assert asked["goal"] == list(GOALS[3]) and asked["status"] == str(status)
    assert status.read_text() == "pending"
    monkeypatch.delenv(forkwarm.ENV, raising=False)
    forkwarm.warm_from_env()  # no request: returns at once, compiles nothing
    assert status.read_text() == "pending"


def test_the_client_follows_what_the_fork_server_says(tmp_path):
    status, heard = tmp_path / "status", []
    forkwarm.write_status(status, "pending")

    def server():
        for words in (["warming"], ["waiting"], ["compiling"], ["done", 12.5]):
            time.sleep(0.3)
            forkwarm.write_status(status, *words)

    writer = threading.Thread(target=server)
    writer.start()
    forkwarm.follow(status, heard.append, poll=0.05)
    writer.join()
    assert heard == [{"state": "waiting"}, {"state": "compiling"}, {"state": "compiled", "seconds": 12.5}]
    assert not status.exists(), "removed once followed"
    forkwarm.follow(status, heard.append)  # followed before: returns at once
    assert len(heard) == 3


def test_kernels_loaded_from_the_cache_are_not_announced(tmp_path):
    status, heard = tmp_path / "status", []
    forkwarm.write_status(status, "done", 0.0)
    forkwarm.follow(status, heard.append)
    assert heard == []


def progress(done=2, measured=1_000, seconds=4.0, workers=2, chunks_done=2, chunks=10):
    return Progress(chunks_done, chunks, done * 500, chunks * 500, done * 500, 100.0, measured, seconds, workers)


def test_eta_comes_from_measured_task_seconds_not_the_wall_clock():
    p = progress()  # 1,000 solves in 4 task seconds on 2 workers: 500/s; 100 s of wall clock ignored
    assert p.rate == 500.0
    assert p.eta == pytest.approx((5_000 - 1_000) / 500.0)


def test_the_last_chunks_do_not_share_workers_they_cannot_use():
    p = progress(done=9, chunks_done=9, measured=4_500, seconds=18.0)  # one chunk left, 2 workers
    assert p.eta == pytest.approx(500 / 250.0), "one chunk runs on one worker at one worker's pace"


def test_no_measure_no_rate_and_no_eta():
    p = progress(measured=0, seconds=0.0)
    assert p.rate is None and p.eta is None and clock(p.eta) == "--:--"


def test_the_progress_line_shows_the_measured_figures(capsys):
    bar = ProgressBar()
    bar(progress())
    bar(progress(measured=0, seconds=0.0, done=3, chunks_done=3))
    lines = capsys.readouterr().err.splitlines()
    assert lines[0].endswith("2/10 chunks  1,000/5,000 solves  500/s  ETA 0:08")
    assert lines[1].endswith("3/10 chunks  1,500/5,000 solves  --/s  ETA --:--")


def test_the_progress_says_what_the_kernels_do(capsys):
    bar = ProgressBar()
    bar.kernels({"state": "compiling"})
    bar.kernels({"state": "compiled", "seconds": 41.27})
    bar.kernels({"state": "something else"})
    assert capsys.readouterr().err.splitlines() == ["compiling kernels (first run only)…",
                                                    "kernels compiled in 41.3 s"]


def test_a_task_table_carries_its_seconds():
    import pyarrow as pa
    table = pa.table({"x": [1]})
    assert task_seconds(table) is None
    assert task_seconds(table.replace_schema_metadata({"tilesweep.task_seconds": "1.5"})) == 1.5


def test_a_table_builds_eta_waits_for_a_tenth_of_its_entries(capsys):
    line = BuildProgressLine()
    line(BuildProgress((1, 2, 3), 1, 3, 1_000_000, 0.2, 4, 3))  # 15/s: 18 hours, were it believed
    # 200,000 states expanded in 2 s; 100,000 to expand and 800,000 placements at 1.5 states each
    line(BuildProgress((1, 2, 3), 9, 200_000, 1_000_000, 2.0, 300_000, 100_000))
    first, second = capsys.readouterr().err.splitlines()
    assert first.endswith("(0 %)  15/s  ETA --:--")
    assert second.endswith("(20 %)  100,000/s  ETA 0:13")


def test_a_builds_progress_counts_its_blank_aware_states():
    """The states the ETA is estimated from are the (placement, blank region) states a naive
    search over (tile cells, blank cell) reaches, each counted in the layer that found it."""
    from naive_pdb import adjacent
    from tilesweep.pdb_store.build import build_table
    size, goal, group = 3, (1, 2, 3, 4, 5, 6, 7, 8, 0), (1, 2, 3, 4)
    start = (tuple(goal.index(t) for t in group), goal.index(0))
    reached, todo = {start}, [start]
    while todo:
        cells, blank = todo.pop()
        for cell in adjacent(blank, size):
            after = (tuple(blank if c == cell else c for c in cells), cell)
            if after not in reached:
                reached.add(after)
                todo.append(after)

    def region(cells, blank):
        found, todo = {blank}, [blank]
        while todo:
            for cell in adjacent(todo.pop(), size):
                if cell not in cells and cell not in found:
                    found.add(cell)
                    todo.append(cell)
        return frozenset(found)
    seen = []
    build_table(size, goal, group, on_layer=seen.append)
    assert seen[-1].states == len({(cells, region(cells, blank)) for cells, blank in reached})
    assert seen[-1].states == 1 + sum(p.frontier for p in seen)
    assert all(p.remaining_seconds() is None or p.remaining_seconds() >= 0 for p in seen)


@pytest.mark.parametrize("args, quoted", [(["--size", "7"], "size 7"), (["--algorithm", "greedy"], "'greedy'"),
                                          (["--size", "3", "--heuristic", "pdb:7-8"], "'7-8'"),
                                          (["--heuristic", "fastest"], "'fastest'")])
def test_warm_refuses_bad_input_with_one_line(args, quoted):
    from typer.testing import CliRunner

    from tilesweep.cli import app
    result = CliRunner().invoke(app, ["warm", *args])
    lines = result.stderr.strip().splitlines()
    assert result.exit_code == 2 and len(lines) == 1 and quoted in lines[0], result.output
    assert result.stdout == ""


def test_only_the_builds_of_missing_tables_are_warmed(tmp_path, monkeypatch):
    from tilesweep.jobs import kernels
    from tilesweep.pdb_store import open_store
    warmed = []
    monkeypatch.setattr(kernels, "warm_build", lambda size, groups: warmed.append((size, list(groups))))
    goal = GOALS[3]
    with open_store(tmp_path) as store:
        store.build(3, goal, (1, 2, 3, 4))
    kernels.warm_missing_builds(str(tmp_path), 3, goal, ["pdb:4-4", "manhattan"])
    kernels.warm_missing_builds(str(tmp_path / "none"), 3, goal, ["pdb:5-3"])
    with open_store(tmp_path) as store:
        store.build(3, goal, (5, 6, 7, 8))
    kernels.warm_missing_builds(str(tmp_path), 3, goal, ["pdb:4-4"])
    assert warmed == [(3, [(5, 6, 7, 8)]), (3, [(4, 5, 6, 7, 8), (1, 2, 3)])]  # blank-last: groups flip


def test_kernel_families_follow_the_packed_astar_kernels():
    """Heuristics that reach one packed A* kernel are one family; the first family stays in
    the warming process, the others go to the second one."""
    goal = GOALS[3]
    combos = [("astar", "manhattan"), ("astar", "misplaced"), ("astar", "linear-conflict"), ("astar", "pdb:4-4"),
              ("astar", "pdb:5-3"), ("idastar", "pdb:4-4")]
    first, rest = kernels.split_families(3, goal, combos, "parent")
    assert first == [("astar", "manhattan"), ("astar", "misplaced")]
    assert rest == [("astar", "linear-conflict"), ("astar", "pdb:4-4"), ("astar", "pdb:5-3"), ("idastar", "pdb:4-4")]
    assert kernels.split_families(3, goal, [], "parent") == ([], [])
    families = {kernel_family(3, goal, "astar", name, prune) for name in ("manhattan", "pdb:4-4")
                for prune in ("parent", "fsm:2")}
    assert len(families) == 4  # with a pruning automaton the general kernel runs: a family per heuristic


TWO_AT_ONCE = """
from tilesweep.jobs.kernels import warm_sweep_kernels
from tilesweep.solver.board import goal_tiles
from tilesweep.solver.jit import watch_compiles
with watch_compiles() as watch:
    warm_sweep_kernels(3, goal_tiles("blank-last", 3), [("astar", "manhattan"), ("astar", "linear-conflict"),
                       ("astar", "pdb:4-4")], two_at_once=True)
print(" ".join(watch.compiled))
"""


@pytest.mark.slow
def test_the_second_process_compiles_the_other_families_into_the_cache(tmp_path):
    """In an empty numba cache: the warming process compiles the first family's kernel and
    loads the others, which the second process compiled meanwhile; with the cache full,
    nothing compiles and no second process starts."""
    env = {**os.environ, "NUMBA_CACHE_DIR": str(tmp_path)}
    done = subprocess.run([sys.executable, "-c", TWO_AT_ONCE], capture_output=True, text=True, timeout=900, env=env)
    assert done.returncode == 0, done.stderr
    compiled = done.stdout.split()
    assert "_astar_boards_tiles" in compiled
    assert "_astar_boards_lines" not in compiled and "_astar_boards_pdb" not in compiled
    again = subprocess.run([sys.executable, "-c", TWO_AT_ONCE], capture_output=True, text=True, timeout=900, env=env)
    assert again.returncode == 0 and again.stdout.split() == [], again.stderr
