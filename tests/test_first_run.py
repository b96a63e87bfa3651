"""A sweep's first run on a machine, with numba's cache empty: its kernels compile once.

* on the embedded cluster the fork server compiles them while the client plans, says so,
  and the workers forked from it start with them (no worker compiles or loads again);
* on workers that are not forked from it (``--scheduler``), started together, one worker
  compiles under the machine's compile lock and the other waits and loads them;
* a second run compiles nothing and says nothing of kernels; its rows equal the first's;
* ``pdb build`` says when it compiles, apart from the table's build time;
* ``tilesweep warm`` compiles ahead: the sweep after it compiles nothing;
* Ctrl-C while the fork server compiles stops the sweep at once, and the server with it.

Each test compiles the IDA* kernels of a 3x3 sweep with Manhattan distance (the cheapest
family: about 20 s of CPU) into a cache of its own.
"""

import os
import signal
import subprocess
from pathlib import Path

import pytest

from program import CLI
from test_cluster_finish import Cluster, rows
from tilesweep.commands.progress import KERNEL_NOTICES
from tilesweep.pdb_store.files import file_lock

pytestmark = [pytest.mark.cluster, pytest.mark.slow]

ROOT = Path(__file__).resolve().parents[1]
SPEC = ["--size", "3", "--count", "40", "--chunk-size", "5", "--algorithm", "idastar", "--heuristic", "manhattan"]
COMPILING = KERNEL_NOTICES["compiling"]
COMPILED = KERNEL_NOTICES["compiled"].split("{")[0]  # "kernels compiled in "


def run(*args, cache: Path) -> subprocess.CompletedProcess:
    done = subprocess.run([*CLI, *map(str, args)], cwd=ROOT, capture_output=True, text=True, timeout=1200,
                          env={**os.environ, "NUMBA_CACHE_DIR": str(cache)})
    assert done.returncode == 0 and "Traceback" not in done.stderr, done.stderr
    return done


def kernel_lines(stderr: str) -> list[str]:
    return [line for line in stderr.splitlines() if line.startswith((COMPILING, COMPILED, "waiting for another"))]


def test_the_fork_server_compiles_once_for_every_embedded_worker(tmp_path):
    cache = tmp_path / "numba"
    first = run("sweep", *SPEC, "--workers", "2", "--out", tmp_path / "a", "--name", "s", cache=cache)
    said = kernel_lines(first.stderr)
    assert said[0] == COMPILING and len(said) == 2 and said[1].startswith(COMPILED), first.stderr
    lines = first.stderr.splitlines()
    progress = [i for i, line in enumerate(lines) if " chunks  " in line]
    assert progress and lines.index(said[1]) < progress[0], "compiled before the first part"
    assert "ETA --:--" not in first.stderr, "every part's pace is measured"
    again = run("sweep", *SPEC, "--workers", "2", "--out", tmp_path / "b", "--name", "s", cache=cache)
    assert kernel_lines(again.stderr) == [], again.stderr
    assert rows(tmp_path / "a" / "s").equals(rows(tmp_path / "b" / "s"))


def test_workers_started_together_compile_once_under_the_lock(tmp_path):
    cache = tmp_path / "numba"
    cluster = Cluster(tmp_path, {**os.environ, "NUMBA_CACHE_DIR": str(cache)})
    try:
        cluster.add_workers(2)  # both up before any task: without the lock each would compile
        first = run("sweep", *SPEC, "--scheduler", cluster.address, "--out", tmp_path / "a", "--name", "s",
                    cache=tmp_path / "client-numba")
    finally:
        cluster.close()
    said = kernel_lines(first.stderr)
    assert said.count(COMPILING) == 1 and sum(line.startswith(COMPILED) for line in said) == 1, first.stderr
    assert [p.parent.name[:7] for p in cache.glob("*/tilesweep-compile.lock")] == ["solver_"]


def test_pdb_build_says_it_compiles_apart_from_the_build(tmp_path):
    cache, store = tmp_path / "numba", tmp_path / "store"
    first = run("pdb", "build", "--size", "3", "--partition", "5-3", "--store", store, cache=cache)
    said = kernel_lines(first.stderr)
    assert said[0] == COMPILING and len(said) == 2 and said[1].startswith(COMPILED), first.stderr
    assert all("(built in " in line for line in first.stdout.splitlines())
    rebuilt = run("pdb", "build", "--size", "3", "--partition", "4-4", "--store", store, cache=cache)
    assert kernel_lines(rebuilt.stderr) == [], rebuilt.stderr


def test_warm_compiles_ahead_of_the_first_sweep(tmp_path):
    cache = tmp_path / "numba"
    first = run("warm", "--size", "3", "--algorithm", "idastar", "--heuristic", "manhattan", cache=cache)
    lines = first.stdout.splitlines()
    assert lines[0] == "3x3 sweeps and solves: compiling…" and "compiled" in lines[1], first.stdout
    assert lines[-1] == f"numba's cache: {cache}"
    again = run("warm", "--size", "3", "--algorithm", "idastar", "--heuristic", "manhattan", cache=cache)
    steps = again.stdout.splitlines()[:-1]
    assert steps and all("ready from numba's cache" in line for line in steps), again.stdout
    swept = run("sweep", *SPEC, "--workers", "2", "--out", tmp_path / "a", cache=cache)
    assert kernel_lines(swept.stderr) == [], swept.stderr


def test_ctrl_c_while_the_fork_server_compiles_stops_both(tmp_path):
    cache = tmp_path / "numba"
    proc = subprocess.Popen([*CLI, "sweep", *SPEC, "--workers", "2", "--out", str(tmp_path / "a")], cwd=ROOT,
                            stderr=subprocess.PIPE, stdout=subprocess.DEVNULL, text=True,
                            env={**os.environ, "NUMBA_CACHE_DIR": str(cache)})
    for line in proc.stderr:
        if line.startswith(COMPILING):
            proc.send_signal(signal.SIGINT)  # a terminal's Ctrl-C: the server blocks SIGINT
            break
    rest = proc.communicate(timeout=300)[1]
    assert proc.returncode == 130 and "\ninterrupted" in f"\n{rest}" and COMPILED not in rest, rest
    assert "Traceback" not in rest, rest
    (lock,) = cache.glob("solver_*/tilesweep-compile.lock")
    with file_lock(lock):  # free once the server is gone: had it gone on, it would have cached the kernel
        assert not list(cache.glob("solver_*/batch_kernels._idastar_tiles_boards*.nbi"))
