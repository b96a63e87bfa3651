"""Every numba kernel of the package is compiled with the options of ``solver/jit.py``."""

import importlib
import pkgutil

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
