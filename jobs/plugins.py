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
        names += plugins.register(read_file(path), str(Path(path).resolve()))
    return tuple(dict.fromkeys(names))


def read_file(path) -> str:
    """The text of plugin file ``path``, or :class:`PluginError` naming it."""
    file = Path(path)
    if not file.is_file():
        raise PluginError(f"plugin file {str(path)!r} does not exist; expected a Python file "
                          "defining HEURISTICS")
    try:
        return file.read_text()
    except (OSError, UnicodeDecodeError) as err:
        raise PluginError(f"plugin file {str(path)!r} cannot be read ({err}); expected a Python file") from None


def load_recorded_files(paths, spec_plugins) -> tuple[tuple[str, str, str, str], ...]:
    """Register the plugin files ``paths`` in place of a stored spec's plugins (``verify`` runs
    no code it was handed, only files its user names): each file must be a version the spec
    recorded, and each recorded plugin must come from one, both checked before any file runs.
    Returns the spec's plugins with the files' source, as a job takes them."""
    recorded = {name: sha for name, sha, *_ in spec_plugins}
    given = {}
    for path in paths:
        source = read_file(path)
        sha = plugins.source_sha256(source)
        if sha not in recorded.values():
            expected = ", ".join(f"{plugins.PREFIX}{n} {s[:12]}" for n, s in recorded.items()) or "none"
            raise PluginError(f"plugin file {str(path)!r} (sha256 {sha[:12]}) is not a version this sweep "
                              f"recorded; expected the file of one of its plugins (sha256: {expected})")
        given[sha] = (source, str(Path(path).resolve()))
    for name, sha in recorded.items():
        if sha not in given:
            raise PluginError(f"the sweep uses heuristic {plugins.PREFIX + name!r} (source sha256 {sha[:12]}), "
                              "whose stored source is not run here; expected its file, given with --plugin FILE")
    for source, origin in given.values():
        plugins.register(source, origin)
    return tuple((name, sha, *given[sha]) for name, sha in recorded.items())


def sources(names) -> tuple[tuple[str, str, str], ...]:
    """``(name, sha256, source)`` of each registered plugin in ``names``, as :func:`ensure` takes them."""
    return tuple((p.name, p.sha256, p.source) for p in map(plugins.plugin, names))


def used_plugins(heuristics, size: int, goal: tuple[int, ...]) -> tuple[tuple[str, str, str, str], ...]:
    """``(name, sha256, source, file)`` of each plugin that ``heuristics`` use, in order."""
    names = dict.fromkeys(name for h in heuristics if h != "none"
                          for name, _ in parse_heuristic(h, size, goal).plugins)
    return tuple((p.name, p.sha256, p.source, p.origin) for p in map(plugins.plugin, names))


def ensure(spec_plugins) -> None:
    """Register a spec's (or a task's) plugins in this process, where missing or changed,
    each only as the version recorded (:func:`check_recorded`)."""
    plugins.ensure((name, sha, source) for name, sha, source, *_ in spec_plugins)


def check_recorded(spec_plugins) -> None:
    """Refuse a spec whose stored plugin source is not the version its sha256 records (nothing runs)."""
    plugins.check_recorded((name, sha, source) for name, sha, source, *_ in spec_plugins)
