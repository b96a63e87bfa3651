"""Every IDA* kernel keeps the same accounting whatever stops it: the nodes of its iteration
table add up to its nodes generated, and a specialised kernel gives the general kernel's
status, counts and iteration table on the same board under the same limits.

The per-tile kernel runs its own copy of the iteration loop, so it is also held to the
general kernel with parent pruning (no automaton: a real search, solved or out of budget)
and under a time limit, both pruning ways: a time limit stops it at a node count that
depends on the clock, and the general kernel given that count as its node budget must stop
at the same node with the same counts and iteration table.

An automaton that lets the blank only circle one 2x2 block (R, D, L, U, ...) makes every
contour a single path that never meets the goal, so each kernel deepens until the path
reaches MAX_DEPTH (TOO_DEEP) after a few hundred cheap iterations, or meets a node budget
on the way.
"""

from pathlib import Path
from types import SimpleNamespace

import numpy as np
import pytest

from tilesweep.jobs.plugins import load_files
from tilesweep.pdb_store import open_store, tables_for
from tilesweep.solver import goal_tiles, parse_heuristic
from tilesweep.solver.deepening import MAX_DEPTH
from tilesweep.solver.geometry import neighbours64
from tilesweep.solver.heuristics import kernel_heuristic
from tilesweep.solver.idastar import _idastar
from tilesweep.solver.kernels import goal_positions
from tilesweep.solver.limits import make_limits
from tilesweep.solver.search import idastar_call
from tilesweep.solver.status import BUDGET_NODES, SOLVED, TIMEOUT, TOO_DEEP

EXAMPLE = Path(__file__).resolve().parents[1] / "examples" / "heuristics" / "manhattan.py"
GOAL = goal_tiles("blank-last", 3)
START = np.array([0, 1, 2, 3, 4, 5, 6, 7, 8], dtype=np.int8)  # blank on cell 0, the goal's on 8
HARDEST = np.array([8, 6, 7, 2, 5, 4, 3, 0, 1], dtype=np.int8)  # 31 moves from GOAL, the most on 3x3


def circling() -> SimpleNamespace:
    """An automaton (its ``full`` table, as :mod:`solver.fsm` gives it) allowing from the top-left
    cell only R, D, L, U, R, ...: the blank walks round the top-left 2x2 block for ever."""
    full = np.full(4 * 4, -1, dtype=np.int32)
    for state, move in enumerate((2, 3, 1, 0)):  # R, D, L, U in the kernels' U, L, R, D order
        full[state * 4 + move] = (state + 1) % 4
    return SimpleNamespace(full=full)


def kernel_heuristic_of(name, tmp_path):
    spec = parse_heuristic(name, 3, GOAL)
    with open_store(tmp_path) as store:
        return kernel_heuristic(spec, 3, GOAL, tables_for(spec, 3, GOAL, store))


def outcome(out) -> tuple:
    status, _, cost, generated, expanded, bounds, iter_nodes, n_iter, h0 = out
    return (int(status), int(cost), int(generated), int(expanded), int(h0), bounds[:n_iter].tolist(),
            iter_nodes[:n_iter].tolist())


# heuristic, the kernel idastar_call picks for it, the built-in that the general kernel runs alongside
CASES = [("manhattan", "idastar-tiles", "manhattan"),
         ("walking-distance", "idastar-walk", "walking-distance"),
         ("walking-distance+id", "idastar-walk", "walking-distance+id"),
         ("pdb:4-4", "idastar-pdb", "pdb:4-4"),
         ("pdb:4-4+reflect", "idastar-pdb", "pdb:4-4+reflect"),
         ("max(pdb:4-4+reflect,walking-distance)", "idastar-pdb-walk", "max(pdb:4-4+reflect,walking-distance)"),
         ("linear-conflict", "idastar-lines", "linear-conflict"),
         ("max(linear-conflict,walking-distance)", "idastar", "max(linear-conflict,walking-distance)"),
         pytest.param("plugin:manhattan-plugin", "idastar-plugin-only-", "manhattan",
                      marks=pytest.mark.slow),  # compiles a plugin's kernel (5-18 s at load 8)
         pytest.param("max(plugin:manhattan-incremental,misplaced)", "idastar-plugin-", "manhattan",
                      marks=pytest.mark.slow)]


@pytest.mark.parametrize("name, kernel, builtin", CASES)
@pytest.mark.parametrize("max_nodes, status", [(None, TOO_DEEP), (5_000, BUDGET_NODES)])
def test_every_exit_records_the_last_iteration_as_the_general_kernel_does(name, kernel, builtin, max_nodes, status,
                                                                          tmp_path):
    load_files([EXAMPLE])
    limits = make_limits() if max_nodes is None else make_limits(max_nodes)
    H = kernel_heuristic_of(name, tmp_path)
    picked, call = idastar_call(3, GOAL, H, limits, circling())
    assert picked.startswith(kernel)
    got = outcome(call(START.copy()))
    general = outcome(_idastar(START.copy(), 3, goal_positions(GOAL), neighbours64(3),
                               kernel_heuristic_of(builtin, tmp_path), limits, circling().full, True))
    assert got[0] == status
    assert sum(got[6]) == got[2], "the iteration table leaves nodes out"
    if status == TOO_DEEP:
        assert got[5][-1] > MAX_DEPTH  # the path reached the deepest the stack holds
    assert got == general


def general_outcome(board, limits, automaton) -> tuple:
    """What the general kernel gives with Manhattan distance (``automaton``: None for parent pruning)."""
    fsm = circling().full if automaton else np.zeros(4, dtype=np.int32)
    return outcome(_idastar(board.copy(), 3, goal_positions(GOAL), neighbours64(3),
                            kernel_heuristic(parse_heuristic("manhattan", 3, GOAL), 3, GOAL), limits, fsm,
                            automaton is not None))


def tiles_outcome(board, limits, automaton) -> tuple:
    """What the per-tile kernel (the one picked for Manhattan distance) gives."""
    picked, call = idastar_call(3, GOAL, kernel_heuristic(parse_heuristic("manhattan", 3, GOAL), 3, GOAL), limits,
                                automaton)
    assert picked.startswith("idastar-tiles")
    return outcome(call(board.copy()))


@pytest.mark.parametrize("max_nodes, status", [(None, SOLVED), (20_000, BUDGET_NODES)])
def test_the_per_tile_kernel_with_parent_pruning_counts_as_the_general_kernel(max_nodes, status):
    limits = make_limits() if max_nodes is None else make_limits(max_nodes)
    got = tiles_outcome(HARDEST, limits, None)
    assert got[0] == status
    assert sum(got[6]) == got[2], "the iteration table leaves nodes out"
    assert status != SOLVED or got[1] == 31
    assert got == general_outcome(HARDEST, limits, None)


@pytest.mark.parametrize("board, automaton", [(HARDEST, None), (START, circling())], ids=["parent", "automaton"])
def test_the_per_tile_kernel_stopped_by_the_clock_counts_as_the_general_kernel(board, automaton):
    """A microsecond's limit: the clock is read at every node and runs out within some
    tens of nodes, long before either search could end by itself."""
    got = tiles_outcome(board, make_limits(time_limit=1e-6), automaton)
    assert got[0] == TIMEOUT
    assert sum(got[6]) == got[2], "the iteration table leaves nodes out"
    general = general_outcome(board, make_limits(got[2]), automaton)
    assert general[0] == BUDGET_NODES
    assert got[1:] == general[1:]
