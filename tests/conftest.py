"""Shared fixtures: the Korf (1985) instances; the ``slow`` marker for exhaustive tiers.

Slow tiers run by default, as in CI; ``-m "not slow"`` leaves them out while developing.
"""

from pathlib import Path

import pytest

DATA = Path(__file__).parent / "data"


def pytest_configure(config):
    config.addinivalue_line("markers", "slow: exhaustive or long-running checks (deselect with -m 'not slow')")


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
