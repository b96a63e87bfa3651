"""tilesweep from a built wheel (not editable) in a fresh virtual environment that already
holds PyPI's unrelated ``solver`` and ``cluster`` packages: the wheel carries every file the
package reads, installs nothing under a generic top-level name, runs a korf100 sweep and
writes its report from an empty folder, and leaves ``import solver, cluster`` to PyPI's.

The new environment sees the test environment's packages (tilesweep's dependencies, not
downloaded again); only the wheel and PyPI's two small packages are installed in it. Slow:
its numba cache starts empty, so the sweep compiles its kernels.
"""

import json
import os
import subprocess
from pathlib import Path

import pytest

from wheelbuild import ROOT, build_wheel, environment_over_this_one

pytestmark = pytest.mark.slow

TOP_LEVEL_NAMES = ("cli", "solver", "jobs", "cluster", "pdb_store", "webui")
DATA_FOLDERS = ("jobs/data", "jobs/report", "webui/static")  # the files the package reads at run time


def run(*argv, cwd, env=None, timeout=1800) -> subprocess.CompletedProcess:
    proc = subprocess.run([str(a) for a in argv], cwd=cwd, env=env, capture_output=True, text=True, timeout=timeout)
    assert proc.returncode == 0, f"{' '.join(map(str, argv))}\n{proc.stdout[-3000:]}\n{proc.stderr[-3000:]}"
    return proc


@pytest.fixture(scope="module")
def installed(tmp_path_factory):
    """(python of the new environment, its environment variables, an empty folder)."""
    base = tmp_path_factory.mktemp("wheel")
    wheel = build_wheel(base)
    python = environment_over_this_one(base / "env")
    run(python, "-m", "pip", "install", "--quiet", "solver", "cluster", cwd=base)
    run(python, "-m", "pip", "install", "--quiet", "--no-deps", wheel, cwd=base)
    env = {k: v for k, v in os.environ.items() if k not in ("PYTHONPATH", "DASK_SCHEDULER_ADDRESS", "VIRTUAL_ENV")}
    env["PATH"] = f"{python.parent}{os.pathsep}{env.get('PATH', '')}"
    env["TILESWEEP_STORE"] = str(base / "pdb")
    empty = base / "empty"
    empty.mkdir()
    return python, env, empty


def data_files() -> list[str]:
    """The checkout's data files, named as the wheel installs them."""
    listed = subprocess.run(["git", "ls-files", *DATA_FOLDERS], cwd=ROOT, capture_output=True, text=True,
                            check=True).stdout.split()
    return [f"tilesweep/{path}" for path in listed if not path.endswith(".py")]


def test_the_wheel_installs_one_package_and_its_data(installed):
    python, env, empty = installed
    files = run(python, "-m", "pip", "show", "--files", "tilesweep", cwd=empty, env=env).stdout
    listed = [line.strip() for line in files.split("Files:", 1)[1].splitlines() if line.strip()]
    assert "tilesweep/__main__.py" in listed
    missing = [path for path in data_files() if path not in listed]
    assert len(data_files()) > 10 and missing == []
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
    run(script, "report", "sweeps/korf5", "--out", "korf5.html", cwd=empty, env=env)  # the wheel's templates
    page = (empty / "korf5.html").read_text()
    assert "<title>tilesweep report: korf5</title>" in page
    assert (ROOT / "jobs" / "report" / "report.css").read_text().splitlines()[0] in page


def test_pypi_solver_and_cluster_still_import_as_theirs(installed):
    python, env, empty = installed
    # PyPI's solver installs as a namespace package (no __init__.py): its path must be its own folder only
    probe = ("import solver.parsing.parser, cluster, tilesweep.solver, tilesweep.cluster; "
             "print(*solver.__path__); print(cluster.__file__); print(hasattr(cluster, 'HierarchicalClustering'))")
    solver_path, cluster_file, theirs = run(python, "-c", probe, cwd=empty, env=env).stdout.split()
    assert solver_path.endswith("site-packages/solver")
    assert cluster_file.endswith("site-packages/cluster/__init__.py") and theirs == "True"
