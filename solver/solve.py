"""One entry point for every algorithm: ``solve(board, goal, algorithm, heuristic)``."""

from __future__ import annotations

from dataclasses import dataclass, field, fields
from functools import lru_cache

import numpy as np

from . import search
from .board import Board, goal_label, goal_tiles, is_solvable
from .conventions import KORF, Conventions, parse_conventions
from .errors import InvalidBoardError, InvalidOptionError, UnknownNameError
from .fsm import Pruning, automaton, parse_pruning
from .heuristics import HeuristicSpec, kernel_heuristic, parse_heuristic
from .kernels import KernelInputs
from .limits import UNLIMITED, make_limits
from .options import MAX_NODES, byte_size, parse_seconds, whole_number
from .plugins import PluginError

ALGORITHMS = ("astar", "idastar", "bfs", "dfs")
INFORMED = ("astar", "idastar")
# Those whose solution is a shortest one (with an admissible heuristic); DFS returns the
# first path it reaches, usually far longer.
OPTIMAL = ("astar", "idastar", "bfs")
# A*, BFS and DFS store every board they meet, so without --max-nodes they stop here
# instead of exhausting memory; IDA* needs no store.
DEFAULT_GRAPH_BUDGET = 20_000_000
# Peak process memory per board a graph search may store (node store, index and A*'s
# open list, at the worst point of their doubling). Measured with benchmarks/graph_memory.py
# on Korf #1 with caps of 2**20..2**22 boards: worst 53.1 (A*, packed kernel), 83.2 (A*,
# general kernel: 5x5 or --prune fsm), 72.3 (BFS), 77.7 (DFS) bytes; these figures add
# ~15 %. --max-memory divided by them caps the store.
BYTES_PER_STATE = {"astar": 96, "bfs": 88, "dfs": 88}


@dataclass
class SolveResult:
    """Everything one solve reports; ``to_dict`` is the JSON / result-row form."""

    tiles: str
    size: int
    goal: str
    algorithm: str
    heuristic: str
    status: str
    cost: int | None = None
    moves: str | None = None
    nodes_generated: int = 0
    nodes_expanded: int = 0
    ebf: float | None = None
    h0: int | None = None
    seconds: float = 0.0
    iterations: list[dict] | None = None
    max_depth: int | None = None
    status_reason: str | None = None
    max_nodes: int | None = None
    time_limit: float | None = None
    max_memory: int | None = None
    pruning: str = "parent"
    cpu_seconds: float = 0.0
    cpu_time_limit: float | None = None
    conventions: str = "korf"
    extra: dict = field(default_factory=dict, repr=False)

    def to_dict(self) -> dict:
        # Shallow on purpose: dataclasses.asdict deep-copies ``iterations``, which cost
        # more than a short solve itself.
        return {name: getattr(self, name) for name in _RESULT_FIELDS}


_RESULT_FIELDS = tuple(f.name for f in fields(SolveResult) if f.name != "extra")


def check_algorithm(name: str) -> str:
    """Return ``name`` if it is a known algorithm, else raise naming the choices."""
    if name not in ALGORITHMS:
        raise UnknownNameError(f"algorithm {name!r} is not known; expected one of: {', '.join(ALGORITHMS)}")
    return name


def check_split(algorithm: str) -> str:
    """``algorithm`` if parallel (split) search runs it: IDA* only."""
    if algorithm != "idastar":
        raise InvalidOptionError(f"--parallel runs IDA* only, not {algorithm!r}; use --algorithm idastar")
    return algorithm


def check_budget(max_nodes: int | None, algorithm: str = "idastar") -> int:
    """Normalise ``--max-nodes`` to the kernels' int64 budget (None: the default)."""
    if max_nodes is None:
        return UNLIMITED if algorithm == "idastar" else DEFAULT_GRAPH_BUDGET
    if isinstance(max_nodes, np.integer):
        max_nodes = int(max_nodes)
    if not isinstance(max_nodes, int) or isinstance(max_nodes, bool):
        raise InvalidOptionError(f"max-nodes {max_nodes!r} is not a whole number; expected an integer >= 1")
    return whole_number("max-nodes", max_nodes, 1, MAX_NODES)


def check_time_limit(time_limit, name: str = "time-limit") -> float | None:
    """``--time-limit`` (or the option ``name``) in seconds (a positive number or its text,
    at most :data:`~.options.MAX_SECONDS`), or None."""
    return None if time_limit is None else parse_seconds(name, time_limit)


def check_time_limits(time_limit, cpu_time_limit) -> tuple[float | None, float | None]:
    """``--time-limit`` and ``--cpu-time-limit`` checked; one of them at most (a solve's
    time limit is on one clock)."""
    time_limit = check_time_limit(time_limit)
    cpu_time_limit = check_time_limit(cpu_time_limit, "cpu-time-limit")
    if time_limit is not None and cpu_time_limit is not None:
        raise InvalidOptionError(f"time-limit {time_limit:g} and cpu-time-limit {cpu_time_limit:g} are both given; "
                                 "expected one of them (wall or CPU seconds)")
    return time_limit, cpu_time_limit


def solve_limits(budget: int, time_limit: float | None, cpu_time_limit: float | None, states: int) -> np.ndarray:
    """The kernels' ``limits`` for these checked options (the time limit on its clock)."""
    return make_limits(budget, time_limit if cpu_time_limit is None else cpu_time_limit, states,
                       cpu_clock=cpu_time_limit is not None)


def check_memory(max_memory) -> int | None:
    """``--max-memory`` in bytes (bytes or text such as ``700MB``; at least 1 MiB), or None."""
    if max_memory is None:
        return None
    if isinstance(max_memory, np.integer):
        max_memory = int(max_memory)
    return byte_size("max-memory", max_memory)


def max_states(algorithm: str, max_memory: int | None) -> int:
    """The most boards a graph search may store within ``max_memory`` bytes."""
    if max_memory is None or algorithm not in BYTES_PER_STATE:
        return UNLIMITED
    return max(1, max_memory // BYTES_PER_STATE[algorithm])


def resolve_goal(goal: str | tuple[int, ...], size: int) -> tuple[int, ...]:
    """Goal tiles from a name or tiles, checked against ``size``."""
    return _resolve_goal(goal if isinstance(goal, str) else tuple(goal), size)


@lru_cache(maxsize=64)  # a sweep solves thousands of boards for one goal
def _resolve_goal(goal: str | tuple[int, ...], size: int) -> tuple[int, ...]:
    if isinstance(goal, str):
        return goal_tiles(goal, size)
    if len(goal) != size * size or sorted(goal) != list(range(size * size)):
        raise InvalidBoardError(f"goal {' '.join(map(str, goal))!r} is not a permutation of 0..{size * size - 1}")
    return tuple(int(t) for t in goal)


@dataclass(frozen=True)
class RequestFields:
    """The figures of a request that every result of it carries, whichever the board: the
    request's part of a :class:`SolveResult` and of the batch path's columns."""

    heuristic: str  # the spec's name, "none" for uninformed searches
    max_nodes: int | None
    time_limit: float | None
    max_memory: int | None
    pruning: str
    cpu_time_limit: float | None
    conventions: str

    def as_dict(self) -> dict:
        """The fields by name, as :class:`SolveResult` and the result rows name them."""
        return {name: getattr(self, name) for name in _REQUEST_FIELDS}


_REQUEST_FIELDS = tuple(f.name for f in fields(RequestFields))  # once: fields() per solve costs microseconds


@dataclass(frozen=True)
class Prepared:
    """A checked request of one (algorithm, heuristic): the kernel's inputs, the heuristic
    and the figures every result of it carries."""

    inputs: KernelInputs
    spec: HeuristicSpec
    request: RequestFields


def prepare(size: int, goal: str | tuple[int, ...], algorithm: str, heuristic: str | HeuristicSpec,
            tables: tuple = (), max_nodes: int | None = None, time_limit: float | None = None,
            max_memory: int | None = None, prune: str | Pruning = "parent",
            cpu_time_limit: float | None = None, conventions: str | Conventions | None = None) -> Prepared:
    """Check a request's options and build what its kernel takes (the options as
    :func:`solve` takes them); :func:`solve` and :func:`solver.batch.solve_boards` both start
    here, and :func:`solver.kernels.pick` then picks the kernel."""
    goal_t = resolve_goal(goal, size)
    check_algorithm(algorithm)
    budget = check_budget(max_nodes, algorithm)
    time_limit, cpu_time_limit = check_time_limits(time_limit, cpu_time_limit)
    max_memory = check_memory(max_memory) if algorithm in BYTES_PER_STATE else None
    pruning = prune if isinstance(prune, Pruning) else parse_pruning(prune, size)
    spec = heuristic if isinstance(heuristic, HeuristicSpec) else parse_heuristic(heuristic, size, goal_t)
    H = kernel_heuristic(spec, size, goal_t, tuple(tables))
    limits = solve_limits(budget, time_limit, cpu_time_limit, max_states(algorithm, max_memory))
    fsm = automaton(size, pruning.depth) if pruning.kind == "fsm" else None
    conv = parse_conventions(conventions)
    if conv is not KORF:
        check_conventions(conv, algorithm, spec, pruning)
    request = RequestFields(heuristic=spec.name if algorithm in INFORMED else "none",
                            max_nodes=None if budget == UNLIMITED else budget, time_limit=time_limit,
                            max_memory=max_memory, pruning=str(pruning), cpu_time_limit=cpu_time_limit,
                            conventions="korf" if conv is KORF else conv.name)
    return Prepared(KernelInputs(algorithm, size, goal_t, H, limits, fsm, conv), spec, request)


def check_conventions(conventions: Conventions, algorithm: str, spec: HeuristicSpec, pruning: Pruning) -> None:
    """Refuse, in one line, what conventions other than korf's do not run with: IDA*, plugin
    heuristics and the pruning automaton (their kernels count as korf does)."""
    if conventions.is_korf:
        return
    if algorithm == "idastar":
        raise InvalidOptionError(conventions.idastar_refusal())
    if spec.plugins:
        raise InvalidOptionError(f"heuristic {spec.name!r}: plugin heuristics run under the korf conventions "
                                 f"only, not {conventions.name!r}; use --conventions korf")
    if pruning.kind != "parent":
        raise InvalidOptionError(f"prune {str(pruning)!r} runs under the korf conventions only, not "
                                 f"{conventions.name!r}; use --prune parent")


def solve(board: Board, goal: str | tuple[int, ...] = "blank-last", algorithm: str = "idastar",
          heuristic: str | HeuristicSpec = "manhattan", tables: tuple = (),
          max_nodes: int | None = None, time_limit: float | None = None,
          max_memory: int | None = None, prune: str | Pruning = "parent", split=None,
          cpu_time_limit: float | None = None, conventions: str | Conventions | None = None) -> SolveResult:
    """Solve ``board`` for ``goal`` with ``algorithm`` guided by ``heuristic``.

    Unsolvable boards are detected by parity and returned with
    ``status="unsolvable"`` without any search. ``tables`` are the pattern databases
    of a ``pdb:`` heuristic, one per group in order (see :mod:`pdb_store`).
    ``seconds`` (wall) and ``cpu_seconds`` (the solving thread's CPU time; for a split
    search, its own and its chunks' summed) cover the search only: kernels are compiled
    before the clocks start.
    The limits (statuses in :mod:`solver.status`): ``max_nodes`` generated,
    ``time_limit`` wall seconds or ``cpu_time_limit`` seconds of the searching thread's CPU
    time (one of them), and ``max_memory`` bytes for the boards A*, BFS and DFS store; a
    solve that found its goal after its time limit is a timeout (reason ``late``).
    ``prune`` is ``parent`` (never undo the last move) or ``fsm[:DEPTH]`` (an automaton
    of duplicate move strings, :mod:`solver.fsm`). ``split`` runs IDA* as a split search
    instead (:func:`solver.splitsearch.split_runner`; the result's ``extra`` then holds
    its node accounting). ``conventions`` (:mod:`solver.conventions`; None: korf) names what
    the search does and counts: ``PRESET`` or ``PRESET,key=value,...``.
    """
    p = prepare(board.size, goal, algorithm, heuristic, tables, max_nodes, time_limit, max_memory, prune,
                cpu_time_limit, conventions)
    if split is not None:
        check_split(algorithm)
    x, spec = p.inputs, p.spec
    result = SolveResult(board.text(), board.size, goal_label(x.goal), algorithm, status="unsolvable",
                         **p.request.as_dict())
    if not is_solvable(board.tiles, x.goal, board.size):
        result.h0 = search.heuristic_of(board, x.goal, x.H)
        return result
    if not spec.plugins:
        return search.run_inputs(x, board, result, split)
    if split is not None:
        raise InvalidOptionError(f"heuristic {spec.name!r}: parallel search does not run plugin heuristics; "
                                 "leave out --parallel")
    result.extra["heuristic_version"] = spec.heuristic_version
    try:
        return search.run_inputs(x, board, result)
    except Exception as err:  # noqa: BLE001 - the user's code raised inside the kernel
        raise PluginError(f"heuristic {spec.name!r} raised {type(err).__name__} on board {board.text()!r}: "
                          f"{str(err).splitlines()[0] if str(err) else ''}") from None
