"""What the browser tests (``-m browser``) share: the system's Chromium and chromedriver (and TeX), or a
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


def require_tex() -> None:
    """Skip the test unless pdflatex and booktabs are installed (fail on CI: .ci/install-tex)."""
    if shutil.which("pdflatex") and shutil.which("kpsewhich"):
        import subprocess
        if subprocess.run(["kpsewhich", "booktabs.sty"], capture_output=True).returncode == 0:
            return
    if os.environ.get("CI"):
        pytest.fail("pdflatex or booktabs is missing; .ci/install installs them")
    pytest.skip("pdflatex and booktabs are not installed (bash .ci/install-tex)")
