"""The one place JIT options are set, so every kernel compiles (and caches) alike.

Every numba kernel of the package is made by one of these decorators;
``tests/test_jit.py`` checks each compiled function of every module against
:data:`JIT_OPTIONS`. :func:`watch_compiles` tells when numba compiles one (rather than
loading it from its cache), so the time it takes is kept out of what is measured.

numba files a cached kernel under the modification time and size of its own source file
only, so a change to a helper it inlines from another module (``limits.next_check``) would
leave it loading the old code. Every kernel's cache entry is therefore also stamped with
:data:`SOURCE_DIGEST`, a hash of the sources kernels are made of: any change to them
compiles the kernels afresh.
"""

import hashlib
import time
from contextlib import contextmanager
from dataclasses import dataclass, field
from pathlib import Path

import numba
from numba.core import event

JIT_OPTIONS = dict(cache=True, nogil=True, boundscheck=False, error_model="numpy")
# the folders of the modules that define kernels or the helpers they inline
KERNEL_SOURCES = (Path(__file__).parent, Path(__file__).parents[1] / "pdb_store")


def source_digest(folders=KERNEL_SOURCES) -> str:
    """A hash of every ``.py`` file in ``folders`` (names and contents)."""
    digest = hashlib.sha256()
    for path in sorted(p for folder in folders for p in folder.glob("*.py")):
        digest.update(path.name.encode() + b"\0" + path.read_bytes())
    return digest.hexdigest()[:16]


SOURCE_DIGEST = source_digest()


def _stamped(dispatcher):
    """``dispatcher`` with :data:`SOURCE_DIGEST` added to the stamp its cache entries carry."""
    cache_file = dispatcher._cache._cache_file
    cache_file._source_stamp = (cache_file._source_stamp, SOURCE_DIGEST)
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


def plugin_kernel(func):
    """Compile a kernel that takes a plugin heuristic's numba function as an argument.

    Not cached: numba compiles it for each function it is given, which is a new object
    in every process, so a cache entry would never be loaded again, only added to.
    """
    options = {**JIT_OPTIONS, "cache": False}
    return numba.njit(**options)(func)


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
