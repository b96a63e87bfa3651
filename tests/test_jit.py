"""Every numba kernel of the package is compiled with the options of ``solver/jit.py``."""

import importlib
import os
import pkgutil

import pytest
from numba.core.dispatcher import Dispatcher

import tilesweep
from tilesweep.solver.jit import JIT_OPTIONS

#: The only options a kernel may add to JIT_OPTIONS (see the decorators of solver/jit.py).
EXTRAS = {"inline": "always", "parallel": True}


def package_kernels() -> dict[str, Dispatcher]:
    """Every numba dispatcher defined in a module of the tilesweep package, by qualified name."""
    kernels = {}
    for info in pkgutil.walk_packages(tilesweep.__path__, "tilesweep."):
        module = importlib.import_module(info.name)
        for name, value in vars(module).items():
            if isinstance(value, Dispatcher) and value.py_func.__module__ == info.name:
                kernels[f"{info.name}.{name}"] = value
    return kernels


def test_every_kernel_uses_the_project_jit_options():
    kernels = package_kernels()
    # the walk finds the kernels of every kind: plain, inlined and parallel
    assert {"tilesweep.solver.ranking.rank_placement", "tilesweep.solver.hstate.group_value",
            "tilesweep.pdb_store.bfs._expand_layer"} <= set(kernels)
    cached = JIT_OPTIONS["cache"]
    compiled_options = {key: value for key, value in JIT_OPTIONS.items() if key != "cache"}
    for name, dispatcher in kernels.items():
        options = dict(dispatcher.targetoptions)
        options.pop("nopython", None)  # numba adds it for every njit
        extras = {key: options.pop(key) for key in list(options) if key in EXTRAS}
        assert options == compiled_options, name
        assert all(EXTRAS[key] == value for key, value in extras.items()), name
        caching = type(dispatcher._cache).__name__ == "FunctionCache"
        assert caching == cached, name


def test_every_kernels_cache_stamp_carries_its_dependency_digest():
    from tilesweep.solver.jit import dependency_digest
    for name, dispatcher in package_kernels().items():
        assert dispatcher._cache._cache_file._source_stamp[1] == dependency_digest(dispatcher.py_func), name


def test_the_dependency_digest_follows_what_a_kernel_calls():
    from tilesweep.solver.astar import ASTAR_KERNELS, _astar_tiles, _find
    from tilesweep.solver.batch_kernels import ASTAR_BOARDS
    from tilesweep.solver.jit import dependency_digest
    from tilesweep.solver.seeded import uniform_boards
    assert dependency_digest(ASTAR_BOARDS[0].py_func) != dependency_digest(_astar_tiles.py_func)
    assert len({dependency_digest(f.py_func) for f in (_astar_tiles, _find, uniform_boards)}) == 3
    # one source, a kernel per way of finding h: each its own digest (its closure's constant)
    assert len({dependency_digest(f.py_func) for f in ASTAR_KERNELS + ASTAR_BOARDS}) == 8


# a package of three modules: a kernel, the helpers it calls (with one it does not), and
# an unrelated module; each run edits one of them and says whether numba compiled or loaded
STEPS = "from .limits import CAP\nfrom tilesweep.solver.jit import inline_kernel\n\n\n" \
        "@inline_kernel\ndef step(x):\n    return min(x + 1, CAP)\n\n\ndef unused(x):\n    return x\n"
PACKAGE = {
    "__init__.py": "",
    "limits.py": "CAP = 100\n",
    "steps.py": STEPS,
    "unrelated.py": "def other():\n    return 1\n",
    "walk.py": "from tilesweep.solver.jit import kernel\nfrom .steps import step\n\n\n"
               "@kernel\ndef walk(n):\n    x = 0\n    for _ in range(n):\n        x = step(x)\n    return x\n",
}

COMPILE_OR_LOAD = """
import tilesweep.solver.jit as jit
from stamped.walk import walk
with jit.watch_compiles() as watch:
    value = walk(200)
print("compiled" if watch.compiled else "loaded", value)
"""


@pytest.mark.slow
def test_a_cached_kernel_compiles_afresh_after_a_change_to_what_it_calls_only(tmp_path):
    """numba alone would load the cached kernel after any edit outside its own file."""
    import os
    import subprocess
    import sys
    package = tmp_path / "stamped"
    package.mkdir()
    for name, text in PACKAGE.items():
        (package / name).write_text(text)
    env = {**os.environ, "NUMBA_CACHE_DIR": str(tmp_path / "cache"), "PYTHONPATH": str(tmp_path),
           "PYTHONDONTWRITEBYTECODE": "1"}

    def run(edit=None, text=None):
        if edit is not None:
            (package / edit).write_text(text)
        return subprocess.run([sys.executable, "-c", COMPILE_OR_LOAD], env=env, cwd=tmp_path,
                              capture_output=True, text=True, timeout=300, check=True).stdout.strip()

    assert run() == "compiled 100"
    assert run() == "loaded 100"
    assert run("unrelated.py", "def other():\n    return 2\n") == "loaded 100"
    assert run("steps.py", "# helpers\n" + STEPS.replace("return x\n", "return x + 1  # changed\n")) \
        == "loaded 100"  # a comment and a function the kernel does not call
    assert run("steps.py", STEPS.replace("x + 1", "x + 2")) == "compiled 100"
    assert run("limits.py", "CAP = 150\n") == "compiled 150"
    assert run() == "loaded 150"


@pytest.mark.slow
@pytest.mark.parametrize("damaged", ["nbi", "nbc"])
def test_a_damaged_cache_file_is_compiled_again_with_one_warning(tmp_path, damaged):
    """A kernel of the package's decorator in a module of its own, cached in a folder of its
    own: its index or entry cut short and overwritten, the next run warns once, removes it,
    compiles and answers as before; the run after loads from the rewritten cache silently."""
    import subprocess
    import sys

    (tmp_path / "tiny.py").write_text("from tilesweep.solver.jit import kernel\n\n\n@kernel\ndef twice(x):\n"
                                      "    return 2 * x\n\n\nprint(twice(21))\n")
    env = {**os.environ, "NUMBA_CACHE_DIR": str(tmp_path / "cache"), "PYTHONPATH": str(tmp_path)}

    def run():
        return subprocess.run([sys.executable, "-c", "import tiny"], capture_output=True, text=True, env=env,
                              cwd=tmp_path, timeout=300)

    first = run()
    assert first.returncode == 0 and first.stdout == "42\n" and first.stderr == "", first.stderr
    [cached] = (tmp_path / "cache").rglob(f"tiny.twice*.{damaged}")
    cached.write_bytes(cached.read_bytes()[:40] + b"\x00damaged")
    again = run()
    lines = again.stderr.strip().splitlines()
    assert again.returncode == 0 and again.stdout == "42\n", again.stderr
    assert len(lines) == 1 and lines[0].startswith("warning: numba cache file") and repr(str(cached)) in lines[0]
    third = run()
    assert third.returncode == 0 and third.stdout == "42\n" and third.stderr == "", third.stderr
