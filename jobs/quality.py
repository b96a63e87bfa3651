"""How good a heuristic is: the distribution of its values, and how close it comes to the
true distance h*.

- The distribution of h over a set of boards (:class:`Distribution`): every board of the
  8-puzzle (exact, :func:`exact_distances`), or a seeded sample of uniform random solvable
  boards (:func:`random_boards`) of any size.
- h against h* (:class:`Agreement`): mean h/h* over the boards with h* > 0, the share with
  h = h*, the boards with h > h*. h* comes from the breadth-first search of the 8-puzzle,
  or from solved rows (:func:`path_boards`): a start board's h* is the optimal cost, and
  the board after k moves of the optimal path has h* = cost - k.

Everything is a whole-array operation or a kernel call: no Python per board.
"""

from __future__ import annotations

from dataclasses import asdict, dataclass

import numpy as np

from tilesweep.solver.batch import solvable_rows
from tilesweep.solver.errors import InvalidOptionError
from tilesweep.solver.geometry import MOVES, neighbours
from tilesweep.solver.heuristics import kernel_heuristic, parse_heuristic
from tilesweep.solver.ranking import placement_count, rank_placements
from tilesweep.solver.search import heuristic_values

SAMPLE_CHUNK = 1 << 16  # boards drawn and evaluated at a time: 1.6 MB of 24-puzzle boards
SAMPLE_METHOD = ("uniform random permutations (numpy default_rng(seed).permuted, {chunk:,} boards at a time), "
                 "each unsolvable one made solvable by swapping its first two tiles")
_MOVE_CODES = np.full(256, -1, dtype=np.int64)
_MOVE_CODES[np.frombuffer(MOVES.encode(), dtype=np.uint8)] = np.arange(len(MOVES))


@dataclass(frozen=True)
class Distribution:
    """How many of ``boards`` boards have each value of h: ``counts[i]`` boards have h =
    ``values[i]`` (values present only, ascending)."""

    boards: int
    values: tuple[int, ...]
    counts: tuple[int, ...]
    mean: float
    method: str = "every board of the goal's parity"

    def shares(self) -> np.ndarray:
        """The fraction of the boards at each value."""
        return np.asarray(self.counts, dtype=float) / max(self.boards, 1)

    def to_dict(self) -> dict:
        return {**asdict(self), "values": list(self.values), "counts": list(self.counts)}


def distribution(h: np.ndarray, method: str = Distribution.method) -> Distribution:
    """The :class:`Distribution` of the values ``h`` (int[M])."""
    counts = np.bincount(h) if len(h) else np.zeros(0, dtype=np.int64)
    return _from_counts(counts, method)


def _from_counts(counts: np.ndarray, method: str) -> Distribution:
    """A :class:`Distribution` from ``counts[v]`` boards at each value v."""
    values = np.flatnonzero(counts)
    total = int(counts.sum())
    mean = float((values * counts[values]).sum() / total) if total else float("nan")
    return Distribution(total, tuple(values.tolist()), tuple(counts[values].tolist()), mean, method)


@dataclass(frozen=True)
class Agreement:
    """h against the true distance h* over ``boards`` boards."""

    boards: int
    mean_h: float
    mean_distance: float
    mean_ratio: float   # mean of h / h* over the boards with h* > 0
    exact_share: float  # the fraction with h = h*
    overestimates: int  # boards with h > h*


def agreement(h: np.ndarray, d: np.ndarray) -> Agreement:
    """How ``h`` (int[M]) compares with the true distances ``d`` (int[M])."""
    if not len(h):
        return Agreement(0, *(float("nan"),) * 4, 0)
    away = d > 0
    ratio = float((h[away] / d[away]).mean()) if away.any() else float("nan")
    return Agreement(len(h), float(h.mean()), float(d.mean()), ratio, float((h == d).mean()), int((h > d).sum()))


def kernel_of(name: str, size: int, goal: tuple[int, ...], tables=()):
    """The kernel form of heuristic ``name`` (``tables``: its pattern databases)."""
    return kernel_heuristic(parse_heuristic(name, size, goal), size, goal, tuple(tables))


def heuristic_values_of(name: str, size: int, goal: tuple[int, ...], tables, boards: np.ndarray) -> np.ndarray:
    """h of heuristic ``name`` on each row of ``boards`` (int8[M, N]): int64[M], one kernel call."""
    return heuristic_values(boards, size, kernel_of(name, size, goal, tables))


def move_blanks(boards: np.ndarray, moves: np.ndarray, size: int) -> tuple[np.ndarray, np.ndarray]:
    """Each row of ``boards`` (int8[M, N]) after its blank makes the move ``moves[i]`` (an
    index of ``MOVES``): (the moved boards, bool[M] whether the move was on the board;
    a row whose move was not is returned as it was)."""
    blank = np.argmax(boards == 0, axis=1)
    target = neighbours(size)[blank, moves].astype(np.int64)
    legal = target >= 0
    out = boards.copy()
    rows, b, t = np.flatnonzero(legal), blank[legal], target[legal]
    out[rows, b] = out[rows, t]
    out[rows, t] = 0
    return out, legal


def exact_distances(size: int, goal: tuple[int, ...]) -> tuple[np.ndarray, np.ndarray]:
    """(``int8[M, N]`` every board that reaches ``goal``, ``int64[M]`` its distance): a
    breadth-first search from the goal, one layer at a time, boards in the order found.
    Visited boards are marked in a table indexed by the rank of the tiles' cells
    (:func:`solver.ranking.rank_placements`; 9!/1! entries on the 8-puzzle)."""
    n = size * size
    depth_of = np.full(placement_count(n, n - 1), -1, dtype=np.int16)
    layer = np.array([goal], dtype=np.int8)
    depth_of[_ranks(layer)] = 0
    boards, depths = [layer], [np.zeros(1, dtype=np.int64)]
    depth = 0
    while len(layer):
        depth += 1
        children = np.concatenate([c[ok] for c, ok in (move_blanks(layer, np.full(len(layer), m), size)
                                                       for m in range(len(MOVES)))])
        ranks, first = np.unique(_ranks(children), return_index=True)
        new = depth_of[ranks] < 0
        depth_of[ranks[new]] = depth
        layer = children[first[new]]
        boards.append(layer)
        depths.append(np.full(len(layer), depth, dtype=np.int64))
    return np.concatenate(boards), np.concatenate(depths)


def distances_of(boards: np.ndarray, size: int, goal: tuple[int, ...]) -> np.ndarray:
    """``int64[M]``: the true distance of each row of ``boards`` (``int8[M, N]``) to ``goal``,
    looked up in :func:`exact_distances` (-1 for a board that cannot reach it)."""
    every, depths = exact_distances(size, goal)
    depth_of = np.full(placement_count(size * size, size * size - 1), -1, dtype=np.int64)
    depth_of[_ranks(every)] = depths
    return depth_of[_ranks(np.asarray(boards, dtype=np.int8))]


def _ranks(boards: np.ndarray) -> np.ndarray:
    """The rank of the cells of tiles 1..N-1 of each row (the blank takes the cell left)."""
    cells = np.argsort(boards, axis=1)[:, 1:].astype(np.int8)
    return rank_placements(np.ascontiguousarray(cells), boards.shape[1])


def random_boards(size: int, goal: tuple[int, ...], count: int, rng: np.random.Generator) -> np.ndarray:
    """``count`` boards drawn uniformly from those that reach ``goal`` (int8[count, N]).

    A random permutation is unsolvable with probability 1/2; swapping its first two tiles
    (not the blank) flips its parity, a bijection between the halves, so the result is
    uniform (the method of :func:`solver.generators.uniform_instance`, for a whole array).
    """
    n = size * size
    boards = rng.permuted(np.tile(np.arange(n, dtype=np.int8), (count, 1)), axis=1)
    bad = np.flatnonzero(~solvable_rows(boards, goal, size))
    first = np.where(boards[bad, 0] == 0, 1, 0)
    second = np.where((boards[bad, 0] == 0) | (boards[bad, 1] == 0), 2, 1)
    boards[bad, first], boards[bad, second] = boards[bad, second], boards[bad, first]
    return boards


def sampled_distribution(name: str, size: int, goal: tuple[int, ...], tables, count: int,
                         seed: int) -> Distribution:
    """The distribution of heuristic ``name`` (``tables``: its PDBs) over ``count`` uniform
    random solvable boards drawn with ``seed``."""
    if count < 1:
        raise InvalidOptionError(f"sample size {count!r}: expected at least 1 board")
    H = kernel_of(name, size, goal, tables)
    rng = np.random.default_rng(seed)
    counts = np.zeros(1, dtype=np.int64)
    for start in range(0, count, SAMPLE_CHUNK):
        h = heuristic_values(random_boards(size, goal, min(SAMPLE_CHUNK, count - start), rng), size, H)
        more = np.bincount(h)
        counts = np.pad(counts, (0, max(len(more) - len(counts), 0)))
        counts[:len(more)] += more
    return _from_counts(counts, f"{count:,} " + SAMPLE_METHOD.format(chunk=SAMPLE_CHUNK) + f", seed {seed}")


@dataclass(frozen=True)
class PathBoards:
    """The boards of solved instances' optimal paths: ``boards`` (int8[M, N]) with their
    true distance ``distances`` (int64[M]); ``start`` (bool[M]) marks the start boards."""

    boards: np.ndarray
    distances: np.ndarray
    start: np.ndarray


def parse_tiles(texts, size: int) -> np.ndarray:
    """The ``tiles`` column's texts (``"8 6 7 2 5 4 3 0 1"``) as int8[k, N]."""
    n = size * size
    flat = np.array(" ".join(texts).split(), dtype=np.int64)
    if len(flat) != n * len(texts):
        raise InvalidOptionError(f"tiles column: expected {n} numbers a row on a {size}x{size} board")
    return flat.reshape(len(texts), n).astype(np.int8)


def path_boards(starts: np.ndarray, moves: list[str], size: int, goal: tuple[int, ...]) -> PathBoards:
    """Every board on the optimal paths ``moves`` (the ``moves`` column: the blank's moves,
    letters of ``MOVES``) from ``starts`` (int8[k, N]), which must end at ``goal``."""
    costs = np.array([len(m) for m in moves], dtype=np.int64)
    codes = np.zeros((len(moves), int(costs.max(initial=0))), dtype=np.int64)
    flat = _MOVE_CODES[np.frombuffer("".join(moves).encode(), dtype=np.uint8)]
    if (flat < 0).any():
        raise InvalidOptionError(f"moves column: a letter not in {MOVES!r}")
    rows = np.repeat(np.arange(len(moves)), costs)
    codes[rows, np.arange(len(flat)) - np.repeat(np.cumsum(costs) - costs, costs)] = flat
    boards, distances, start = [starts], [costs], [np.ones(len(starts), dtype=bool)]
    current = starts.copy()
    for step in range(codes.shape[1]):
        on = np.flatnonzero(costs > step)
        current[on], legal = move_blanks(current[on], codes[on, step], size)
        if not legal.all():
            raise InvalidOptionError(f"moves {moves[on[~legal][0]]!r}: move {step + 1} leaves the board")
        boards.append(current[on])
        distances.append(costs[on] - step - 1)
        start.append(np.zeros(len(on), dtype=bool))
    astray = np.flatnonzero((current != np.array(goal, dtype=np.int8)).any(axis=1))
    if len(astray):
        raise InvalidOptionError(f"moves {moves[astray[0]]!r} do not lead to the goal {' '.join(map(str, goal))}")
    return PathBoards(np.concatenate(boards), np.concatenate(distances), np.concatenate(start))


def solved_paths(path, size: int, goal: tuple[int, ...]) -> tuple[PathBoards, int]:
    """The optimal paths of the solved rows under ``path`` (a sweep or results folder) of
    ``size`` and ``goal``, one per distinct start board (the first in the order of the
    moves' text, as the report takes it), and how many."""
    import pyarrow.compute as pc

    from tilesweep.solver.board import goal_label

    from .results import load_table

    table = load_table(path, ["size", "goal", "tiles", "moves", "status"])
    keep = pc.and_(pc.and_(pc.equal(table["size"], size), pc.equal(table["goal"], goal_label(goal))),
                   pc.equal(table["status"], "solved"))
    rows = table.filter(keep).select(["tiles", "moves"]).to_pandas().sort_values(["tiles", "moves"])
    rows = rows.drop_duplicates("tiles")  # one path a board: the first in the order of the moves' text
    if rows.empty:
        solved = table.filter(pc.equal(table["status"], "solved")).select(["size", "goal"]).to_pandas()
        held = ", ".join(f"{n}x{n} {g}" for n, g in solved.drop_duplicates().itertuples(index=False)) or "none"
        raise InvalidOptionError(f"results {str(path)!r} hold no solved {size}x{size} rows with goal "
                                 f"{goal_label(goal)!r} (solved rows there: {held}); expected a sweep of that size "
                                 "and goal (--size, --goal)")
    starts = parse_tiles(rows["tiles"].tolist(), size)
    return path_boards(starts, rows["moves"].fillna("").tolist(), size, goal), len(rows)
