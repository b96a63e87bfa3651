"""Plugin heuristic files: read and registered (:mod:`solver.plugins`), and the plugins a
sweep's heuristics use, with the source that travels in its spec to every worker."""

from __future__ import annotations

from pathlib import Path

from tilesweep.solver import plugins
from tilesweep.solver.heuristics import parse_heuristic
from tilesweep.solver.plugins import PluginError


def load_files(paths) -> tuple[str, ...]:
    """Register every heuristic of each plugin file in ``paths``; return their names."""
    names = []
    for path in paths:
        file = Path(path)
        if not file.is_file():
            raise PluginError(f"plugin file {str(path)!r} does not exist; expected a Python file "
                              "defining HEURISTICS")
        try:
            source = file.read_text()
        except (OSError, UnicodeDecodeError) as err:
            raise PluginError(f"plugin file {str(path)!r} cannot be read ({err}); expected a Python file") from None
        names += plugins.register(source, str(file.resolve()))
    return tuple(dict.fromkeys(names))


def sources(names) -> tuple[tuple[str, str, str], ...]:
    """``(name, sha256, source)`` of each registered plugin in ``names``, as :func:`ensure` takes them."""
    return tuple((p.name, p.sha256, p.source) for p in map(plugins.plugin, names))


def used_plugins(heuristics, size: int, goal: tuple[int, ...]) -> tuple[tuple[str, str, str, str], ...]:
    """``(name, sha256, source, file)`` of each plugin that ``heuristics`` use, in order."""
    names = dict.fromkeys(name for h in heuristics if h != "none"
                          for name, _ in parse_heuristic(h, size, goal).plugins)
    return tuple((p.name, p.sha256, p.source, p.origin) for p in map(plugins.plugin, names))


def ensure(spec_plugins) -> None:
    """Register a spec's (or a task's) plugins in this process, where missing or changed."""
    plugins.ensure((name, sha, source) for name, sha, source, *_ in spec_plugins)
