"""Additive disjoint pattern databases built once into a verified ``.npy`` store.

Public API::

    build_table(size, goal, group) -> numpy.ndarray          # uint8, one group
    resolve_store(path=None) -> pathlib.Path
    open_store(path=None) -> PDBStore                        # context manager
    PDBStore.table / build / ensure / entries / verify / path_of
    tables_for(spec, size, goal, store, build=True, on_build=None)
"""

if __name__ != "tilesweep.pdb_store":  # a module under two names shares numba's cache files (docs/design.md)
    raise ImportError(f"import tilesweep.pdb_store, not {__name__}; `pip install -e .` in the checkout installs it")

from .build import BuildProgress, build_table
from .errors import CorruptTableError, MissingTableError, StoreError
from .manifest import FORMAT_VERSION, TableEntry
from .paths import resolve_store, table_filename
from .store import PDBStore, open_store, tables_for
from .verify import TableCheck

__all__ = [
    "FORMAT_VERSION", "BuildProgress", "CorruptTableError", "MissingTableError", "PDBStore", "StoreError",
    "TableCheck", "TableEntry", "build_table", "open_store", "resolve_store",
    "table_filename", "tables_for",
]
