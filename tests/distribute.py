"""How a test run is spread over pytest-xdist's worker processes (a plugin of tests/conftest.py).

Where pytest-xdist is installed and two or more cores are usable, a run without ``-n`` runs on
two workers; ``-n 0`` or ``-p no:xdist`` runs in one process, and so do ``-s`` and ``--pdb``.
A distributed run spreads tests by group (``--dist loadgroup`` unless ``--dist`` says
otherwise): the tests that share a fixture made once per module run on one worker, so it is
made once; the docker tier with the Slurm-in-containers tier (whose image builds on the docker
tier's), and the slurm tier, each run on one worker, as their tests share the machine's images
and Slurm queue. Groups go out first, largest first, then single tests to
whichever worker is free.
"""

import os

import pytest

# Tiers whose tests share one thing of the machine, by the group they run in on one worker: the
# Docker engine's images (one tag per checkout, built by the first test; the Slurm-in-containers
# tier builds its image on top of it, and on a worker of its own it waited idle for that build,
# 370-490 s at the start of a run), the Slurm queue (a test expects it empty).
ONE_WORKER_GROUPS = {"docker": "docker", "slurm_multinode": "docker", "slurm": "slurm"}
# Workers of a run without -n: the 2-core machine CI runs on (-n N asks for more).
DEFAULT_WORKERS = 2


@pytest.hookimpl(wrapper=True)  # before pytest-xdist reads -n and --dist, however the plugins were loaded
def pytest_cmdline_main(config):
    if config.pluginmanager.hasplugin("xdist"):
        choose_distribution(config)
    return (yield)


def choose_distribution(config) -> None:
    if hasattr(config, "workerinput"):  # a worker reads the command line, not what was chosen here
        config.option.loadgroup = config.workerinput.get("loadgroup", config.option.loadgroup)
        return
    interactive = config.getoption("usepdb") or config.getoption("capture") == "no"
    if config.option.numprocesses is None and not interactive and len(os.sched_getaffinity(0)) >= 2:
        config.option.numprocesses = DEFAULT_WORKERS
    if config.option.dist == "no":
        config.option.dist = "loadgroup"


@pytest.hookimpl(optionalhook=True)
def pytest_configure_node(node):
    """Tell a worker how the run is spread."""
    node.workerinput["loadgroup"] = node.config.option.dist == "loadgroup"


@pytest.hookimpl(tryfirst=True)  # before pytest-xdist reads the groups
def pytest_collection_modifyitems(items):
    for item in items:
        group = xdist_group(item)
        if group is not None:
            item.add_marker(pytest.mark.xdist_group(group))


def xdist_group(item) -> str | None:
    """The group of a one-worker tier's test; the module of a test that uses a fixture made once
    per module; else None (the test goes to whichever worker is free)."""
    group = next((group for tier, group in ONE_WORKER_GROUPS.items() if item.get_closest_marker(tier)), None)
    if group is not None:
        return group
    fixtures = getattr(item, "_fixtureinfo", None)
    if fixtures and any(defs[-1].scope in ("module", "package") for defs in fixtures.name2fixturedefs.values()):
        return item.module.__name__
    return None
