"""Naive walking distance: a fresh breadth-first search per board and per axis.

Written from Takahashi's definition and sharing no code with ``solver.walking``: on the
vertical axis each tile is replaced by its goal row and each row by the sorted tuple of
those labels (the order inside a row does not matter); a move carries one tile from a
row next to the blank's into the blank's row. The axis' distance is the fewest such moves
to the goal's rows, found by a BFS from the board's own abstraction. The horizontal axis
is the same on the transposed board.
"""

from __future__ import annotations

import math
from collections import deque
from functools import lru_cache


def _rows(tiles, goal, transpose: bool):
    """(rows as sorted label tuples, blank's row) of one axis' abstraction."""
    size = math.isqrt(len(tiles))
    goal_line = {}
    for cell, t in enumerate(goal):
        r, c = divmod(cell, size)
        goal_line[t] = c if transpose else r
    rows = [[] for _ in range(size)]
    blank = None
    for cell, t in enumerate(tiles):
        r, c = divmod(cell, size)
        line = c if transpose else r
        if t == 0:
            blank = line
        else:
            rows[line].append(goal_line[t])
    return tuple(tuple(sorted(row)) for row in rows), blank


def _moves(state):
    rows, blank = state
    for src in (blank - 1, blank + 1):
        if 0 <= src < len(rows):
            for label in set(rows[src]):
                new = [list(r) for r in rows]
                new[src].remove(label)
                new[blank].append(label)
                yield tuple(tuple(sorted(r)) for r in new), src


def axis_distance(tiles, goal, transpose: bool) -> int:
    """Fewest abstract moves from the board's abstraction to the goal's (BFS)."""
    start, target = _rows(tiles, goal, transpose), _rows(goal, goal, transpose)
    seen = {start: 0}
    queue = deque([start])
    while queue:
        state = queue.popleft()
        if state == target:
            return seen[state]
        for nxt in _moves(state):
            if nxt not in seen:
                seen[nxt] = seen[state] + 1
                queue.append(nxt)
    raise ValueError("goal abstraction unreachable")


def walking_distance(tiles, goal) -> int:
    """Vertical plus horizontal walking distance of ``tiles`` for ``goal``."""
    return axis_distance(tiles, goal, False) + axis_distance(tiles, goal, True)


@lru_cache(maxsize=8)
def _all_distances(goal: tuple[int, ...], transpose: bool) -> dict:
    """Distance of every abstraction of one axis to the goal's (one BFS from the goal)."""
    start = _rows(goal, goal, transpose)
    seen = {start: 0}
    queue = deque([start])
    while queue:
        state = queue.popleft()
        for nxt in _moves(state):
            if nxt not in seen:
                seen[nxt] = seen[state] + 1
                queue.append(nxt)
    return seen


def pattern_count(size: int, goal) -> tuple[int, int]:
    """(number of vertical abstractions reachable from the goal's, largest distance)."""
    seen = _all_distances(tuple(goal), False)
    return len(seen), max(seen.values())


def walking_distance_by_table(tiles, goal) -> int:
    """The same value from one BFS per axis from the goal (moves are reversible), for
    searches that need it at thousands of boards."""
    goal = tuple(goal)
    return sum(_all_distances(goal, t)[_rows(tiles, goal, t)] for t in (False, True))


def inversions(tiles, goal, transpose: bool) -> int:
    """Pairs of tiles out of goal order, read row by row (``transpose``: column by column)."""
    size = math.isqrt(len(tiles))

    def reading(board):
        cells = [(c % size) * size + c // size if transpose else c for c in range(len(board))]
        return [t for t in (board[cells.index(k)] for k in range(len(board))) if t != 0]
    place = {t: i for i, t in enumerate(reading(goal))}
    order = [place[t] for t in reading(tiles)]
    return sum(a > b for i, a in enumerate(order) for b in order[i + 1:])


def inversion_distance(inv: int, size: int) -> int:
    """Fewest axis moves that can undo ``inv`` inversions, by a BFS over counts: a move
    carries a tile past ``size - 1`` others, so it changes the count by at most that much
    and by an amount of the same parity."""
    steps = [k for k in range(-(size - 1), size) if (k - (size - 1)) % 2 == 0]
    top = inv + size
    seen = {inv: 0}
    queue = deque([inv])
    while queue:
        x = queue.popleft()
        if x == 0:
            return seen[x]
        for k in steps:
            if 0 <= x + k <= top and x + k not in seen:
                seen[x + k] = seen[x] + 1
                queue.append(x + k)
    raise ValueError(f"{inv} inversions cannot be undone")


def walking_inversion_distance(tiles, goal, by_table: bool = False) -> int:
    """``walking-distance+id``: per axis the larger of walking and inversion distance."""
    size = math.isqrt(len(tiles))
    goal = tuple(goal)
    total = 0
    for transpose in (False, True):
        wd = (_all_distances(goal, transpose)[_rows(tiles, goal, transpose)] if by_table
              else axis_distance(tiles, goal, transpose))
        total += max(wd, inversion_distance(inversions(tiles, goal, transpose), size))
    return total
