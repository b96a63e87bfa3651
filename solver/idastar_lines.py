"""IDA* with linear conflicts (``linear-conflict``): each line's conflicts read from its key.

The same search as :func:`solver.idastar_tiles._idastar_tiles`, run by the same contour
(:func:`solver.idastar_tiles.contour_tiles` compiled with ``lines``), with h = Manhattan
distance plus each row's and column's conflicts (:func:`solver.htables.line_conflict_table`):
a child's h is its parent's plus a Manhattan change and two reads of the conflict table
through the line keys (:mod:`solver.linesteps`), and the board and the keys are touched only
for children within the bound (undone when the search backs up). ``fsm`` prunes move
strings (:mod:`solver.fsm`) when ``use_fsm`` is set.
"""

from typing import NamedTuple

import numpy as np

from .deepening import deepening
from .hstate import line_key
from .idastar_tiles import contour_tiles, start_sum, tiles_next_bound, tiles_workspace
from .jit import inline_kernel, kernel
from .linesteps import line_steps
from .successors import successor_lists


class LinesSearch(NamedTuple):
    """What the contour of :func:`_idastar_lines` takes."""

    tiles: np.ndarray     # uint64[N] the board the search stands on, 0 = blank
    blank0: int           # the start's blank cell
    h_root: int           # h of the start
    keys: np.ndarray      # int64[2n] the line keys of the node the search stands on
    lc_table: np.ndarray  # uint8[(n+1)^n] a line's conflicts by its key
    lists: np.ndarray     # successor lists (:func:`solver.successors.successor_lists`)
    steps: np.ndarray     # what a move changes (:func:`line_steps`)
    goal_pos: np.ndarray  # int64[N] goal cell of each tile
    st_pos: np.ndarray    # uint64[MAX_DEPTH + 1] per depth, the position in the parent's list
    st_h: np.ndarray      # int64[MAX_DEPTH + 1] per depth, h
    st_q: np.ndarray      # int64[MAX_DEPTH + 1] per depth, the automaton state
    path: np.ndarray      # int8[MAX_DEPTH] the moves to a goal found
    fsm: np.ndarray       # int32[S * 4] pruning automaton


def line_contour(use_fsm: bool):
    """The contour of :func:`_idastar_lines`: the per-tile contour with its ``lines`` steps, in
    the form :func:`solver.deepening.deepening` takes, with automaton pruning or without it (a
    constant, so the copy for parent pruning compiles without the automaton)."""

    @inline_kernel
    def contour_lines(ctx, bound, generated, expanded, check_at, limits, deadline):
        """One contour below the start (``ctx``: a :class:`LinesSearch`; ``steps`` stands in
        for the per-tile ``delta``, which the contour does not read with ``lines``)."""
        status, generated, expanded, min_excess, cost, check_at = contour_tiles(
            ctx.tiles, ctx.blank0, ctx.h_root, 0, -1, 0, bound, 1, ctx.lists, ctx.steps, ctx.goal_pos, ctx.st_pos,
            ctx.st_h, ctx.st_q, ctx.path, generated, expanded, check_at, limits, deadline, ctx.fsm, use_fsm,
            ctx.keys, ctx.lc_table, ctx.steps, True)
        return status, generated, expanded, tiles_next_bound(bound, min_excess, 1), cost, check_at

    return contour_lines


_deepen_parent = deepening(line_contour(False))
_deepen_fsm = deepening(line_contour(True))


@kernel
def _idastar_lines(tiles8, size, goal_pos, nbr8, tile_cost, lc_code, lc_table, limits, fsm, use_fsm):
    """IDA* guided by Manhattan distance plus linear conflicts, with parent or automaton pruning.

    Parameters
    ----------
    tiles8 : int8[N]          start board, row-major, 0 = blank; solvable, not the goal
    size : int64              board width n
    goal_pos : int64[N]       goal cell of each tile
    nbr8 : int8[N, 4]         neighbour table, -1 off the board
    tile_cost : int32[N, N]   Manhattan distance of tile t on cell c
    lc_code : int32[2n + 2, N]  each tile's digit in each line's key, then its goal place
                              (:func:`solver.htables.line_codes`)
    lc_table : uint8[(n+1)^n] a line's conflicts by its key
    limits : int64[LIMITS_LEN]  node budget and time limit (:mod:`solver.limits`)
    fsm : int32[S * 4]        pruning automaton (:mod:`solver.fsm`), read if ``use_fsm``

    Returns
    -------
    Same as :func:`solver.idastar._idastar`.
    """
    tiles = tiles8.astype(np.uint64)
    lists = successor_lists(nbr8)
    steps = line_steps(nbr8, size, tile_cost, lc_code)
    path, bounds, iter_nodes, st_pos, st_h, st_q = tiles_workspace()
    keys = np.zeros(2 * size, dtype=np.int64)
    blank0, h_root = start_sum(tiles8, tile_cost)
    for line in range(2 * size):
        keys[line] = line_key(tiles, line, size, lc_code)
        h_root += lc_table[keys[line]]
    ctx = LinesSearch(tiles=tiles, blank0=blank0, h_root=h_root, keys=keys, lc_table=lc_table, lists=lists,
                      steps=steps, goal_pos=goal_pos, st_pos=st_pos, st_h=st_h, st_q=st_q, path=path, fsm=fsm)
    if use_fsm:
        return _deepen_fsm(ctx, h_root, limits, path, bounds, iter_nodes)
    return _deepen_parent(ctx, h_root, limits, path, bounds, iter_nodes)
