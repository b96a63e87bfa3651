"""The one place JIT options are set, so every kernel compiles (and caches) alike.

Every numba kernel of the package is made by one of these decorators;
``tests/test_jit.py`` checks each compiled function of every module against
:data:`JIT_OPTIONS`. :func:`watch_compiles` tells when numba compiles one (rather than
loading it from its cache), so the time it takes is kept out of what is measured.

numba files a cached kernel under the modification time and size of its own source file
only, so a change to a helper it inlines from another module (``limits.next_check``) would
leave it loading the old code. Every kernel's cache entry is therefore also stamped with
:func:`dependency_digest`: a hash of the source of every function it calls or inlines,
transitively, and of the values of the constants they read. A change to any of them
compiles the kernel afresh; an edit elsewhere (another function, a comment between
functions, an unrelated module) leaves it loading from the cache.

A cache file that cannot be unpickled (damaged, cut short) is removed with one warning
line on stderr and the kernel compiled again, as if the entry had never been written.
"""

import contextlib
import functools
import hashlib
import inspect
import logging
import os
import sys
import time
import types
from contextlib import contextmanager
from dataclasses import dataclass, field

import numba
import numpy as np
from numba.core import event
from numba.core.caching import IndexDataCacheFile
from numba.core.dispatcher import Dispatcher
from numba.core.extending import _Intrinsic

JIT_OPTIONS = dict(cache=True, nogil=True, boundscheck=False, error_model="numpy")
_CONSTANTS = (int, float, complex, bool, str, bytes, type(None), np.generic)


def _names(code: types.CodeType):
    """Every global or attribute name ``code`` and the code nested in it refer to."""
    yield from code.co_names
    for const in code.co_consts:
        if isinstance(const, types.CodeType):
            yield from _names(const)


@functools.cache
def _source(obj) -> str:
    """The source text of a function or module (its compiled code where there is none)."""
    try:
        return inspect.getsource(obj)
    except (OSError, TypeError):
        return repr(obj.__code__.co_code) if hasattr(obj, "__code__") else obj.__name__


def dependency_digest(func) -> str:
    """A hash of what numba compiles into ``func``'s code from anywhere: the source of
    ``func`` and of every function or intrinsic of its package (or of tilesweep) that it
    names, transitively, the whole source of such a module it reads attributes of, and the
    values of the constants these functions read (numba freezes them into the code).

    Names are looked up in each function's module globals, so a name that is also an
    attribute or a local only adds to the hash (a needless recompile, never a stale kernel).
    """
    roots = {"tilesweep", func.__module__.partition(".")[0]}
    digest = hashlib.sha256()
    seen = set()

    def ours(module_name) -> bool:
        return (module_name or "").partition(".")[0] in roots

    def function(f) -> None:
        if f in seen:
            return
        seen.add(f)
        digest.update(f"{f.__module__}.{f.__qualname__}\0{_source(f)}\0".encode())
        for name in sorted(set(_names(f.__code__))):
            if name in f.__globals__:
                value(name, f.__globals__[name])
        for name, cell in zip(f.__code__.co_freevars, f.__closure__ or (), strict=True):
            value(name, cell.cell_contents)

    def value(name, v) -> None:
        if isinstance(v, Dispatcher):
            function(v.py_func)
        elif isinstance(v, _Intrinsic):
            function(v._defn)
        elif isinstance(v, types.FunctionType):
            if ours(v.__module__):
                function(v)
        elif isinstance(v, types.ModuleType):
            if ours(v.__name__) and v not in seen:
                seen.add(v)
                digest.update(f"{v.__name__}\0{_source(v)}\0".encode())
        elif isinstance(v, type):
            if ours(v.__module__) and v not in seen:
                seen.add(v)
                value(name, sys.modules[v.__module__])
        elif isinstance(v, _CONSTANTS):
            digest.update(f"{name}={v!r}:{type(v).__name__}\0".encode())
        elif isinstance(v, np.ndarray):
            digest.update(f"{name}:{v.dtype}{v.shape}\0".encode() + v.tobytes())
        elif isinstance(v, tuple | list):
            for i, item in enumerate(v):
                value(f"{name}[{i}]", item)
        elif ours(type(v).__module__):
            value(name, type(v))

    function(func)
    return digest.hexdigest()[:16]


class _StampedIndex(IndexDataCacheFile):
    """numba's index of a kernel's cache entries, its stamp (the kernel's own file's time
    and size) extended with :func:`dependency_digest`, worked out when numba first reads or
    writes the index: by then every module the kernel refers to is imported."""

    @property
    def _source_stamp(self):
        if self._digest is None:
            self._digest = dependency_digest(self._func)
        return (self._file_stamp, self._digest)

    @_source_stamp.setter
    def _source_stamp(self, stamp):
        self._file_stamp = stamp

    def _load_index(self):
        return self._or_removed(self._index_path, super()._load_index, {})

    def _load_data(self, name):
        return self._or_removed(self._data_path(name), lambda: super(_StampedIndex, self)._load_data(name), None)

    @staticmethod
    def _or_removed(path, load, empty):
        """``load()``; when the file at ``path`` cannot be unpickled, ``empty`` (nothing
        cached: numba compiles and writes the entry anew) after removing it and saying so."""
        try:
            return load()
        except OSError:
            raise
        except Exception as err:  # noqa: BLE001 - unpickling damaged bytes raises any kind of error
            logging.getLogger(__name__).warning(
                "warning: numba cache file %r is damaged (%s); removed, the kernel is compiled again",
                path, type(err).__name__)
            with contextlib.suppress(OSError):
                os.unlink(path)
            return empty


def _stamped(dispatcher):
    """``dispatcher`` with its cache entries stamped by :func:`dependency_digest` as well."""
    cache_file = dispatcher._cache._cache_file
    cache_file.__class__ = _StampedIndex
    cache_file._file_stamp = cache_file.__dict__.pop("_source_stamp")
    cache_file._func, cache_file._digest = dispatcher.py_func, None
    return dispatcher


def kernel(func):
    """Compile ``func`` as a tilesweep numba kernel."""
    return _stamped(numba.njit(**JIT_OPTIONS)(func))


def inline_kernel(func):
    """Compile a small helper that numba inlines into its callers.

    Inlining at numba's level spares each call the copying and reference counting of the
    heuristic's many arrays, which otherwise dominates the cost of a node.
    """
    return _stamped(numba.njit(inline="always", **JIT_OPTIONS)(func))


def parallel_kernel(func):
    """Compile ``func`` as a tilesweep numba kernel that may use ``numba.prange``."""
    return _stamped(numba.njit(parallel=True, **JIT_OPTIONS)(func))


@dataclass
class CompileWatch(event.Listener):
    """What numba compiled (not loaded from its cache) while installed: each outermost
    kernel compiled, and the seconds numba held its compiler lock for them (which covers
    saving them to the cache); ``on_first()`` runs when the first compile starts."""

    on_first: object = None
    compiled: list[str] = field(default_factory=list)
    seconds: float = 0.0
    _held: int = 0                # nesting of numba's compiler lock
    _since: float = 0.0
    _kernel: str | None = None    # what numba compiles in the current hold of its lock

    def on_start(self, ev) -> None:
        if ev.kind == "numba:compiler_lock":
            self._since = time.perf_counter() if self._held == 0 else self._since
            self._held += 1
        elif self._kernel is None:
            self._kernel = ev.data["dispatcher"].py_func.__qualname__
            if not self.compiled and self.on_first is not None:
                self.on_first()

    def on_end(self, ev) -> None:
        if ev.kind != "numba:compiler_lock":
            return
        self._held -= 1
        if self._held == 0 and self._kernel is not None:
            self.compiled.append(self._kernel)
            self.seconds += time.perf_counter() - self._since
            self._kernel = None


@contextmanager
def watch_compiles(on_first=None):
    """Yield a :class:`CompileWatch` that sees numba compile kernels within the block."""
    watch = CompileWatch(on_first)
    with event.install_listener("numba:compiler_lock", watch), event.install_listener("numba:compile", watch):
        yield watch
