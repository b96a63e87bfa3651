"""Shared fixtures: the Korf (1985) instances; the markers of the slow tiers.

Every tier runs by default, as in CI. ``-m "not slow"`` leaves out all slow tiers while
developing: the exhaustive checks (``slow``) and the tiers that start real processes
(``cluster``: Dask schedulers and workers; ``docker``: images and containers; ``browser``:
headless Chromium; ``slurm``: batch jobs of a real Slurm), which count as slow too.
``-m cluster`` and the like run one tier.

A check over every board or entry that CI covers by a seeded sample keeps its exhaustive
variant under the marker ``exhaustive``: skipped unless ``--exhaustive`` is given.

A check parametrized over the goal (``goal_name``) runs on ``blank-first`` in the fast tier and
on ``blank-last`` in the slow one: a developer's minute checks every kernel on one goal, CI on both.

A run without ``-n`` runs on two pytest-xdist workers where two cores are usable, tests spread
by group (the plugin ``tests/distribute.py``).
"""

import collections
import functools
import os
import signal
import sys
import time
from pathlib import Path

# The test run caches bytecode even where PYTHONDONTWRITEBYTECODE is set (this machine sets
# it): the test modules' rewritten asserts, and the package in every CLI subprocess a test
# starts, are compiled once instead of each run (fast tier 177 -> 160 s on two workers).
sys.dont_write_bytecode = False
os.environ.pop("PYTHONDONTWRITEBYTECODE", None)

import pytest
import typer.testing

from dockerized import TIMINGS as DOCKER_TIMINGS
from tilesweep.jobs.published import published_figures
from tilesweep.jobs.sources import KORF100

pytest_plugins = ["distribute"]

# typer's CliRunner builds the click command from the app's signatures on every invoke (34 ms,
# some 15 s of the fast tier): once per app is enough, as no test changes the app's commands.
typer.testing._get_command = functools.cache(typer.testing._get_command)

SLOW_TIERS = {
    "cluster": "starts real Dask schedulers and workers",
    "docker": "builds images and runs containers with the Docker engine",
    "browser": "drives headless Chromium",
    "slurm": "runs sweeps through batch jobs of a real Slurm (.ci/install-slurm starts one)",
    "slurm_multinode": "runs sweeps on a Slurm controller and two compute nodes in containers "
                       "(docker-compose.slurm.yml)",
}


def pytest_addoption(parser):
    parser.addoption("--exhaustive", action="store_true",
                     help="also run the exhaustive variants of sampled checks (marker exhaustive; minutes each)")


def pytest_configure(config):
    # Run as a shell's background job (`.ci/run &`), the tests would inherit SIGINT ignored,
    # and so would every command they start: the Ctrl-C tests need it as a terminal has it.
    if signal.getsignal(signal.SIGINT) == signal.SIG_IGN:
        signal.signal(signal.SIGINT, signal.default_int_handler)
    config.addinivalue_line("markers", "slow: exhaustive or long-running checks (deselect with -m 'not slow')")
    for name, what in SLOW_TIERS.items():
        config.addinivalue_line("markers", f"{name}: {what}; counts as slow")
    config.addinivalue_line("markers", "exhaustive: every case of a check CI samples; runs only with --exhaustive")


def pytest_collection_modifyitems(config, items):
    """A test of a slow tier is slow too, so ``-m "not slow"`` is the fast tier; so are an
    exhaustive variant (skipped without ``--exhaustive``) and a check's second goal."""
    opted_in = config.getoption("--exhaustive")
    for item in items:
        if any(item.get_closest_marker(name) for name in (*SLOW_TIERS, "exhaustive")) or second_goal(item):
            item.add_marker(pytest.mark.slow)
        if item.get_closest_marker("exhaustive") and not opted_in:
            item.add_marker(pytest.mark.skip(reason="exhaustive variant of a sampled check: run with --exhaustive"))


def second_goal(item) -> bool:
    """Whether ``item`` is the ``blank-last`` case of a check parametrized over the goal."""
    callspec = getattr(item, "callspec", None)
    return callspec is not None and callspec.params.get("goal_name") == "blank-last"


ARTIFACTS = Path(os.environ.get("TILESWEEP_ARTIFACTS", Path(__file__).parents[1] / "test-artifacts"))
_SESSION_START = time.time()
_TIER_SECONDS: collections.Counter = collections.Counter()


def tier_of(keywords) -> str:
    """The tier a test's report belongs to: its slow tier's marker, else ``slow`` or ``fast``."""
    return next((name for name in (*SLOW_TIERS, "slow") if name in keywords), "fast")


def pytest_runtest_logreport(report):
    """Sum each tier's setup, call and teardown seconds (under xdist, the controller gets
    every worker's reports)."""
    _TIER_SECONDS[tier_of(report.keywords)] += report.duration


def pytest_terminal_summary(terminalreporter):
    """Name the screenshots and other artifacts this run wrote (browser tests); print the docker
    tier's timings (its module writes them to a file, as an xdist worker's output is not shown)
    and the seconds each tier's tests took."""
    written = sorted(p for p in ARTIFACTS.rglob("*") if p.is_file() and p.stat().st_mtime >= _SESSION_START) \
        if ARTIFACTS.is_dir() else []
    if written:
        terminalreporter.write_sep("-", f"{len(written)} test artifact(s) in {ARTIFACTS}")
        for path in written:
            terminalreporter.write_line(str(path))
    if DOCKER_TIMINGS.is_file() and DOCKER_TIMINGS.stat().st_mtime >= _SESSION_START:
        terminalreporter.write_line(DOCKER_TIMINGS.read_text().strip())
    if _TIER_SECONDS:
        tiers = ", ".join(f"{name} {seconds:.1f} s" for name, seconds in _TIER_SECONDS.most_common())
        terminalreporter.write_line(f"test seconds per tier (summed over workers): {tiers}; "
                                    f"run {time.time() - _SESSION_START:.1f} s")


DASK_LOG_TAIL = 20_000  # characters of each Dask process's stderr a failed test shows


@pytest.hookimpl(hookwrapper=True)
def pytest_runtest_makereport(item, call):
    """A failed test that started Dask processes (``make_cluster``, ``tests/test_cluster_finish.py``)
    shows the end of what each wrote on stderr: why a scheduler refused a task, or died."""
    outcome = yield
    report = outcome.get_result()
    if not report.failed or "make_cluster" not in getattr(item, "fixturenames", ()):
        return
    tmp = getattr(item, "funcargs", {}).get("tmp_path")
    for log in sorted(Path(tmp).glob("dask-*.stderr")) if tmp is not None else ():
        report.sections.append((f"stderr of {log.name}", log.read_text(errors="replace")[-DASK_LOG_TAIL:]))


def read_korf100() -> dict[int, tuple[int, ...]]:
    """Korf's instances by id (1..100), tiles row-major with 0 for the blank."""
    return {number: board.tiles for number, board in published_figures(KORF100).items()}


@pytest.fixture(scope="session")
def korf100() -> dict[int, tuple[int, ...]]:
    return read_korf100()


@pytest.fixture
def tmpfs(tmp_path):
    """``tmpfs(options)`` mounts a real tmpfs (e.g. ``"size=96k"``, ``"ro,size=1m"``) under
    ``tmp_path`` and returns its folder; skips where mounting is not allowed (needs root)."""
    import subprocess

    mounts = []

    def mount(options: str):
        path = tmp_path / f"tmpfs{len(mounts)}"
        path.mkdir()
        made = subprocess.run(["mount", "-t", "tmpfs", "-o", options, "tmpfs", str(path)], capture_output=True)
        if made.returncode != 0:
            pytest.skip(f"cannot mount a tmpfs here (needs root): {made.stderr.decode().strip()}")
        mounts.append(path)
        return path

    yield mount
    for path in mounts:
        subprocess.run(["umount", str(path)], check=False)
