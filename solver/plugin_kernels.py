"""The kernels of a plugin heuristic, compiled once per machine and loaded from numba's cache.

numba cannot cache a kernel that takes a plugin's function as an argument: the function's
type names the object, new in every process, so each process compiled those kernels again
(tens of seconds for each command that used a plugin). Here each set of plugins gets a
small module written to a file: its kernels call the inline searches with the plugins'
function as a global, fixed at compile time, so numba caches them like any kernel. The
file's name is the hash of its text, which names the plugins by name and source hash: a
changed plugin gets a new file; an unchanged one finds its file, and its compiled kernels,
again. (numba loads a cached kernel only where the plugin's module is importable by name:
:func:`solver.plugins.register` makes it so.)
"""

from __future__ import annotations

import hashlib
import importlib.util
import os
import sys
import types
from pathlib import Path

_TEMPLATE = '''\
"""Kernels bound to the plugins {plugins!r} (written by tilesweep.solver.plugin_kernels)."""

from tilesweep.solver.graphsearch import graph_search
from tilesweep.solver.idastar import idastar_search, no_step, plugin_search
from tilesweep.solver.jit import kernel
from tilesweep.solver.plugins import combined_function, incremental_function, values_of

PLUGINS = {plugins!r}
plug = combined_function(PLUGINS)
step = incremental_function(PLUGINS) or no_step


@kernel
def idastar_plugin_only(tiles8, size, goal_pos, nbr, H, limits, fsm, use_fsm, use_step):
    return plugin_search(tiles8, size, goal_pos, nbr, H, limits, fsm, use_fsm, plug, step, use_step)


@kernel
def idastar_plugin(tiles8, size, goal_pos, nbr, H, limits, fsm, use_fsm):
    return idastar_search(tiles8, size, goal_pos, nbr, H, limits, fsm, use_fsm, plug)


@kernel
def graph_search_plugin(kind, tiles8, size, goal_pos, nbr, H, limits, fsm, use_fsm):
    return graph_search(kind, tiles8, size, goal_pos, nbr, H, limits, fsm, use_fsm, plug, True, True)


@kernel
def plugin_values(boards, goal):
    return values_of(boards, goal, plug)
'''

_LOADED: dict[tuple, types.ModuleType] = {}


def plugin_kernels(plugins: tuple[tuple[str, str], ...]) -> types.ModuleType:
    """The module of kernels for the registered plugins ``(name, sha256)``: ``idastar_plugin_only``,
    ``idastar_plugin``, ``graph_search_plugin`` and ``plugin_values``, each the kernel of the
    same name without its plugin argument."""
    if plugins not in _LOADED:
        _LOADED[plugins] = _load(_written(_TEMPLATE.format(plugins=plugins)))
    return _LOADED[plugins]


def _folder() -> Path:
    """Beside numba's cache of the solver's kernels (a folder numba could write)."""
    from .astar import _rehash
    return Path(_rehash._cache._cache_path) / "plugin_kernels"


def _written(text: str) -> Path:
    """The file holding ``text``, written once: rewriting it would change its time, which
    numba reads as a changed source (and compiles again)."""
    path = _folder() / f"plugin_{hashlib.sha256(text.encode()).hexdigest()[:20]}.py"
    if not path.is_file():
        path.parent.mkdir(parents=True, exist_ok=True)
        part = path.with_suffix(f".{os.getpid()}.part")
        part.write_text(text)
        try:
            os.link(part, path)  # whole or absent for a reader, and never replaces another's
        except FileExistsError:
            pass
        finally:
            part.unlink()
    return path


def _load(path: Path) -> types.ModuleType:
    """Import ``path`` under its own name (numba imports a cached kernel's module by name)."""
    name = f"tilesweep_{path.stem}"
    spec = importlib.util.spec_from_file_location(name, path)
    module = importlib.util.module_from_spec(spec)
    sys.modules[name] = module
    spec.loader.exec_module(module)
    return module
