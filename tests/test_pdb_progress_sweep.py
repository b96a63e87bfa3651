"""A sweep that builds a missing table shows the build's progress, sent by the building worker."""

import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]


@pytest.mark.cluster
def test_sweep_prints_the_progress_of_a_table_it_builds(tmp_path):
    p = subprocess.run([sys.executable, "cli.py", "sweep", "--size", "3", "--count", "2",
                        "--heuristic", "pdb:4-4", "--store", str(tmp_path / "store"),
                        "--out", str(tmp_path / "sweeps"), "--workers", "1"],
                       cwd=ROOT, capture_output=True, text=True, timeout=600)
    assert p.returncode == 0, p.stderr
    for group in ("1,2,3,4", "5,6,7,8"):
        lines = [line for line in p.stderr.splitlines() if line.startswith(f"tiles {group}: depth ")]
        assert lines and "3,024/3,024 entries (100 %)" in lines[-1], p.stderr
    assert "Traceback" not in p.stderr
