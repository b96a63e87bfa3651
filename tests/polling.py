"""Waiting in tests for what another process or a page does: poll until it holds."""

from __future__ import annotations

import time


def wait_for(predicate, timeout: float = 120.0, what: str = "condition", every: float = 0.05):
    """The first true value of ``predicate()``, asked every ``every`` seconds; after ``timeout``
    seconds (a guard against a hang, generous for a loaded machine) an AssertionError naming ``what``."""
    deadline = time.monotonic() + timeout
    while True:
        value = predicate()
        if value:
            return value
        if time.monotonic() >= deadline:
            raise AssertionError(f"timed out waiting for {what}")
        time.sleep(every)
