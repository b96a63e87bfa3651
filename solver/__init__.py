"""The sliding-tile domain and its optimal search algorithms.

Pure computation: no files, no Dask, no printing. The public vocabulary::

    from tilesweep.solver import Board, solve
    result = solve(Board.parse("8 6 7 2 5 4 3 0 1"), "blank-last", "astar", "manhattan")
"""

if __name__ != "tilesweep.solver":  # a module under two names shares numba's cache files (docs/design.md)
    raise ImportError(f"import tilesweep.solver, not {__name__}; `pip install -e .` in the checkout installs it")

from .board import Board, goal_label, goal_tiles, is_solvable
from .ebf import effective_branching_factor
from .errors import InvalidBoardError, InvalidOptionError, TilesweepError, UnknownNameError
from .heuristics import BASE_HEURISTICS, PARTITIONS, HeuristicSpec, heuristic_names, parse_heuristic
from .solve import ALGORITHMS, SolveResult, solve

__all__ = [
    "ALGORITHMS", "BASE_HEURISTICS", "PARTITIONS", "Board", "HeuristicSpec", "InvalidBoardError",
    "InvalidOptionError", "SolveResult", "TilesweepError", "UnknownNameError",
    "effective_branching_factor", "goal_label", "goal_tiles", "heuristic_names", "is_solvable",
    "parse_heuristic", "solve",
]
