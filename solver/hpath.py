"""The heuristic's value of each board a solution passes through (the web UI's replay)."""

from __future__ import annotations

import numpy as np

from .board import Board
from .heuristics import HeuristicSpec, kernel_heuristic
from .search import heuristic_values


def h_along(board: Board, goal: tuple[int, ...], moves: str, spec: HeuristicSpec,
            tables: tuple[np.ndarray, ...] = ()) -> list[int]:
    """h of ``board`` and of each board after each move of ``moves`` (``len(moves) + 1`` values),
    computed by the kernels the searches use (every heuristic, pattern databases and plugins included)."""
    boards, at = [board.array()], board
    for move in moves:
        at = at.apply(move)
        boards.append(at.array())
    H = kernel_heuristic(spec, board.size, tuple(goal), tables)
    return heuristic_values(np.stack(boards), board.size, H).tolist()
