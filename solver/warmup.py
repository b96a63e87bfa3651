"""Compiling kernels ahead of the solves that need them, and noticing when numba compiles.

numba compiles a kernel once per signature, for the *types* of its arguments, and every
heuristic hands the kernels the same types (:class:`~.heuristics.KernelHeuristic` pads its
tables to one tuple of read-only ``uint8`` arrays): so one solve of a board next to the
goal per (algorithm, heuristic) compiles, or loads from numba's cache, every kernel its
solves call. A pattern database stands in as one-tile groups with all-zero tables
(:func:`types_of`): the same kernels and signatures without the store's tables.
"""

from __future__ import annotations

from dataclasses import replace

import numpy as np

from .batch import solve_boards, tiles_texts
from .board import Board
from .fsm import parse_pruning
from .heuristics import (
    HeuristicSpec,
    expected_table_size,
    kernel_heuristic,
    parse_heuristic,
    search_heuristic,
)
from .kernels import KernelInputs, near_goal, pick
from .limits import make_limits
from .solve import solve
from .subtrees import subtrees_call, warmed


def types_of(spec: HeuristicSpec, size: int) -> tuple[HeuristicSpec, tuple[np.ndarray, ...]]:
    """(heuristic, tables) that reach the same kernels with the same types as ``spec``: a
    pattern database's groups cut to their first tile, with zero tables (h = 0, admissible)."""
    if not spec.is_pdb:
        return spec, ()
    groups = tuple(group[:1] for group in spec.groups)
    tables = tuple(np.zeros(expected_table_size(size, g, kind), dtype=np.uint8)
                   for g, (_, kind) in zip(groups, spec.tables))
    return replace(spec, groups=groups, reflect=False), tables


def warm_sweep(size: int, goal: tuple[int, ...], combos, prune: str = "parent") -> None:
    """Run, on a board next to ``goal``, every kernel a sweep chunk calls for ``combos``
    ((algorithm, heuristic name) pairs; heuristic ``none`` for uninformed searches).

    A combination that cannot run (a heuristic not offered for ``size``) is skipped: its
    sweep rows report the same failure.
    """
    goal = tuple(goal)
    boards = near_goal(goal, size)[None, :]
    tiles_texts(boards)
    for algorithm, name in combos:
        try:
            spec, tables = types_of(search_heuristic(name, size, goal), size)
            solve_boards(boards, size, goal, algorithm, spec, tables, max_nodes=1000, prune=prune)
        except Exception:  # noqa: BLE001 - the same failure becomes each solve's "error" row
            continue


def kernel_family(size: int, goal: tuple[int, ...], algorithm: str, name: str, prune: str = "parent") -> tuple:
    """What names the kernels a sweep chunk of ``algorithm`` with heuristic ``name`` calls:
    combinations of one family call the same ones. Under parent pruning, a built-in
    heuristic's family is its search kernel as the kernel table names it
    (:func:`~.kernels.pick`: one name per compiled kernel, e.g. the packed A*'s way of
    finding h); a plugin's, or any combination under an automaton, is a family of its own."""
    goal = tuple(goal)
    if parse_pruning(prune, size).kind != "parent":
        return algorithm, name
    try:
        spec, tables = types_of(search_heuristic(name, size, goal), size)
    except ValueError:  # not offered for this size: the sweep's rows say so
        return algorithm, name
    inputs = KernelInputs(algorithm, size, goal, kernel_heuristic(spec, size, goal, tables), make_limits(1000))
    return (algorithm, name) if inputs.plugin else (pick(inputs)[0],)


def warm_solve(size: int, goal: tuple[int, ...], combos, prune: str = "parent") -> None:
    """Run every kernel :func:`~.solve.solve` calls for ``combos`` (``tilesweep solve``,
    the web UI, a sweep's boards outside its batches), on a board next to ``goal`` and on
    the goal itself."""
    goal = tuple(goal)
    boards = [Board(tuple(near_goal(goal, size).tolist()), size), Board(goal, size)]
    for algorithm, name in combos:
        try:
            spec, tables = types_of(search_heuristic(name, size, goal), size)
        except ValueError:  # not offered for this size
            continue
        for board in boards:
            solve(board, goal, algorithm, spec, tables, max_nodes=1000, prune=prune)


def warm_split(size: int, goal: tuple[int, ...], heuristics) -> None:
    """Run the subtree kernels of parallel IDA* (``solve --parallel``, a sweep's
    ``--parallel-above``) for each heuristic name, on one root next to ``goal``."""
    goal = tuple(goal)
    for name in heuristics:
        try:
            spec, tables = types_of(parse_heuristic(name, size, goal), size)
        except ValueError:  # not offered for this size
            continue
        warmed(subtrees_call(size, goal, kernel_heuristic(spec, size, goal, tables)), size, goal)
