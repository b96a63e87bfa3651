"""The ``pdb build``, ``pdb list`` and ``pdb verify`` commands, end to end on 3x3 tables."""

import hashlib
import json
import re
import shutil
import subprocess
from pathlib import Path

import numpy as np
import pytest
from typer.testing import CliRunner

from program import CLI
from tilesweep.cli import app
from tilesweep.solver.heuristics import PARTITIONS
from tilesweep.solver.ranking import placement_count, unrank_placement

pytestmark = pytest.mark.slow  # its fixture builds pattern databases through the CLI

ROOT = Path(__file__).resolve().parents[1]
NAMES = ["pdb_3x3_blank-first_1-2-3-4.npy", "pdb_3x3_blank-first_5-6-7-8.npy"]
runner = CliRunner()


def invoke(*args):
    result = runner.invoke(app, list(args))
    assert "Traceback" not in result.output
    return result


def run_cli(*args):
    """``tilesweep ARGS`` in a subprocess (see tests/program.py)."""
    return subprocess.run([*CLI, *args], capture_output=True, text=True, timeout=300)


@pytest.fixture(scope="module")
def built(tmp_path_factory):
    """A store holding the two tables of the 3x3 4-4 partition, built once through the CLI."""
    root = tmp_path_factory.mktemp("built") / "store"
    p = run_cli("pdb", "build", "--size", "3", "--partition", "4-4", "--goal", "blank-first",
                "--store", str(root))
    assert p.returncode == 0, p.stderr
    lines = p.stdout.splitlines()
    assert [line.split()[0] for line in lines] == [str(root / name) for name in NAMES]
    entries = f"{placement_count(9, 4):,} entries"
    assert all(entries in line for line in lines)
    assert all(re.search(r"\(built in \d+\.\d s\)$", line) for line in lines), lines
    assert "Traceback" not in p.stderr
    for group in ("5,6,7,8", "1,2,3,4"):  # progress on stderr: a line per tenth (not a terminal)
        progress = [line for line in p.stderr.splitlines() if line.startswith(f"tiles {group}: depth ")]
        assert 2 <= len(progress) <= 11 and progress[-1].split("entries")[0].endswith(f"{entries.split()[0]} ")
        assert "(100 %)" in progress[-1] and "ETA 0:00" in progress[-1]
    return root


@pytest.fixture
def store(built, tmp_path):
    """A copy of the built store, for a test to read or damage."""
    return Path(shutil.copytree(built, tmp_path / "store"))


def _columns(output: str) -> list[dict[str, str]]:
    """The rows of ``pdb list`` as {header: cell}."""
    lines = output.splitlines()
    header = lines[1].split()
    return [dict(zip(header, line.split())) for line in lines[2:]]


def test_list_shows_entries_and_bytes_on_disk(store):
    result = invoke("pdb", "list", "--store", str(store))
    assert result.exit_code == 0, result.output
    assert result.stdout.splitlines()[0] == f"store {store}: 2 table(s)"
    rows = _columns(result.stdout)
    assert [row["tiles"] for row in rows] == ["1,2,3,4", "5,6,7,8"]
    manifest = json.loads((store / "manifest.json").read_text())["tables"]
    for row, name in zip(rows, NAMES):
        size = (store / name).stat().st_size
        assert row["entries"] == f"{placement_count(9, 4):,}"
        assert row["bytes"] == f"{size:,}" and size > placement_count(9, 4)  # + the .npy header
        assert row["goal"] == "blank-first" and row["max"] == str(manifest[name]["max_value"])


def test_list_marks_a_missing_file(store):
    (store / NAMES[1]).unlink()
    result = invoke("pdb", "list", "--store", str(store))
    assert result.exit_code == 0
    assert [row["bytes"] for row in _columns(result.stdout)][1] == "missing"


def test_list_and_verify_an_empty_store(tmp_path):
    listed = invoke("pdb", "list", "--store", str(tmp_path / "none"))
    assert listed.exit_code == 0 and listed.stdout.splitlines() == [f"store {tmp_path / 'none'}: 0 table(s)"]
    verified = invoke("pdb", "verify", "--store", str(tmp_path / "none"))
    assert verified.exit_code == 0 and "0 of 0 table(s)" in verified.stdout


def test_verify_passes_on_built_tables(store):
    p = run_cli("pdb", "verify", "--store", str(store))
    assert p.returncode == 0, p.stderr
    assert p.stdout.splitlines() == [f"ok   {name}" for name in NAMES] + [
        f"2 of 2 table(s) in {store} verified"]


def test_build_again_reuses_the_tables(store):
    before = {name: (store / name).stat().st_mtime_ns for name in NAMES}
    result = invoke("pdb", "build", "--size", "3", "--partition", "4-4", "--goal", "blank-first",
                    "--store", str(store))
    assert result.exit_code == 0, result.output
    assert {name: (store / name).stat().st_mtime_ns for name in NAMES} == before
    manifest = json.loads((store / "manifest.json").read_text())["tables"]
    lines = result.stdout.splitlines()
    assert len(lines) == 2
    for line, name in zip(lines, NAMES):
        built = manifest[name]["built_at"][:19].replace("T", " ")
        assert line.startswith(str(store / name))
        assert line.endswith(f"(reused: built {built} UTC in {manifest[name]['build_seconds']:.1f} s)"), line


@pytest.mark.parametrize("damage,problem", [
    (lambda path: path.write_bytes(path.read_bytes()[:-1]), "is truncated"),
    (lambda path: path.write_bytes(path.read_bytes()[:-1] + b"\x07"), "was altered"),
    (lambda path: path.unlink(), "listed in the manifest but missing"),
])
def test_verify_refuses_a_damaged_table(store, damage, problem):
    path = store / NAMES[1]
    path.chmod(0o644)
    damage(path)
    result = invoke("pdb", "verify", "--store", str(store))
    assert result.exit_code == 1
    lines = result.stdout.splitlines()
    assert lines[0] == f"ok   {NAMES[0]}"
    assert lines[1].startswith(f"BAD  {NAMES[1]}") and problem in lines[1]
    assert "tilesweep pdb build --size 3 --goal blank-first --partition 5,6,7,8" in lines[1]
    assert lines[2] == f"1 of 2 table(s) in {store} verified"


@pytest.mark.parametrize("args,quoted", [
    (["--size", "7", "--partition", "4-4"], "7"),
    (["--size", "3", "--partition", "9-9"], "9-9"),
    (["--size", "3", "--partition", "4-4", "--goal", "upside-down"], "upside-down"),
])
def test_build_refuses_bad_input_with_one_line(tmp_path, args, quoted):
    result = invoke("pdb", "build", *args, "--store", str(tmp_path / "store"))
    assert result.exit_code == 2
    assert len(result.stderr.strip().splitlines()) == 1 and quoted in result.stderr
    assert not (tmp_path / "store" / "manifest.json").exists()


def test_build_help_names_every_partition_and_size():
    result = invoke("pdb", "build", "--help")
    assert result.exit_code == 0
    words = result.output.replace(",", " ").split()
    for size, names in PARTITIONS.items():
        assert f"({size}x{size});" in words or f"({size}x{size})" in words
        assert set(names) <= set(words), names
    assert "3 or 4" not in " ".join(words)


def test_store_on_a_file_is_refused(tmp_path):
    (tmp_path / "file").write_text("x")
    for command in ("list", "verify"):
        result = invoke("pdb", command, "--store", str(tmp_path / "file"))
        assert result.exit_code == 1 and "is not a directory" in result.stderr


def test_verify_deep_passes_on_built_tables(store):
    p = run_cli("pdb", "verify", "--deep", "--store", str(store))
    assert p.returncode == 0, p.stderr
    lines = p.stdout.splitlines()
    assert [line.split()[:2] for line in lines[:2]] == [["ok", name] for name in NAMES]
    assert all("values checked in" in line for line in lines[:2])
    assert lines[2] == f"2 of 2 table(s) in {store} verified"


def test_verify_deep_refuses_values_a_checksum_cannot_catch(store):
    """One entry +1, another -1, the manifest rewritten to the new checksum: only --deep sees it."""
    path = store / NAMES[1]
    table = np.load(path)
    top = np.flatnonzero(table == table.max())  # no other entry's rules lean on these
    first, second = int(top[0]), int(top[1])
    table[first] += 1
    table[second] -= 1
    path.chmod(0o644)
    np.save(path, table)
    manifest = json.loads((store / "manifest.json").read_text())
    manifest["tables"][NAMES[1]]["sha256"] = hashlib.sha256(path.read_bytes()).hexdigest()
    (store / "manifest.json").write_text(json.dumps(manifest))
    assert invoke("pdb", "verify", "--store", str(store)).exit_code == 0
    result = invoke("pdb", "verify", "--deep", "--store", str(store))
    assert result.exit_code == 1
    lines = result.stdout.splitlines()
    assert lines[0].startswith(f"ok   {NAMES[0]}") and lines[1].startswith(f"BAD  {NAMES[1]}")
    cells = np.empty(4, dtype=np.int64)
    unrank_placement(first, 4, 9, cells)
    named = f"entry {first} (tiles 5,6,7,8 on cells {','.join(map(str, cells))}) holds {table[first]}"
    assert named in lines[1] and "1 more entry breaks the rules" in lines[1]
    assert "tilesweep pdb build --size 3 --goal blank-first --partition 5,6,7,8" in lines[1]
    assert lines[2] == f"1 of 2 table(s) in {store} verified"
