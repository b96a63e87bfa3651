"""The checkout's folders are subpackages of tilesweep and only that: ``import solver`` with the
checkout on ``sys.path`` is refused with the right import, because numba's on-disk cache keys a
kernel by its source file, so a second module name (``solver.astar`` beside
``tilesweep.solver.astar``) would leave entries that break every later solve."""

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from tilesweep.solver import ALGORITHMS, Board
from webui_server import ROOT, Server, request

PACKAGES = ("solver", "pdb_store", "jobs", "cluster", "commands", "webui")
HARDEST = "8 6 7 2 5 4 3 0 1"  # the 8-puzzle farthest from blank-last: 31 moves
SCRIPT = f"""
import sys
sys.path.insert(0, {str(ROOT)!r})
from solver import Board, solve
for algorithm in {ALGORITHMS!r}:
    print(algorithm, solve(Board.parse({HARDEST!r}), "blank-last", algorithm, "manhattan").status)
"""


def refusal(package: str) -> str:
    return f"ImportError: import tilesweep.{package}, not {package}; `pip install -e .` in the checkout installs it"


def run_bare(code: str, cwd: Path, env=None) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-c", f"import sys; sys.path.insert(0, {str(ROOT)!r}); {code}"],
                          cwd=cwd, env=env, capture_output=True, text=True, timeout=600)


@pytest.mark.parametrize("code, package", [*((f"import {p}", p) for p in PACKAGES),
                                           ("from solver import Board, solve", "solver"),
                                           ("from jobs.report import sql", "jobs"),
                                           ("import pdb_store.bfs", "pdb_store")])
def test_a_bare_name_import_is_refused_naming_the_right_one(tmp_path, code, package):
    done = run_bare(code, tmp_path)
    assert done.returncode == 1 and done.stdout == ""
    assert done.stderr.strip().splitlines()[-1] == refusal(package)


def test_the_package_names_import(tmp_path):
    code = "; ".join(f"import tilesweep.{p}" for p in PACKAGES) + "; print('imported')"
    done = subprocess.run([sys.executable, "-c", code], cwd=tmp_path, capture_output=True, text=True, timeout=600)
    assert done.returncode == 0 and done.stdout == "imported\n", done.stderr


def solve_cli(program: list[str], algorithm: str, env: dict) -> dict:
    done = subprocess.run([*program, "solve", HARDEST, "-a", algorithm, "--json"], env=env,
                          capture_output=True, text=True, timeout=1200)
    assert done.returncode == 0, done.stderr
    return json.loads(done.stdout)


def assert_solved(result: dict, algorithm: str) -> None:
    assert result["status"] == "solved" and result["algorithm"] == algorithm
    assert Board.parse(HARDEST).apply(result["moves"]) == Board.goal(3)
    assert algorithm == "dfs" or result["cost"] == 31


@pytest.mark.slow
def test_every_algorithm_solves_after_a_bare_name_script(tmp_path):
    """The sequence that poisoned the cache: a script importing ``solver`` by its bare name run in
    the environment of the installed CLI (the same numba cache: the one the checkout's kernels
    are cached in, which a fresh cache would only compile again), then every algorithm through
    the installed ``tilesweep``, ``python cli.py`` and a running UI."""
    env = dict(os.environ)
    script = tmp_path / "bare.py"
    script.write_text(SCRIPT)
    bare = subprocess.run([sys.executable, str(script)], cwd=tmp_path, env=env, capture_output=True, text=True,
                          timeout=1200)
    assert bare.returncode == 1 and bare.stderr.strip().splitlines()[-1] == refusal("solver")
    installed = [str(Path(sys.executable).parent / "tilesweep")]
    for program in (installed, [sys.executable, str(ROOT / "cli.py")]):
        for algorithm in ALGORITHMS:
            assert_solved(solve_cli(program, algorithm, env), algorithm)
    server = Server(tmp_path / "sweeps", tmp_path / "store", program=installed, cwd=tmp_path, env=env)
    try:
        for algorithm in ALGORITHMS:
            status, text = request(server, "POST", "/api/solve", {"tiles": HARDEST, "algorithm": algorithm})
            assert status == 200, text
            assert_solved(json.loads(text), algorithm)
    finally:
        server.stop()
