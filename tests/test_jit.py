"""Every numba kernel of the package is compiled with the options of ``solver/jit.py``."""

import importlib
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
        assert caching == (cached and name not in PLUGIN_KERNELS), name


#: Kernels that take a plugin's function (solver/jit.py plugin_kernel): compiled per process, not cached
PLUGIN_KERNELS = {"tilesweep.solver.plugins.plugin_values", "tilesweep.solver.idastar._idastar_plugin",
                  "tilesweep.solver.idastar_plugin._idastar_plugin_only", "tilesweep.solver.graphsearch._graph_search_plugin"}


def test_every_kernels_cache_stamp_carries_the_source_digest():
    from tilesweep.solver.jit import SOURCE_DIGEST
    for name, dispatcher in package_kernels().items():
        if name in PLUGIN_KERNELS:
            continue
        assert dispatcher._cache._cache_file._source_stamp[1] == SOURCE_DIGEST, name


KERNEL_MODULE = """
from tilesweep.solver.jit import kernel
from tilesweep.solver.limits import make_limits, next_check

@kernel
def first_check(limits):
    return next_check(0, limits)
"""

COMPILE_OR_LOAD = """
import sys
import tilesweep.solver.jit as jit
if sys.argv[1] != "same":
    jit.SOURCE_DIGEST = sys.argv[1]  # as if a source the kernel inlines had changed
import checks
with jit.watch_compiles() as watch:
    checks.first_check(checks.make_limits())
print("compiled" if watch.compiled else "loaded")
"""


@pytest.mark.slow
def test_a_changed_source_digest_compiles_a_cached_kernel_afresh(tmp_path):
    """numba alone would load the cached kernel, whose own file did not change."""
    import os
    import subprocess
    import sys
    (tmp_path / "checks.py").write_text(KERNEL_MODULE)
    env = {**os.environ, "NUMBA_CACHE_DIR": str(tmp_path / "cache"), "PYTHONPATH": str(tmp_path)}

    def run(digest):
        return subprocess.run([sys.executable, "-c", COMPILE_OR_LOAD, digest], env=env, cwd=tmp_path,
                              capture_output=True, text=True, timeout=300, check=True).stdout.strip()

    assert [run("same"), run("same"), run("changed"), run("changed")] == ["compiled", "loaded", "compiled", "loaded"]
