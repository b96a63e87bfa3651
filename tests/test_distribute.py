"""tests/distribute.py: a run without -n uses two workers; a module-scoped fixture's tests and
each one-worker tier stay on one worker; -p no:xdist still runs. Small pytest runs of their
own, with only this plugin."""

import os
import subprocess
import sys
from collections import defaultdict
from pathlib import Path

import pytest

TESTS = Path(__file__).resolve().parent

RECORD = '''
import os

import pytest


def record(kind):
    with open("workers.txt", "a") as out:
        out.write(f"{kind} {os.environ.get('PYTEST_XDIST_WORKER', 'main')}\\n")
'''
SHARED = RECORD + '''

@pytest.fixture(scope="module")
def made_once():
    return 1


@pytest.mark.parametrize("i", range(4))
def test_shared(made_once, i):
    record("shared")


@pytest.mark.parametrize("i", range(4))
def test_alone(i):
    record("alone")
'''
DOCKER = RECORD + '''
pytestmark = pytest.mark.docker


@pytest.mark.parametrize("i", range(3))
def test_docker(i):
    record("docker")
'''


def run(folder: Path, *args: str) -> dict[str, set[str]]:
    """Run pytest in ``folder`` with the plugin; each kind of test -> the workers it ran on."""
    (folder / "test_shared.py").write_text(SHARED)
    (folder / "test_docker_a.py").write_text(DOCKER)
    (folder / "test_docker_b.py").write_text(DOCKER)
    env = {**os.environ, "PYTHONPATH": os.pathsep.join(filter(None, [str(TESTS), os.environ.get("PYTHONPATH")]))}
    env.pop("PYTEST_ADDOPTS", None)
    for name in [name for name in env if name.startswith("PYTEST_XDIST_")]:
        env.pop(name)  # run from an xdist worker, the inner run would report the outer worker's name
    done = subprocess.run([sys.executable, "-m", "pytest", "-q", "-p", "distribute", "-p", "no:cacheprovider",
                           "-W", "ignore::pytest.PytestUnknownMarkWarning", *args],
                          cwd=folder, env=env, capture_output=True, text=True, timeout=300)
    assert done.returncode == 0, done.stdout[-3000:] + done.stderr[-3000:]
    workers = defaultdict(set)
    for line in (folder / "workers.txt").read_text().splitlines():
        kind, worker = line.split()
        workers[kind].add(worker)
    return workers


@pytest.mark.skipif(len(os.sched_getaffinity(0)) < 2, reason="one usable core: runs stay in one process")
@pytest.mark.skipif(pytest.version_tuple[:2] >= (9, 2), reason="pytest 9.2 makes pytest-xdist drop the groups "
                    "(pytest-xdist issue 1386); the test extra asks for pytest<9.2: pip install -e '.[test]'")
@pytest.mark.slow  # runs a pytest session of its own
def test_a_run_without_n_uses_two_workers_and_keeps_each_group_on_one(tmp_path):
    workers = run(tmp_path)
    assert len(workers["shared"]) == 1 and len(workers["docker"]) == 1, workers
    assert set().union(*workers.values()) == {"gw0", "gw1"}, workers


def test_one_process_without_xdist(tmp_path):
    assert run(tmp_path, "-p", "no:xdist") == {"shared": {"main"}, "alone": {"main"}, "docker": {"main"}}
