"""tilesweep: distributed batch benchmarking of optimal sliding-tile puzzle search.

The repository's folders install as one package, ``tilesweep``::

    import tilesweep
    result = tilesweep.solve_board("8 6 7 2 5 4 3 0 1", algorithm="astar", heuristic="manhattan")
    sweep = tilesweep.define_sweep(size=3, count=100, heuristics=["manhattan", "linear-conflict"])
    summary = sweep.run(workers=2)

``tilesweep.solver`` (boards, heuristics, search), ``tilesweep.pdb_store`` (pattern
databases), ``tilesweep.jobs`` (sweeps and their results) and ``tilesweep.cluster`` (Dask)
are its parts; ``tilesweep.api`` (``docs/python-api.md``) runs sweeps and solves from Python. The
names below are the ones a notebook or script needs first. They load on first use, so
``tilesweep --help`` does not pay for numba.
"""

from importlib import import_module

__version__ = "0.2.0"

_PUBLIC = {
    "Board": "tilesweep.solver", "solve": "tilesweep.solver", "SolveResult": "tilesweep.solver",
    "parse_heuristic": "tilesweep.solver", "heuristic_names": "tilesweep.solver",
    "goal_tiles": "tilesweep.solver", "is_solvable": "tilesweep.solver",
    "TilesweepError": "tilesweep.solver", "open_store": "tilesweep.pdb_store",
    "load_results": "tilesweep.jobs.results", "summarize": "tilesweep.jobs.summary",
    "define_sweep": "tilesweep.api", "open_sweep": "tilesweep.api", "Sweep": "tilesweep.api",
    "solve_board": "tilesweep.api", "SweepRun": "tilesweep.api", "predict": "tilesweep.api",
}

__all__ = ["__version__", *_PUBLIC]


def __getattr__(name: str):
    if name in _PUBLIC:
        return getattr(import_module(_PUBLIC[name]), name)
    raise AttributeError(f"module 'tilesweep' has no attribute {name!r}")
