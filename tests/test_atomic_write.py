"""The one atomic writer (pdb_store/files.py) and that the package's writers go through it."""

import re
import stat
from pathlib import Path

import pyarrow as pa
import pytest

from tilesweep.jobs.parts import ResultsWriteError, write_table
from tilesweep.pdb_store.files import atomic_write

ROOT = Path(__file__).resolve().parents[1]


def test_writes_the_content_with_its_mode_and_leaves_nothing_else(tmp_path):
    path = tmp_path / "a.bin"
    atomic_write(path, lambda handle: handle.write(b"old"))
    atomic_write(path, lambda handle: handle.write(b"new"), mode=0o444)
    assert path.read_bytes() == b"new"
    assert stat.S_IMODE(path.stat().st_mode) == 0o444
    assert [p.name for p in tmp_path.iterdir()] == ["a.bin"]


def test_a_failed_write_keeps_the_old_file_and_removes_the_temporary(tmp_path):
    path = tmp_path / "a.bin"
    atomic_write(path, lambda handle: handle.write(b"old"))

    def fail(handle):
        handle.write(b"half")
        raise OSError(28, "No space left on device")

    with pytest.raises(OSError, match="No space left"):
        atomic_write(path, fail)
    assert path.read_bytes() == b"old" and [p.name for p in tmp_path.iterdir()] == ["a.bin"]


def test_the_temporary_file_is_hidden_and_in_the_same_folder(tmp_path):
    seen = []
    atomic_write(tmp_path / "part.parquet", lambda handle: seen.append(Path(handle.name)))
    assert seen[0].parent == tmp_path and seen[0].name.startswith(".part.parquet.tmp-")


def test_a_results_write_failure_names_the_file(tmp_path):
    with pytest.raises(ResultsWriteError, match="missing"):
        write_table(tmp_path / "missing" / "summary.parquet", pa.table({"a": [1]}))
    assert not (tmp_path / "missing").exists()


def test_no_other_module_renames_a_file_into_place():
    """Writers call atomic_write; cluster/share.py commits a file received in pieces (its
    hash checked first) with the same fsync, rename and folder fsync."""
    allowed = {"pdb_store/files.py", "cluster/share.py"}
    offenders = []
    skipped = {"tests", "benchmarks", ".venv", "build", "dist", ".git"}  # not walked: .venv alone is seconds
    tops = [top for top in ROOT.iterdir() if top.name not in skipped]
    for path in [*(p for top in tops if top.is_dir() for p in top.rglob("*.py")), *ROOT.glob("*.py")]:
        relative = path.relative_to(ROOT).as_posix()
        if relative in allowed:
            continue
        if re.search(r"\bos\.(replace|rename)\(|\b(tmp|temp)\w*\.(rename|replace)\(", path.read_text()):
            offenders.append(relative)
    assert offenders == []
