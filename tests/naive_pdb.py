"""Deliberately naive references for the pattern-database tests (plain Python).

* :func:`naive_states` runs a 0-1 breadth-first search over full abstract states
  (cell of each pattern tile, cell of the blank), moving the blank one cell at a time:
  a step onto a pattern tile moves that tile (cost 1), any other step costs 0;
  :func:`naive_pdb` takes the least over the blank's cells.
* :func:`naive_ignoring_pdb` runs a plain breadth-first search over placements alone:
  a pattern tile steps onto any adjacent cell no other pattern tile holds (cost 1),
  the blank ignored (the blank-ignoring kind of table).
* :func:`true_distances` is a plain breadth-first search from the goal over every
  state of the 3x3 puzzle.
* :func:`naive_rank` ranks a placement the way the text of :mod:`solver.ranking` says.
"""

from __future__ import annotations

from collections import deque
from functools import lru_cache

import numpy as np


def adjacent(cell: int, size: int) -> list[int]:
    """Cells next to ``cell`` on a ``size`` board."""
    row, col = divmod(cell, size)
    out = []
    for dr, dc in ((-1, 0), (0, -1), (0, 1), (1, 0)):
        r, c = row + dr, col + dc
        if 0 <= r < size and 0 <= c < size:
            out.append(r * size + c)
    return out


def naive_rank(cells, n_cells: int) -> int:
    """Mixed-radix rank: digit i is cell i counted among cells not taken by tiles 0..i-1."""
    rank = 0
    for i, c in enumerate(cells):
        free_before = [x for x in range(n_cells) if x not in cells[:i]]
        rank = rank * (n_cells - i) + free_before.index(c)
    return rank


def naive_pdb(size: int, goal, group) -> dict[tuple[int, ...], int]:
    """Map each reachable placement (cells of ``group``'s tiles) to its PDB value."""
    best: dict[tuple[int, ...], int] = {}
    for (cells, _blank), d in naive_states(size, goal, group).items():
        best[cells] = min(d, best.get(cells, d))
    return best


def naive_states(size: int, goal, group) -> dict[tuple[tuple[int, ...], int], int]:
    """Map each reachable abstract state (cells of ``group``'s tiles, cell of the blank) to
    its distance from the goal's: what a zero-aware table holds for it."""
    start = (tuple(goal.index(t) for t in group), goal.index(0))
    dist = {start: 0}
    queue = deque([start])
    while queue:
        state = queue.popleft()
        cells, blank = state
        d = dist[state]
        for cell in adjacent(blank, size):
            if cell in cells:
                i = cells.index(cell)
                nxt = (cells[:i] + (blank,) + cells[i + 1:], cell)
                cost = 1
            else:
                nxt = (cells, cell)
                cost = 0
            if nxt not in dist or dist[nxt] > d + cost:
                dist[nxt] = d + cost
                queue.appendleft(nxt) if cost == 0 else queue.append(nxt)
    return dist


def naive_table(size: int, goal, group) -> np.ndarray:
    """:func:`naive_pdb` as a ``uint8`` array indexed by :func:`naive_rank`; 255 unreached.
    Made once per test process for each table (read-only): several tests check the same one."""
    return _naive_table(size, tuple(goal), tuple(group))


@lru_cache(maxsize=None)
def _naive_table(size: int, goal: tuple[int, ...], group: tuple[int, ...]) -> np.ndarray:
    n = size * size
    count = 1
    for i in range(len(group)):
        count *= n - i
    table = np.full(count, 255, dtype=np.uint8)
    for cells, d in naive_pdb(size, goal, group).items():
        table[naive_rank(cells, n)] = d
    table.flags.writeable = False
    return table


def naive_ignoring_pdb(size: int, goal, group) -> dict[tuple[int, ...], int]:
    """Map each reachable placement of ``group``'s tiles to its blank-ignoring distance."""
    start = tuple(goal.index(t) for t in group)
    dist = {start: 0}
    queue = deque([start])
    while queue:
        cells = queue.popleft()
        for i, cell in enumerate(cells):
            for nxt_cell in adjacent(cell, size):
                if nxt_cell in cells:
                    continue
                nxt = cells[:i] + (nxt_cell,) + cells[i + 1:]
                if nxt not in dist:
                    dist[nxt] = dist[cells] + 1
                    queue.append(nxt)
    return dist


def naive_ignoring_table(size: int, goal, group) -> np.ndarray:
    """:func:`naive_ignoring_pdb` as a ``uint8`` array indexed by :func:`naive_rank`; 255
    unreached."""
    n = size * size
    count = 1
    for i in range(len(group)):
        count *= n - i
    table = np.full(count, 255, dtype=np.uint8)
    for cells, d in naive_ignoring_pdb(size, tuple(goal), tuple(group)).items():
        table[naive_rank(cells, n)] = d
    return table


def true_distances(goal) -> tuple[np.ndarray, np.ndarray]:
    """Every 3x3 state reachable from ``goal`` and its distance, by plain BFS.

    Returns ``(states, distances)``: ``int8[181440, 9]`` tiles and ``int64[181440]``.
    """
    start = tuple(goal)
    dist = {start: 0}
    queue = deque([start])
    moves = [adjacent(c, 3) for c in range(9)]
    while queue:
        state = queue.popleft()
        blank = state.index(0)
        d = dist[state] + 1
        for cell in moves[blank]:
            tiles = list(state)
            tiles[blank], tiles[cell] = tiles[cell], 0
            nxt = tuple(tiles)
            if nxt not in dist:
                dist[nxt] = d
                queue.append(nxt)
    states = np.array(list(dist.keys()), dtype=np.int8)
    return states, np.fromiter(dist.values(), dtype=np.int64, count=len(dist))


def database_h(size: int, goal, groups, tables, reflect: bool):
    """h(tiles, goal) of one pattern database: the sum of its groups' ``tables`` entries, by
    plain ranking; with ``reflect`` the larger of it and the same sum on the board mirrored
    about the main diagonal (tile t on cell c becomes the tile whose goal cell mirrors t's,
    on the mirror of c)."""
    n = size * size

    def mirror(c):
        return (c % size) * size + c // size

    relabel = {t: goal[mirror(goal.index(t))] for t in range(n)}

    def pdb_sum(where):
        return sum(int(table[naive_rank(tuple(where[t] for t in group), n)]) for group, table in zip(groups, tables))

    def h(tiles, _goal):
        where = {t: c for c, t in enumerate(tiles)}
        value = pdb_sum(where)
        if reflect:
            value = max(value, pdb_sum({relabel[t]: mirror(c) for t, c in where.items()}))
        return value
    return h
