"""tilesweep from a built wheel (not editable) in a fresh virtual environment that already
holds PyPI's unrelated ``solver`` and ``cluster`` packages: the wheel carries every file the
package reads, installs nothing under a generic top-level name, runs a korf100 sweep from
an empty folder, passes the fast tests that read its data and help texts, and leaves ``import solver, cluster`` to PyPI's.

Slow: it downloads tilesweep's dependencies from PyPI into the new environment (minutes).
"""

import json
import os
import subprocess
import venv
from pathlib import Path

import pytest

from wheelbuild import ROOT, build_wheel

pytestmark = pytest.mark.slow

TOP_LEVEL_NAMES = ("cli", "solver", "jobs", "cluster", "pdb_store", "webui")


def run(*argv, cwd, env=None, timeout=1800) -> subprocess.CompletedProcess:
    proc = subprocess.run([str(a) for a in argv], cwd=cwd, env=env, capture_output=True, text=True, timeout=timeout)
    assert proc.returncode == 0, f"{' '.join(map(str, argv))}\n{proc.stdout[-3000:]}\n{proc.stderr[-3000:]}"
    return proc


@pytest.fixture(scope="module")
def installed(tmp_path_factory):
    """(python of the new environment, its environment variables, an empty folder)."""
    base = tmp_path_factory.mktemp("wheel")
    wheel = build_wheel(base)
    venv.create(base / "env", with_pip=True)
    python = base / "env" / "bin" / "python"
    run(python, "-m", "pip", "install", "--quiet", "solver", "cluster", cwd=base)
    run(python, "-m", "pip", "install", "--quiet", f"{wheel}[test]", cwd=base)
    env = {k: v for k, v in os.environ.items() if k not in ("PYTHONPATH", "DASK_SCHEDULER_ADDRESS", "VIRTUAL_ENV")}
    env["PATH"] = f"{python.parent}{os.pathsep}{env.get('PATH', '')}"
    env["TILESWEEP_STORE"] = str(base / "pdb")
    empty = base / "empty"
    empty.mkdir()
    return python, env, empty


def test_the_wheel_installs_one_package_and_its_data(installed):
    python, env, empty = installed
    files = run(python, "-m", "pip", "show", "--files", "tilesweep", cwd=empty, env=env).stdout
    listed = [line.strip() for line in files.split("Files:", 1)[1].splitlines() if line.strip()]
    assert "tilesweep/jobs/data/korf100.txt" in listed and "tilesweep/__main__.py" in listed
    assert not [f for f in listed if f.split("/")[0] in TOP_LEVEL_NAMES or f.split("/")[0].removesuffix(".py")
                in TOP_LEVEL_NAMES]
    where = run(python, "-c", "import tilesweep, tilesweep.cli; print(tilesweep.__file__)", cwd=empty, env=env).stdout
    assert "site-packages" in where and str(ROOT) not in where


def test_a_korf100_sweep_from_an_empty_folder(installed):
    python, env, empty = installed
    script = Path(python).parent / "tilesweep"
    run(script, "sweep", "--instances", "korf100", "--size", "4", "--algorithm", "idastar",
        "--heuristic", "pdb:6-6-3+reflect", "--count", "5", "--workers", "1", "--name", "korf5", cwd=empty, env=env)
    rows = json.loads(run(python, "-m", "tilesweep", "query", "sweeps/korf5", "--format", "json", cwd=empty,
                          env=env).stdout)
    assert sorted(r["instance"] for r in rows) == list(range(5)) and {r["status"] for r in rows} == {"solved"}
    # Korf (1985), Table 1: the optimal costs of instances 1-5
    assert [r["cost"] for r in sorted(rows, key=lambda r: r["instance"])] == [57, 55, 59, 56, 56]


def test_pypi_solver_and_cluster_still_import_as_theirs(installed):
    python, env, empty = installed
    # PyPI's solver installs as a namespace package (no __init__.py): its path must be its own folder only
    probe = ("import solver.parsing.parser, cluster, tilesweep.solver, tilesweep.cluster; "
             "print(*solver.__path__); print(cluster.__file__); print(hasattr(cluster, 'HierarchicalClustering'))")
    solver_path, cluster_file, theirs = run(python, "-c", probe, cwd=empty, env=env).stdout.split()
    assert solver_path.endswith("site-packages/solver")
    assert cluster_file.endswith("site-packages/cluster/__init__.py") and theirs == "True"


# Tests of what the wheel must carry (the instance files, every command's help) that compile
# few kernels: the wheel's own numba cache starts empty, and the whole fast tier would
# compile every kernel again, for minutes.
WHEEL_TESTS = ("test_instances.py", "test_cli_conventions.py")


def test_the_fast_tests_pass_against_the_installed_wheel(installed, tmp_path):
    python, env, _ = installed
    check = run(python, "-m", "pytest", "-q", "-m", "not slow", "-p", "no:cacheprovider", "-x",
                *(ROOT / "tests" / name for name in WHEEL_TESTS), "--rootdir", ROOT, cwd=tmp_path, env=env,
                timeout=1800)
    assert " passed" in check.stdout and " failed" not in check.stdout
