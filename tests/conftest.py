"""Shared fixtures: the Korf (1985) instances; the ``slow`` marker for exhaustive tiers."""

from pathlib import Path

import pytest

DATA = Path(__file__).parent / "data"


def pytest_configure(config):
    config.addinivalue_line("markers", "slow: exhaustive or long-running checks (run with -m slow)")


def read_korf100() -> dict[int, tuple[int, ...]]:
    """Korf's instances by id (1..100), tiles row-major with 0 for the blank."""
    rows = {}
    for line in (DATA / "korf100.txt").read_text().splitlines():
        if line.strip() and not line.startswith("#"):
            number, *tiles = map(int, line.split())
            rows[number] = tuple(tiles)
    return rows


@pytest.fixture(scope="session")
def korf100() -> dict[int, tuple[int, ...]]:
    return read_korf100()


def pytest_collection_modifyitems(config, items):
    """Leave ``slow`` tests out unless the run selects them with ``-m slow`` (or any -m naming it)."""
    if "slow" in (config.getoption("-m") or ""):
        return
    skip = pytest.mark.skip(reason="slow tier: run with -m slow")
    for item in items:
        if "slow" in item.keywords:
            item.add_marker(skip)
