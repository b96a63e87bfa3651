"""A plugin heuristic from an installed package: a tiny package with a ``tilesweep.heuristics``
entry point, built as a wheel and installed into a new environment that sees this one's packages,
names its heuristic as ``plugin:NAME`` with no ``--plugin`` file, and solves with the node
counts of the built-in heuristic it re-implements."""

import base64
import hashlib
import json
import os
import subprocess
import zipfile
from pathlib import Path

import pytest

from tilesweep.solver import Board, solve
from wheelbuild import environment_over_this_one

pytestmark = pytest.mark.slow  # a new environment, a pip install, a plugin kernel compiled (about a minute)

PLUGIN = '''import numba


@numba.njit
def misplaced(tiles, goal):
    h = 0
    for c in range(tiles.shape[0]):
        if tiles[c] != 0 and tiles[c] != goal[c]:
            h += 1
    return h


HEURISTICS = {"installed-misplaced": misplaced}
'''

ENTRY_POINTS = "[tilesweep.heuristics]\ntiny = tiny_heuristics.misplaced\n"


def tiny_wheel(folder: Path) -> Path:
    """The plugin package as a wheel, written directly (a wheel is a zip of the package and
    its dist-info; no build backend needed, none downloaded)."""
    info = "tiny_heuristics-0.1.dist-info"
    files = {
        "tiny_heuristics/__init__.py": "",
        "tiny_heuristics/misplaced.py": PLUGIN,
        f"{info}/METADATA": "Metadata-Version: 2.1\nName: tiny-heuristics\nVersion: 0.1\n",
        f"{info}/WHEEL": "Wheel-Version: 1.0\nGenerator: test\nRoot-Is-Purelib: true\nTag: py3-none-any\n",
        f"{info}/entry_points.txt": ENTRY_POINTS,
    }
    record = [f"{name},sha256={_digest(text)},{len(text.encode())}" for name, text in files.items()]
    files[f"{info}/RECORD"] = "\n".join([*record, f"{info}/RECORD,,"]) + "\n"
    wheel = folder / "tiny_heuristics-0.1-py3-none-any.whl"
    with zipfile.ZipFile(wheel, "w") as archive:
        for name, text in files.items():
            archive.writestr(name, text)
    return wheel


def _digest(text: str) -> str:
    return base64.urlsafe_b64encode(hashlib.sha256(text.encode()).digest()).rstrip(b"=").decode()


def run(*argv, cwd, env) -> subprocess.CompletedProcess:
    proc = subprocess.run([str(a) for a in argv], cwd=cwd, env=env, capture_output=True, text=True, timeout=900)
    assert proc.returncode == 0, f"{' '.join(map(str, argv))}\n{proc.stdout[-3000:]}\n{proc.stderr[-3000:]}"
    return proc


def see_this_checkout(python: Path) -> None:
    """Make an editable tilesweep of the running environment importable in the new one: the
    parent's site folders are on its path, but the import hooks of their ``.pth`` files
    (an editable install's finder) only run where Python reads those files."""
    own = subprocess.run([python, "-c", "import sysconfig; print(sysconfig.get_path('purelib'))"],
                         check=True, capture_output=True, text=True).stdout.strip()
    hooks = [line for folder in Path(own, "_tilesweep_test_parent.pth").read_text().split()
             for pth in sorted(Path(folder).glob("*.pth")) if pth.is_file()
             for line in pth.read_text().splitlines() if line.startswith("import __editable__")]
    Path(own, "zz_tilesweep_test_editable.pth").write_text("".join(f"{line}\n" for line in hooks))


def test_an_installed_package_s_heuristic_is_named_without_a_file(tmp_path):
    python = environment_over_this_one(tmp_path / "env")
    see_this_checkout(python)
    env = {k: v for k, v in os.environ.items() if k not in ("PYTHONPATH", "VIRTUAL_ENV")}
    run(python, "-m", "pip", "install", "--quiet", "--no-deps", "--no-index", tiny_wheel(tmp_path), cwd=tmp_path,
        env=env)
    empty = tmp_path / "empty"
    empty.mkdir()
    board = "8 6 7 2 5 4 3 0 1"
    out = run(python, "-m", "tilesweep", "solve", board, "--algorithm", "idastar", "--heuristic",
              "plugin:installed-misplaced", "--json", cwd=empty, env=env).stdout
    got = json.loads(out)
    builtin = solve(Board.parse(board), "blank-last", "idastar", "misplaced")
    assert got["status"] == "solved" and got["heuristic"] == "plugin:installed-misplaced"
    assert (got["cost"], got["nodes_generated"]) == (builtin.cost, builtin.nodes_generated)
    unknown = subprocess.run([python, "-m", "tilesweep", "solve", board, "--heuristic", "plugin:nothing"],
                             cwd=empty, env=env, capture_output=True, text=True, timeout=300)
    assert unknown.returncode == 2
    assert "'plugin:nothing' is not a loaded plugin (loaded: plugin:installed-misplaced)" in unknown.stderr
