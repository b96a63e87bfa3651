"""Builds tilesweep's wheel from a copy of the checkout, so the build leaves no ``build/``
folder in it (setuptools writes one beside the sources it builds)."""

import shutil
import site
import subprocess
import sys
import sysconfig
import venv
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
NOT_SOURCES = shutil.ignore_patterns(".git", ".venv", "build", "dist", "*.egg-info", "__pycache__", ".pytest_cache",
                                     ".hypothesis", "sweeps", "test-artifacts")


def build_wheel(folder: Path) -> Path:
    """The wheel built under ``folder`` (which holds the copy of the sources too)."""
    source = folder / "source"
    shutil.copytree(ROOT, source, ignore=NOT_SOURCES)
    subprocess.run([sys.executable, "-m", "pip", "wheel", "--quiet", "--no-deps", "--wheel-dir", folder / "dist",
                    source], cwd=folder, check=True, capture_output=True, timeout=900)
    return next((folder / "dist").glob("tilesweep-*.whl"))


def environment_over_this_one(folder: Path) -> Path:
    """A new virtual environment at ``folder`` that also sees the packages of the running
    one (its python is returned). ``venv --system-site-packages`` would see the *base*
    interpreter's packages, which lack tilesweep's dependencies when the tests run in a
    virtual environment; a ``.pth`` file listing this interpreter's site folders works in
    both. Its own site-packages comes first, so a wheel installed there shadows the checkout."""
    venv.create(folder, with_pip=True)
    python = folder / "bin" / "python"
    own = subprocess.run([python, "-c", "import sysconfig; print(sysconfig.get_path('purelib'))"],
                         check=True, capture_output=True, text=True).stdout.strip()
    ours = dict.fromkeys([*site.getsitepackages(), sysconfig.get_path("purelib"), sysconfig.get_path("platlib")])
    Path(own, "_tilesweep_test_parent.pth").write_text("".join(f"{path}\n" for path in ours))
    return python
