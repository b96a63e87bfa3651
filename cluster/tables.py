"""The one adapter between a sweep and the pattern-database store (:mod:`pdb_store`).

Tasks never carry tables: they carry the store path and heuristic names, and each worker
process maps the tables once (see :mod:`cluster.plugin`). Tables the sweep needs and the
store lacks are built once, by :func:`build_missing`, run as one task on one worker
under the store's lock before any solve task starts.
"""

from __future__ import annotations

from distributed import get_worker

from tilesweep.pdb_store import open_store, resolve_store, tables_for
from tilesweep.solver.fsm import parse_pruning
from tilesweep.solver.heuristics import parse_heuristic

from .compiling import reported_compiles

#: Dask event topic of the progress of table builds (see :func:`build_missing`).
BUILD_TOPIC = "tilesweep-pdb-build"


def pdb_heuristics(heuristics, size: int, goal: tuple[int, ...]) -> list[str]:
    """The names among ``heuristics`` that need pattern-database tables."""
    return [h for h in heuristics if h != "none" and parse_heuristic(h, size, goal).is_pdb]


def resolve(store: str | None) -> str:
    """The store folder a sweep uses (``--store``, ``$TILESWEEP_STORE`` or the user cache)."""
    return str(resolve_store(store))


def check_store(spec, store: str | None) -> None:
    """A sweep's store folder must exist or be creatable when it reads pattern databases
    (writing is needed only to build)."""
    if pdb_heuristics([h for _, h in spec.combos], spec.size, spec.goal_tuple):
        from tilesweep.jobs.parts import check_folder
        check_folder(resolve_store(store), "--store", write=False)


def open_tables(store: str, heuristics, size: int, goal: tuple[int, ...], build: bool = False,
                on_layer=None):
    """(open store, {heuristic name: tables}) for the ``pdb:`` names among ``heuristics``."""
    names = pdb_heuristics(heuristics, size, goal)
    if not names:
        return None, {}
    handle = open_store(store)
    tables = {h: tables_for(parse_heuristic(h, size, goal), size, goal, handle, build=build,
                            on_layer=on_layer) for h in names}
    return handle, tables


def read_automaton(store: str, prune: str, size: int) -> None:
    """For ``fsm`` pruning: read the automaton from the store (built into it once, under its
    lock, by the first worker that needs it), so solves in this process use it."""
    pruning = parse_pruning(prune, size)
    if pruning.kind == "fsm":
        open_store(store).automaton(size, pruning.depth)


def build_missing(store: str, heuristics, size: int, goal: tuple[int, ...]) -> list[str]:
    """Build (under the store's lock) every table the heuristics need; return their names.

    Run as a task: each build's progress goes to the client as events on :data:`BUILD_TOPIC`.
    """
    def on_layer(progress) -> None:
        get_worker().log_event(BUILD_TOPIC, progress._asdict())

    with reported_compiles():
        handle, tables = open_tables(store, heuristics, size, goal, build=True, on_layer=on_layer)
    close = getattr(handle, "close", None)
    if close is not None:
        close()
    return sorted(tables)
