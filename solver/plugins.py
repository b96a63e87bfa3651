"""Plugin heuristics: a user's numba function of the board, named ``plugin:NAME``.

A plugin is Python source that defines ``HEURISTICS``, a dict from names to functions
``h(tiles, goal) -> int``: ``tiles`` and ``goal`` are ``int64[N]`` boards, row-major,
0 the blank (read them, never write them); ``h`` is the estimated moves to the goal,
0 at the goal. A function not yet compiled with ``numba.njit`` is compiled here. The
search kernels call it for every node they generate, at compiled speed.

This module keeps the plugins of this process by name (:func:`register`, the source
text in; reading files is the callers' part, installed packages' entry points are read
here: :func:`load_installed`) and checks a plugin on the board size and
goal before it runs (:func:`checked`): it must compile for ``int64`` boards, return an
integer, and give 0 at the goal. A plugin is known by its name and the sha256 of its
source (:attr:`Plugin.sha256`), which sweeps record.

A file may also define ``INCREMENTAL``, a dict from some of those names to functions
``step(tiles, goal, h, tile, source, target) -> int``: the h of the board ``tiles`` (which
already shows the move) when ``tile`` has just moved from cell ``source`` to cell
``target`` and the board before the move had h ``h``. IDA* with the plugin alone calls it
instead of the full-board form; :func:`checked` compares the two along a random walk.
"""

from __future__ import annotations

import hashlib
import importlib.util
import re
import sys
import types
from dataclasses import dataclass
from functools import lru_cache
from importlib.metadata import entry_points
from pathlib import Path

import numba
import numpy as np
from numba.core.dispatcher import Dispatcher

from .errors import InvalidOptionError, UnknownNameError
from .jit import inline_kernel

PREFIX = "plugin:"
NAME_RE = r"[a-z0-9][a-z0-9_.-]*"


class PluginError(InvalidOptionError):
    """A plugin that cannot serve as a heuristic (does not load, compile, or returns a bad h)."""


@dataclass(frozen=True)
class Plugin:
    name: str
    sha256: str       # of the source that defines it
    source: str
    origin: str       # where the source came from (a file name), for messages
    function: object  # the numba dispatcher
    step: object = None  # the incremental form's dispatcher, if the file gives one


_PLUGINS: dict[str, Plugin] = {}


def source_sha256(source: str) -> str:
    return hashlib.sha256(source.encode()).hexdigest()


def register(source: str, origin: str) -> tuple[str, ...]:
    """Run plugin ``source`` and keep each heuristic of its ``HEURISTICS``; return their names.

    A name already known is replaced (the last source given wins).
    """
    sha = source_sha256(source)
    module = types.ModuleType(f"tilesweep_plugin_{sha[:16]}")
    module.__file__ = origin
    try:
        exec(compile(source, origin, "exec"), module.__dict__)  # noqa: S102 - the user's own heuristic
    except Exception as err:  # noqa: BLE001 - whatever the user's module raises is reported in one line
        raise PluginError(f"plugin file {origin!r} raises when loaded: {type(err).__name__}: "
                          f"{_first_line(err)}") from None
    found = getattr(module, "HEURISTICS", None)
    if not isinstance(found, dict) or not found:
        raise PluginError(f"plugin file {origin!r} defines no HEURISTICS; expected a dict such as "
                          "HEURISTICS = {'my-h': my_h} of numba functions h(tiles, goal) -> int")
    for name, function in found.items():
        if not isinstance(name, str) or not re.fullmatch(NAME_RE, name):
            raise PluginError(f"plugin file {origin!r}: heuristic name {name!r} is not a name; expected "
                              "lower-case letters, digits, '.', '_' and '-'")
        if not callable(function):
            raise PluginError(f"plugin file {origin!r}: HEURISTICS[{name!r}] is not a function")
    steps = getattr(module, "INCREMENTAL", {})
    if not isinstance(steps, dict) or set(steps) - set(found) or not all(map(callable, steps.values())):
        raise PluginError(f"plugin file {origin!r}: INCREMENTAL is not a dict from names of its "
                          "HEURISTICS to functions step(tiles, goal, h, tile, source, target)")
    # Importable by name, as numba looks a compiled function's module up when it loads the
    # function from its cache (the name is the source's hash, the same in every process).
    sys.modules[module.__name__] = module
    for name, function in found.items():
        _PLUGINS[name] = Plugin(name, sha, source, origin, _compiled(function), _compiled(steps.get(name)))
    return tuple(found)


def _compiled(function):
    """``function`` as a numba dispatcher (None stays None)."""
    if function is None or isinstance(function, Dispatcher):
        return function
    return numba.njit(function)


def ensure(sources) -> None:
    """Register each ``(name, sha256, source)`` whose plugin this process lacks or has
    another version of (a worker receiving a sweep's plugins), each source only once
    :func:`check_recorded` has found it to be the version recorded."""
    for name, sha, source in sources:
        known = _PLUGINS.get(name)
        if known is None or known.sha256 != sha:
            check_recorded([(name, sha, source)])
            register(source, f"<plugin {name}>")


def check_recorded(sources) -> None:
    """Refuse any ``(name, sha256, source)`` whose source is not the one its sha256 names.

    Stored source (a spec's, a task's) runs only as the version that was recorded: a spec
    read from a sweep folder may come from someone else, and its text could have been
    edited with the recorded hash left as it was. Nothing is run here.
    """
    for name, sha, source in sources:
        actual = source_sha256(source) if isinstance(source, str) else None
        if actual != sha:
            raise PluginError(f"the stored source of heuristic {PREFIX + name!r} is not the version recorded "
                              f"(recorded sha256 {str(sha)[:12]}, the stored source's "
                              f"{(actual or 'none')[:12]}): it was altered and is not run; expected the "
                              "source the sweep recorded")


def names() -> list[str]:
    return sorted(_PLUGINS)


ENTRY_POINT_GROUP = "tilesweep.heuristics"


@lru_cache(maxsize=1)
def load_installed() -> tuple[str, ...]:
    """Register the plugins of installed packages, once: each entry point of the group
    ``tilesweep.heuristics`` names a module that is a plugin file (``HEURISTICS``, maybe
    ``INCREMENTAL``). Its source is registered as a file's is, so it travels to workers
    the same way; a name given by a ``--plugin`` file too keeps the file's."""
    found, known = [], dict(_PLUGINS)
    for entry in entry_points(group=ENTRY_POINT_GROUP):
        module = entry.value.partition(":")[0].strip()
        try:
            spec = importlib.util.find_spec(module)
            origin = spec.origin if spec else None
            source = Path(origin).read_text() if origin else None
        except (ImportError, OSError, ValueError, UnicodeDecodeError) as err:
            raise PluginError(f"installed plugin {entry.name!r} ({ENTRY_POINT_GROUP} entry point {entry.value!r}) "
                              f"cannot be read: {_first_line(err)}") from None
        if source is None:
            raise PluginError(f"installed plugin {entry.name!r}: module {module!r} of its {ENTRY_POINT_GROUP} "
                              "entry point is not installed; expected a Python module defining HEURISTICS")
        found += register(source, origin)
    _PLUGINS.update(known)
    return tuple(found)


def plugin(name: str) -> Plugin:
    """The plugin called ``name`` (without the ``plugin:`` prefix): given by a file, else by
    an installed package (:func:`load_installed`)."""
    if name not in _PLUGINS:
        load_installed()
    if name not in _PLUGINS:
        loaded = ", ".join(PREFIX + n for n in names()) or "none"
        raise UnknownNameError(f"heuristic {PREFIX + name!r} is not a loaded plugin (loaded: {loaded}); "
                               "expected a name from HEURISTICS of a file given with --plugin FILE or of "
                               f"an installed package's {ENTRY_POINT_GROUP} entry point")
    return _PLUGINS[name]


def _first_line(err: BaseException) -> str:
    lines = [line.strip() for line in str(err).splitlines() if line.strip()]
    return lines[0] if lines else type(err).__name__


def _typing_message(err: BaseException) -> str:
    """numba's typing error in one line: its first line names only the compiler's step
    ("Failed in nopython mode pipeline ..."), the next the cause (e.g. ``NameError: name
    'x' is not defined``); both are kept, the source excerpt and numba's "During:" trail not."""
    lines = [line.strip() for line in str(err).splitlines() if line.strip()]
    cause = next((line for line in lines[1:] if not line.startswith(("During:", "File ", "Failed in "))), None)
    return f"{lines[0]}: {cause}" if lines and cause else _first_line(err)


def _text(tiles: np.ndarray) -> str:
    return " ".join(map(str, tiles.tolist()))


def negative_message(heuristic: str, board: str | None = None, value: int | None = None) -> str:
    """The one line for a plugin heuristic that returned a negative h (``board``, ``value``
    when known)."""
    where = f" ({value}) on board {board!r}" if board is not None else " on a board of this search"
    return f"heuristic {heuristic!r} returned a negative h{where}; expected h >= 0"


def board_error(names, boards: np.ndarray, goal: np.ndarray) -> PluginError:
    """The first board of ``boards`` (int8[M, N]) on which one of the plugins ``names``
    raises or returns a negative h, as one line naming the plugin and the board (a batch
    that failed in a kernel does not say which board did)."""
    tiles = np.empty(boards.shape[1], dtype=np.int64)
    for row in boards:
        tiles[:] = row
        for name in names:
            try:
                value = int(_PLUGINS[name].function(tiles, goal))
            except Exception as err:  # noqa: BLE001 - the user's code, reported in one line
                return PluginError(f"heuristic {PREFIX + name!r} raised {type(err).__name__} on board "
                                   f"{_text(tiles)!r}: {_first_line(err)}")
            if value < 0:
                return PluginError(negative_message(PREFIX + name, _text(tiles), value))
    named = " or ".join(repr(PREFIX + name) for name in names)
    return PluginError(f"heuristic {named} failed on one of {len(boards):,} boards but on none of them tried "
                       "again one by one; expected a function of the board alone")


@lru_cache(maxsize=256)
def _checked(name: str, sha: str, goal: tuple[int, ...]) -> None:
    p = _PLUGINS[name]
    board = np.array(goal, dtype=np.int64)
    value = _called(f"heuristic {PREFIX + name!r}", "int64 boards", " at the goal", p.function, board, board.copy())
    if isinstance(value, (bool, np.bool_)) or not isinstance(value, (int, np.integer)):
        raise PluginError(f"heuristic {PREFIX + name!r} returns {type(value).__name__} {value!r}; "
                          "expected an integer number of moves")
    if value != 0:
        raise PluginError(f"heuristic {PREFIX + name!r} gives h = {value} at the goal; expected 0")
    if p.step is not None:
        _check_step(name, p, board)


STEP_CHECK_MOVES = 200  # moves of the walk on which the incremental form is compared


def _check_step(name: str, p: Plugin, goal: np.ndarray) -> None:
    """The incremental form gives the full-board form's h along a seeded random walk."""
    tiles = goal.copy()
    size = int(round(len(goal) ** 0.5))
    rng = np.random.default_rng(0)
    h = int(p.function(tiles, goal))
    for _ in range(STEP_CHECK_MOVES):
        blank = int(np.flatnonzero(tiles == 0)[0])
        r, c = divmod(blank, size)
        cells = [(r + dr) * size + c + dc for dr, dc in ((-1, 0), (1, 0), (0, -1), (0, 1))
                 if 0 <= r + dr < size and 0 <= c + dc < size]
        source = int(rng.choice(cells))
        tile = int(tiles[source])
        tiles[blank], tiles[source] = tile, 0
        stepped = _called(f"incremental form of heuristic {PREFIX + name!r}", "int64 boards and integers", "",
                          p.step, tiles, goal, h, tile, source, blank)
        h = int(p.function(tiles, goal))
        if isinstance(stepped, (bool, np.bool_)) or not isinstance(stepped, (int, np.integer)) or stepped != h:
            raise PluginError(f"incremental form of heuristic {PREFIX + name!r} gives {stepped!r} on board "
                              f"'{' '.join(map(str, tiles))}' after tile {tile} moved from cell {source} to "
                              f"{blank}; its full-board form gives {h}")


def checked(name: str, goal: tuple[int, ...]) -> Plugin:
    """The plugin ``name``, once checked on ``goal`` (compiles, returns an int, 0 there)."""
    p = plugin(name)
    _checked(name, p.sha256, tuple(goal))
    return p


def incremental_function(plugins: tuple[tuple[str, str], ...]):
    """The incremental form of a single plugin ``(name, sha256)`` that has one, else None."""
    return _PLUGINS[plugins[0][0]].step if len(plugins) == 1 else None


def kernel_key(plugins: tuple[tuple[str, str], ...]) -> str:
    """Names the kernels compiled for the plugins ``(name, sha256)``: each name with its
    source's hash, since the kernels are compiled for each function (the plugins of one
    file share a hash but not a function)."""
    return "+".join(f"{name}@{sha}" for name, sha in plugins)


@lru_cache(maxsize=None)
def combined_function(plugins: tuple[tuple[str, str], ...]):
    """One numba function: the maximum of the plugins ``(name, sha256)``, or -1 if any is
    negative; the same object for the same plugins, so their kernels compile once."""
    functions = [_PLUGINS[n].function for n, _ in plugins]
    combined = functions[0]
    for other in functions[1:]:
        combined = _max_of(combined, other)
    return combined


def _max_of(a, b):
    @numba.njit
    def larger(tiles, goal):
        x = a(tiles, goal)
        y = b(tiles, goal)
        if x < 0 or y < 0:
            return -1
        return x if x > y else y
    return larger


@inline_kernel
def values_of(boards, goal, plug):
    """``plug`` of each row of ``boards`` (int8[M, N]) for ``goal`` (int64[N]); int64[M]."""
    m, n = boards.shape
    out = np.empty(m, dtype=np.int64)
    tiles = np.empty(n, dtype=np.int64)
    for i in range(m):
        for c in range(n):
            tiles[c] = boards[i, c]
        out[i] = plug(tiles, goal)
    return out


def _called(what: str, types: str, where: str, function, *args):
    """``function(*args)``, or a PluginError naming ``what`` when it does not compile for
    ``types`` or raises (``where``: the board it raised on, said after the error's name)."""
    try:
        return function(*args)
    except numba.core.errors.TypingError as err:
        raise PluginError(f"{what} does not compile for {types}: {_typing_message(err)}") from None
    except Exception as err:  # noqa: BLE001 - a plugin may raise anything
        raise PluginError(f"{what} raised {type(err).__name__}{where}: {_first_line(err)}") from None
