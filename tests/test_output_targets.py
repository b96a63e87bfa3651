"""Output files are regular files only: ``report --out``, ``sql --output``, ``query
--output`` and ``table --output`` refuse a FIFO, a symbolic link, a folder, a device and a missing folder in one line
(exit 2), leaving what was there untouched; a full device is one line, exit 1."""

import os
import stat

import pytest
from typer.testing import CliRunner

from sweeps_local import local_sweep
from tilesweep.cli import app

RUNNER = CliRunner()
SELECT = "SELECT instance, cost FROM results"


@pytest.fixture(scope="module")
def sweep(tmp_path_factory):
    out = tmp_path_factory.mktemp("sweeps")
    return local_sweep(out, "small", size=3, count=4, seed=1, algorithms=("astar",), heuristics=("manhattan",),
                       chunk_size=2)


WRITERS = {
    "report": lambda sweep, target: ["report", sweep, "--out", target],
    "sql": lambda sweep, target: ["sql", SELECT, sweep, "--output", target],
    "sql parquet": lambda sweep, target: ["sql", SELECT, sweep, "--format", "parquet", "--output", target],
    "query": lambda sweep, target: ["query", sweep, "--output", target],
    "table": lambda sweep, target: ["table", sweep, "--format", "latex", "--output", target],
}


def run(writer, sweep, target):
    return RUNNER.invoke(app, [str(a) for a in WRITERS[writer](sweep, target)])


def one_line_error(result, code, *words):
    """Exit ``code``, one line on stderr naming the option (for a refused target) and ``words``."""
    assert result.exit_code == code, result.output
    lines = result.stderr.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith("error: "), result.stderr
    assert "Traceback" not in result.output
    for word in words:
        assert word in lines[0], lines[0]


def make_fifo(tmp_path):
    target = tmp_path / "pipe"
    os.mkfifo(target)
    return target, stat.S_ISFIFO, "a FIFO"


def make_symlink(tmp_path):
    (tmp_path / "real.txt").write_text("kept")
    target = tmp_path / "link"
    target.symlink_to(tmp_path / "real.txt")
    return target, stat.S_ISLNK, "a symbolic link"


def make_folder(tmp_path):
    target = tmp_path / "folder"
    target.mkdir()
    return target, stat.S_ISDIR, "a folder"


@pytest.mark.parametrize("writer", sorted(WRITERS))
@pytest.mark.parametrize("make", [make_fifo, make_symlink, make_folder], ids=["fifo", "symlink", "folder"])
def test_a_target_that_is_not_a_regular_file_is_refused_and_kept(sweep, tmp_path, writer, make):
    target, is_kind, kind = make(tmp_path)
    option = "--out" if writer == "report" else "--output"
    one_line_error(run(writer, sweep, target), 2, f"{option} {str(target)!r}", kind, "expected a regular file")
    assert is_kind(target.lstat().st_mode)
    if target.is_symlink():
        assert (tmp_path / "real.txt").read_text() == "kept"
    assert not [p for p in tmp_path.iterdir() if ".tmp-" in p.name]


@pytest.mark.parametrize("writer", sorted(WRITERS))
def test_a_device_is_refused_and_kept(sweep, tmp_path, writer):
    if os.geteuid() != 0:
        pytest.skip("making a device node (mknod) needs root")
    target = tmp_path / "full"
    os.mknod(target, 0o666 | stat.S_IFCHR, os.makedev(1, 7))  # the full device, made here
    one_line_error(run(writer, sweep, target), 2, repr(str(target)), "a character device")
    assert stat.S_ISCHR(target.lstat().st_mode)


@pytest.mark.parametrize("writer", ["sql", "query", "table"])
def test_a_missing_folder_is_one_line(sweep, tmp_path, writer):
    target = tmp_path / "missing" / "out.txt"
    one_line_error(run(writer, sweep, target), 2, repr(str(target)), "does not exist")
    assert not (tmp_path / "missing").exists()


@pytest.mark.parametrize("writer", sorted(WRITERS))
def test_a_regular_file_is_replaced(sweep, tmp_path, writer):
    target = tmp_path / "out"
    target.write_text("old")
    result = run(writer, sweep, target)
    assert result.exit_code == 0, result.output
    assert target.read_bytes() != b"old" and stat.S_ISREG(target.lstat().st_mode)


def test_a_full_disk_is_one_line_exit_1(sweep, tmp_path):
    """A file system of 64 KiB, filled: writing the output fails with ENOSPC."""
    if os.geteuid() != 0:
        pytest.skip("mounting a small tmpfs needs root")
    mount = tmp_path / "small"
    mount.mkdir()
    if os.system(f"mount -t tmpfs -o size=64k tmpfs {mount} 2>/dev/null") != 0:
        pytest.skip("tmpfs cannot be mounted here")
    try:
        _fill(mount)
        target = mount / "out.txt"
        one_line_error(run("sql", sweep, target), 1, repr(str(target)), "No space left")
        assert not target.exists()
    finally:
        os.system(f"umount {mount}")


def _fill(folder):
    """Write zeros into ``folder`` until its file system is full."""
    try:
        with open(folder / "filler", "wb") as handle:
            while True:
                handle.write(b"\0" * 4096)
                handle.flush()
    except OSError:
        pass
