"""Builds tilesweep's wheel from a copy of the checkout, so the build leaves no ``build/``
folder in it (setuptools writes one beside the sources it builds)."""

import shutil
import subprocess
import sys
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
