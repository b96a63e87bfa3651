"""Deliberately naive plain-Python references for the solver tests.

Nothing here imports :mod:`solver`: every function is written from the textbook
definition so that a shared bug cannot hide in both the code and its reference.

* :func:`bfs_distances` - breadth-first search over the whole 8-puzzle state space
  from a goal (dict state -> distance), cached per goal for the session.
* :func:`astar` - A* with a dict of best g and a ``heapq`` open list.
* :func:`manhattan`, :func:`misplaced`, :func:`euclidean`, :func:`linear_conflict`.
* :func:`solvable` - inversion counting (odd widths) and the blank-row rule (even widths).
* :func:`replay` - apply a move string with plain index arithmetic.
* :func:`course_queue_search`, :func:`course_astar` - the textbook BFS/DFS and A* of the
  ``pops-board-string`` conventions (a seen set, a heap of (f, board) without a closed set,
  every pop counted); :func:`heap_best_g` - A* of the ``heap-best-g`` conventions;
  :func:`euclidean_float` - the real sum of the straight-line distances.
"""

from __future__ import annotations

import heapq
import math
from collections import deque
from functools import lru_cache

EUCLID_SCALE = 1 << 20  # the fixed point documented in solver/htables.py
DELTAS = {"U": (-1, 0), "L": (0, -1), "R": (0, 1), "D": (1, 0)}  # blank travels


def goal_of(name, size: int) -> tuple[int, ...]:
    """Tiles of the goal ``name`` ('blank-last', 'blank-first') or the tiles given."""
    n = size * size
    if name == "blank-last":
        return tuple(range(1, n)) + (0,)
    if name == "blank-first":
        return tuple(range(n))
    return tuple(name)


def side(tiles) -> int:
    """Width of a square board of ``tiles``."""
    return math.isqrt(len(tiles))


def successors(tiles) -> list[tuple[str, tuple[int, ...]]]:
    """(move, board) for every legal blank move, in the order U, L, R, D."""
    size = side(tiles)
    b = tiles.index(0)
    r, c = divmod(b, size)
    out = []
    for name, (dr, dc) in DELTAS.items():
        rr, cc = r + dr, c + dc
        if 0 <= rr < size and 0 <= cc < size:
            t = list(tiles)
            t[b], t[rr * size + cc] = t[rr * size + cc], t[b]
            out.append((name, tuple(t)))
    return out


def replay(tiles, moves: str) -> tuple[int, ...]:
    """Board reached by moving the blank along ``moves``; ValueError on an illegal move."""
    board = tuple(tiles)
    for m in moves:
        legal = dict(successors(board))
        if m not in legal:
            raise ValueError(f"illegal move {m!r}")
        board = legal[m]
    return board


@lru_cache(maxsize=None)
def bfs_distances(goal: tuple[int, ...]) -> dict[tuple[int, ...], int]:
    """Distance to ``goal`` of every state that can reach it (plain BFS from the goal)."""
    dist = {goal: 0}
    queue = deque([goal])
    while queue:
        state = queue.popleft()
        d = dist[state] + 1
        for _, nxt in successors(state):
            if nxt not in dist:
                dist[nxt] = d
                queue.append(nxt)
    return dist


def goal_cells(goal) -> dict[int, tuple[int, int]]:
    """(row, column) of each tile in ``goal``."""
    return _goal_cells(tuple(goal))


@lru_cache(maxsize=16)  # the same few goals, asked at every node of a naive search
def _goal_cells(goal: tuple[int, ...]) -> dict[int, tuple[int, int]]:
    size = side(goal)
    return {t: divmod(i, size) for i, t in enumerate(goal)}


def displacements(tiles, goal):
    """(row offset, column offset) of each non-blank tile from its goal cell."""
    where, size = goal_cells(goal), side(tiles)
    for i, t in enumerate(tiles):
        if t:
            r, c = divmod(i, size)
            yield r - where[t][0], c - where[t][1]


def manhattan(tiles, goal) -> int:
    """Sum over non-blank tiles of |row - goal row| + |column - goal column|."""
    return sum(abs(dr) + abs(dc) for dr, dc in displacements(tiles, goal))


def misplaced(tiles, goal) -> int:
    """Non-blank tiles not on their goal cell."""
    return sum(1 for a, b in zip(tiles, goal, strict=True) if a and a != b)


def euclidean_fixed(tiles, goal) -> int:
    """ceil(sum(floor(d * 2^20)) / 2^20): the fixed point of solver/heuristics.py."""
    total = sum(math.floor(math.hypot(dr, dc) * EUCLID_SCALE) for dr, dc in displacements(tiles, goal))
    return -(-total // EUCLID_SCALE)


def euclidean(tiles, goal) -> int:
    """ceil of the real sum of straight-line distances of the non-blank tiles."""
    total = sum(math.sqrt(dr ** 2 + dc ** 2) for dr, dc in displacements(tiles, goal))
    return math.ceil(total - 1e-9)


def longest_increasing(seq) -> int:
    """Length of the longest strictly increasing subsequence (quadratic DP)."""
    best = []
    for i, x in enumerate(seq):
        best.append(1 + max([best[j] for j in range(i) if seq[j] < x], default=0))
    return max(best, default=0)


def linear_conflict(tiles, goal) -> int:
    """Manhattan + per line 2 x (own tiles - longest increasing run of their goal indices)."""
    where, size = goal_cells(goal), side(tiles)
    extra = 0
    for line in range(size):
        row = [tiles[line * size + c] for c in range(size)]
        own_row = [where[t][1] for t in row if t and where[t][0] == line]
        col = [tiles[r * size + line] for r in range(size)]
        own_col = [where[t][0] for t in col if t and where[t][1] == line]
        extra += 2 * (len(own_row) - longest_increasing(own_row))
        extra += 2 * (len(own_col) - longest_increasing(own_col))
    return manhattan(tiles, goal) + extra


HEURISTICS = {"manhattan": manhattan, "misplaced": misplaced, "euclidean": euclidean,
              "linear-conflict": linear_conflict}


def inversions(tiles) -> int:
    """Pairs of non-blank tiles in the wrong order (the textbook count)."""
    seq = [t for t in tiles if t]
    return sum(1 for i in range(len(seq)) for j in range(i + 1, len(seq)) if seq[i] > seq[j])


def solvable(tiles, goal_name: str = "blank-last") -> bool:
    """Textbook solvability for the standard goals (both list non-blank tiles 1..N-1 in order).

    Odd width: the inversion count is even. Even width: inversions plus the blank's row
    has the parity it has in the goal (a vertical move changes both by an odd amount).
    """
    size = side(tiles)
    goal = goal_of(goal_name, size)
    if size % 2:
        return inversions(tiles) % 2 == 0
    blank_row, goal_row = tiles.index(0) // size, goal.index(0) // size
    return (inversions(tiles) + blank_row) % 2 == goal_row % 2


def astar(start, goal, h=manhattan) -> int | None:
    """Cost of an optimal path from ``start`` to ``goal`` (dict g, heapq open list)."""
    start, goal = tuple(start), tuple(goal)
    best = {start: 0}
    heap = [(h(start, goal), 0, start)]
    while heap:
        f, g, state = heapq.heappop(heap)
        if g > best[state]:
            continue
        if state == goal:
            return g
        for _, nxt in successors(state):
            if g + 1 < best.get(nxt, 1 << 30):
                best[nxt] = g + 1
                heapq.heappush(heap, (g + 1 + h(nxt, goal), g + 1, nxt))
    return None


def parent_pruning(path: str, move: str) -> bool:
    """Whether ``move`` undoes the last move of ``path`` (Korf's pruning)."""
    return bool(path) and move == {"U": "D", "D": "U", "L": "R", "R": "L"}[path[-1]]


def _remembered(h):
    """``h`` computed once per board (it is a pure function of the board and the goal)."""
    values = {}

    def remembered(tiles, goal):
        if tiles not in values:
            values[tiles] = h(tiles, goal)
        return values[tiles]
    return remembered


def idastar(start, goal, h=manhattan, pruned=parent_pruning) -> dict:
    """IDA* (Korf 1985) with the accounting of DESIGN.md, as a plain recursion.

    Moves U, L, R, D; a child whose move ``pruned(path, move)`` (by default the inverse of
    the previous move) is skipped uncounted; the root counts once; a child counts as
    generated when created and is the goal only if its f is within the bound. Returns cost,
    moves, generated, expanded and iterations [(bound, generated)].
    """
    start, goal = tuple(start), tuple(goal)
    h = _remembered(h)  # IDA* meets the same boards again in every iteration
    stats = {"generated": 1, "expanded": 0}
    bound = h(start, goal)
    iterations = []
    if start == goal:
        return dict(cost=0, moves="", iterations=[(bound, 1)], **stats)

    def contour(state, g, path):
        """Return the goal path, or the smallest f above the bound."""
        stats["expanded"] += 1
        smallest = None
        for move, nxt in successors(state):
            if pruned(path, move):
                continue
            stats["generated"] += 1
            f = g + 1 + h(nxt, goal)
            if f > bound:
                smallest = f if smallest is None else min(smallest, f)
                continue
            if nxt == goal:
                return path + move
            found = contour(nxt, g + 1, path + move)
            if isinstance(found, str):
                return found
            if found is not None:
                smallest = found if smallest is None else min(smallest, found)
        return smallest

    while True:
        before = stats["generated"] - (1 if not iterations else 0)
        found = contour(start, 0, "")
        iterations.append((bound, stats["generated"] - before))
        if isinstance(found, str):
            return dict(cost=len(found), moves=found, iterations=iterations, **stats)
        bound = found


def astar_counts(start, goal, h=manhattan) -> dict:
    """A* with the DESIGN.md accounting and tie-breaking (f, then larger g, then FIFO)."""
    start, goal = tuple(start), tuple(goal)
    inverse = {"U": "D", "D": "U", "L": "R", "R": "L"}
    best, last, parent = {start: 0}, {start: None}, {start: None}
    heap = [(h(start, goal), 0, 0, start)]
    generated, expanded, seq = 1, 0, 1
    while heap:
        _, neg_g, _, state = heapq.heappop(heap)
        g = -neg_g
        if g != best[state]:
            continue
        if state == goal:
            moves = ""
            while parent[state] is not None:
                moves = last[state] + moves
                state = parent[state]
            return dict(cost=g, moves=moves, generated=generated, expanded=expanded)
        expanded += 1
        for move, nxt in successors(state):
            if last[state] and move == inverse[last[state]]:
                continue
            generated += 1
            if g + 1 < best.get(nxt, 1 << 30):
                best[nxt], last[nxt], parent[nxt] = g + 1, move, state
                heapq.heappush(heap, (g + 1 + h(nxt, goal), -(g + 1), seq, nxt))
                seq += 1
    return {}


def bfs_counts(start, goal) -> dict:
    """Breadth-first search from ``start``; goal test at generation; DESIGN.md accounting."""
    start, goal = tuple(start), tuple(goal)
    if start == goal:
        return dict(cost=0, generated=1, expanded=0)
    inverse = {"U": "D", "D": "U", "L": "R", "R": "L"}
    depth, last = {start: 0}, {start: None}
    queue = deque([start])
    generated, expanded = 1, 0
    while queue:
        state = queue.popleft()
        expanded += 1
        for move, nxt in successors(state):
            if last[state] and move == inverse[last[state]]:
                continue
            generated += 1
            if nxt not in depth:
                depth[nxt], last[nxt] = depth[state] + 1, move
                if nxt == goal:
                    return dict(cost=depth[nxt], generated=generated, expanded=expanded)
                queue.append(nxt)
    return {}


def ordered_successors(tiles, order: str) -> list[tuple[str, tuple[int, ...]]]:
    """(move, board) for every legal blank move, in ``order`` (a permutation of ULRD)."""
    by_move = dict(successors(tiles))
    return [(m, by_move[m]) for m in order if m in by_move]


def euclidean_float(tiles, goal) -> float:
    """The sum of the tiles' straight-line distances, added cell by cell in a float."""
    total = 0.0
    for dr, dc in displacements(tiles, goal):
        total += math.sqrt(dr * dr + dc * dc)
    return total


def course_queue_search(start, goal, lifo: bool, order: str = "LRUD") -> dict:
    """BFS (a FIFO) or DFS (a LIFO, ``lifo``) as course solvers write it: a board is marked
    seen when generated, the goal is tested when a board is popped, every pop is counted
    (the goal's too); ``max_depth`` is the deepest depth a generated board reached."""
    start, goal = tuple(start), tuple(goal)
    depth = {start: 0}
    frontier = deque([start])
    pops = max_depth = 0
    while frontier:
        state = frontier.pop() if lifo else frontier.popleft()
        pops += 1
        if state == goal:
            return dict(cost=depth[state], expanded=pops, max_depth=max_depth)
        for _, nxt in ordered_successors(state, order):
            if nxt not in depth:
                depth[nxt] = depth[state] + 1
                max_depth = max(max_depth, depth[nxt])
                frontier.append(nxt)
    return {}


def course_astar(start, goal, h=manhattan, order: str = "LRUD") -> dict:
    """A* over a heap of (f, board): no closed set, a board pushed again whenever a cheaper
    g reaches it, every pop counted (stale ones expanded again at the board's best g), the
    goal tested when popped; ``generated`` counts the root and every push."""
    start, goal = tuple(start), tuple(goal)
    best = {start: 0}
    heap = [(h(start, goal), start)]
    pops, pushes, max_depth = 0, 1, 0
    while heap:
        _, state = heapq.heappop(heap)
        pops += 1
        if state == goal:
            return dict(cost=best[state], expanded=pops, generated=pushes, max_depth=max_depth)
        g = best[state]
        for _, nxt in ordered_successors(state, order):
            if g + 1 < best.get(nxt, 1 << 30):
                best[nxt] = g + 1
                max_depth = max(max_depth, g + 1)
                heapq.heappush(heap, (g + 1 + h(nxt, goal), nxt))
                pushes += 1
    return {}


def heap_best_g(start, goal, h=manhattan) -> dict:
    """A* over a heap of (f, insertion number, g, board) keeping the best g per board: a
    board is pushed when a cheaper g reaches it, stale entries are skipped on pop, the goal
    is tested when popped; ``generated`` counts the root and every push, ``expanded`` the
    boards whose children were generated. Moves in the order U, L, R, D."""
    start, goal = tuple(start), tuple(goal)
    best = {start: 0}
    heap = [(h(start, goal), 0, 0, start)]
    pushes, expanded, seq = 1, 0, 1
    while heap:
        _, _, g, state = heapq.heappop(heap)
        if g != best[state]:
            continue
        if state == goal:
            return dict(cost=g, expanded=expanded, generated=pushes)
        expanded += 1
        for _, nxt in successors(state):
            if g + 1 < best.get(nxt, 1 << 30):
                best[nxt] = g + 1
                heapq.heappush(heap, (g + 1 + h(nxt, goal), seq, g + 1, nxt))
                seq += 1
                pushes += 1
    return {}
