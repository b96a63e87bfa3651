"""What the browser tests (``-m browser``) share: the system's Chromium and chromedriver, or a
skip (a failure on CI, where .ci/install provides them)."""

from __future__ import annotations

import os
import shutil

import pytest


def require_chromium() -> None:
    """Skip the test unless Chromium and chromedriver are installed (fail on CI instead)."""
    if shutil.which("chromium") and shutil.which("chromedriver"):
        return
    if os.environ.get("CI"):
        pytest.fail("chromium and chromium-driver are missing; .ci/install installs them")
    pytest.skip("chromium and chromium-driver are not installed (bash .ci/install-browser)")
