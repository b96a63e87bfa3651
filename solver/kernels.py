"""Which kernel runs a search: one table, a row per kernel.

:func:`pick` walks :data:`KERNELS` in order and takes the first row of the request's
algorithm that serves it; the row builds the kernel's call on one board, and, for the
kernels with a batch form, the batch kernel over many boards and its arguments. Rows that
serve narrower requests come first; the last row of each algorithm serves every request
(the general kernels).

Every choice of a search kernel is made here, so adding a kernel is adding a row: its
algorithms, a test of what it serves, a builder of its call. The ways in:

* ``solve()`` and the batch path (:func:`pick`, :func:`pick_batch`), and the tests and
  benchmarks that call one kernel;
* the split search of parallel IDA* (:func:`split_row`): the rows with a split form
  (``split``; its kernels of one iteration below many roots are in :mod:`.subtrees`), the
  first of them that serves the request;
* the warm-up's kernel families (:func:`~.warmup.kernel_family`), named by :func:`pick`.

Not covered: the heuristic kernels a search's set-up calls (h of the start board, the split
search's frontier), which follow the heuristic (:mod:`.hstate`), not the search.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from functools import lru_cache

import numpy as np

from .astar import ASTAR_KERNELS, HMODE_NAMES, astar_hmode, astar_tables
from .batch_kernels import ASTAR_BOARDS, _idastar_tiles_boards
from .conventions import COUNTS, DUPLICATES, KORF, TIES, Conventions
from .convsearch import _convention_search
from .errors import InvalidOptionError
from .geometry import MOVES, neighbours, neighbours64
from .graphsearch import ASTAR, BFS, DFS, _graph_search_pdb, graph_search_kernel
from .heuristics import PluginHeuristic
from .hstate import TERM_ID, TERM_LC, TERM_PDB, TERM_TILES, TERM_WD
from .htables import EUCLID_SCALE
from .idastar import _idastar
from .idastar_lines import _idastar_lines
from .idastar_pdb import _idastar_pdb, _idastar_pdb_walk, _idastar_pdb_zero_aware, mirrors_early
from .idastar_tiles import _idastar_tiles
from .idastar_walk import _idastar_walk, walk_steps
from .plugin_kernels import plugin_kernels
from .walking import start_patterns

GRAPH_KINDS = {"astar": ASTAR, "bfs": BFS, "dfs": DFS}

# The automaton argument of a kernel that prunes by parent alone (its use_fsm is False).
NO_FSM = np.zeros(4, dtype=np.int32)
NO_FSM.flags.writeable = False


@dataclass(frozen=True)
class KernelInputs:
    """What a kernel is built from: one checked (algorithm, heuristic) request.

    ``H`` is a :class:`~.heuristics.KernelHeuristic` or :class:`~.heuristics.PluginHeuristic`,
    ``limits`` the kernels' limits (:func:`~.limits.make_limits`), ``automaton`` a
    :class:`~.fsm.Automaton` that replaces parent pruning, or None; ``conventions`` the
    :class:`~.conventions.Conventions` of the search (korf's run in today's kernels)."""

    algorithm: str
    size: int
    goal: tuple[int, ...]
    H: object
    limits: np.ndarray
    automaton: object = None
    conventions: Conventions = KORF

    @property
    def plugin(self) -> bool:
        return isinstance(self.H, PluginHeuristic)


@dataclass(frozen=True)
class Kernel:
    """One row of :data:`KERNELS`.

    ``call(inputs)`` gives ``(variant, call)``: ``call(tiles8)`` runs the kernel on one board
    and returns its raw outputs; ``variant`` ('' or a suffix) tells apart the compiled kernels
    a row may pick (a plugin's, a packed A*'s way of finding h). ``batch(inputs)``, for the
    kernels that have a batch form, gives ``(batch kernel, arguments after the boards)``.
    ``split``: the row has a split form in :mod:`.subtrees` (:func:`split_row`)."""

    name: str
    algorithms: tuple[str, ...]
    serves: Callable[[KernelInputs], bool]
    call: Callable[[KernelInputs], tuple[str, Callable]]
    batch: Callable[[KernelInputs], tuple] | None = None
    split: bool = False


@lru_cache(maxsize=64)
def goal_positions(goal: tuple[int, ...]) -> np.ndarray:
    """``int64[N]``: the cell of each tile of ``goal`` (cached: a sweep has one goal)."""
    pos = positions(goal)
    pos.flags.writeable = False
    return pos


def positions(tiles: tuple[int, ...]) -> np.ndarray:
    """``int64[N]``: the cell of each tile."""
    pos = np.empty(len(tiles), dtype=np.int64)
    pos[list(tiles)] = np.arange(len(tiles))
    return pos


def packed_goal(goal: tuple[int, ...]) -> np.uint64:
    """``goal`` packed 4 bits a cell, as :mod:`solver.astar` keys boards (up to 16 cells)."""
    return np.uint64(sum(t << (4 * c) for c, t in enumerate(goal)))


def near_goal(goal: tuple[int, ...], size: int) -> np.ndarray:
    """A board one move from ``goal``: what kernels are warmed (compiled) on."""
    tiles = list(goal)
    blank = tiles.index(0)
    target = int(next(c for c in neighbours(size)[blank] if c >= 0))
    tiles[blank], tiles[target] = tiles[target], 0
    return np.array(tiles, dtype=np.int8)


def _fsm(x: KernelInputs, table: str = "full") -> tuple[np.ndarray, bool]:
    """The automaton's ``table`` (``full`` for IDA*, ``strict`` for graph search) and
    whether to use it."""
    return (NO_FSM, False) if x.automaton is None else (getattr(x.automaton, table), True)


def serves_tiles_kernel(H) -> bool:
    """Whether IDA* runs ``H`` in the per-tile kernel: a per-tile heuristic, either pruning."""
    return not isinstance(H, PluginHeuristic) and H.n_terms == 1 and H.terms[0] == TERM_TILES


def tiles_kernel_args(size, goal, H, limits, automaton=None) -> tuple:
    """The arguments after the board of :func:`solver.idastar_tiles._idastar_tiles` (and of the
    batch kernel over it) for a per-tile ``H``."""
    fsm, use_fsm = _fsm(KernelInputs("idastar", size, goal, H, limits, automaton))
    return goal_positions(goal), neighbours(size), H.tile_cost, H.scale, limits, fsm, use_fsm


def packed_astar_serves(kind, size, automaton) -> bool:
    """Whether the packed A* of :mod:`solver.astar` runs this search: A* with parent
    pruning (no ``automaton``) on 3×3 and 4×4."""
    return kind == ASTAR and size <= 4 and automaton is None


def packed_astar_args(size, goal, H, limits) -> tuple[int, tuple]:
    """How the packed A* finds h for ``H`` (:func:`solver.astar.astar_hmode`, which picks
    its kernel and batch kernel) and the arguments after the board(s) of both."""
    hmode = astar_hmode(H)
    key = (size, tuple(goal), hmode, int(H.scale), H.tile_cost.tobytes())
    if key not in _PACKED_TABLES:
        _PACKED_TABLES[key] = (packed_goal(goal), *astar_tables(neighbours(size), H.tile_cost, H.scale, hmode))
    goal_key, lists, delta, hcols = _PACKED_TABLES[key]
    return hmode, (size, goal_key, neighbours(size), H, lists, delta, hcols, limits)


# The packed A*'s goal key and tables (which its kernels only read), built once per width,
# goal, way of finding h and tile costs (as few as the heuristics kernel_heuristic keeps):
# rebuilding them took ~4 us of a one-move solve()'s ~37.
_PACKED_TABLES: dict[tuple, tuple] = {}


def _plugin_only_call(x: KernelInputs):
    H, (fsm, use_fsm) = x.H, _fsm(x)
    goal_pos, nbr, kernel = goal_positions(x.goal), neighbours64(x.size), plugin_kernels(H.plugins).idastar_plugin_only
    return H.key, lambda tiles: kernel(tiles, x.size, goal_pos, nbr, H.base, x.limits, fsm, use_fsm,
                                       H.step is not None)


def _plugin_call(x: KernelInputs):
    H, (fsm, use_fsm) = x.H, _fsm(x)
    goal_pos, nbr, kernel = goal_positions(x.goal), neighbours64(x.size), plugin_kernels(H.plugins).idastar_plugin
    return H.key, lambda tiles: kernel(tiles, x.size, goal_pos, nbr, H.base, x.limits, fsm, use_fsm)


def _tiles_call(x: KernelInputs):
    args = tiles_kernel_args(x.size, x.goal, x.H, x.limits, x.automaton)
    return "", lambda tiles: _idastar_tiles(tiles, *args)


def _tiles_batch(x: KernelInputs):
    return _idastar_tiles_boards, tiles_kernel_args(x.size, x.goal, x.H, x.limits, x.automaton)


def _serves_lines(x: KernelInputs) -> bool:
    """Manhattan distance with linear conflicts alone."""
    return x.H.n_terms == 1 and x.H.terms[0] == TERM_TILES | TERM_LC


def _lines_call(x: KernelInputs):
    H, (fsm, use_fsm) = x.H, _fsm(x)
    goal_pos, nbr = goal_positions(x.goal), neighbours(x.size)
    return "", lambda tiles: _idastar_lines(tiles, x.size, goal_pos, nbr, H.tile_cost, H.lc_code, H.lc_table,
                                            x.limits, fsm, use_fsm)


def _serves_walk(x: KernelInputs) -> bool:
    """Walking distance alone, with or without ``+id``."""
    return x.H.n_terms == 1 and x.H.terms[0] & ~TERM_ID == TERM_WD


def _walk_call(x: KernelInputs):
    H, size, goal, (fsm, use_fsm) = x.H, x.size, x.goal, _fsm(x)
    goal_pos, nbr, step, use_id = goal_positions(goal), neighbours(size), walk_steps(size, goal), bool(
        H.terms[0] & TERM_ID)

    def call(tiles):
        v0, h0 = start_patterns(tiles.tolist(), goal, size)
        return _idastar_walk(tiles, size, goal_pos, nbr, step, H.wd_link_v, H.wd_link_h, v0, h0, fsm, use_fsm,
                             x.limits, H.lc_code, use_id)
    return "", call


def _serves_pdb(x: KernelInputs) -> bool:
    """Pattern databases alone, one lookup (two with ``+reflect``)."""
    return x.H.n_terms == 1 and x.H.terms[0] == TERM_PDB and x.H.n_lookups == 1 + x.H.reflect


def _pdb_call(x: KernelInputs):
    H, (fsm, use_fsm) = x.H, _fsm(x)
    goal_pos, nbr, early = goal_positions(x.goal), neighbours64(x.size), mirrors_early(x.H)
    search = _idastar_pdb_zero_aware if H.zero_aware else _idastar_pdb  # each compiled for its tables' kind
    return "", lambda tiles: search(tiles, goal_pos, nbr, H, x.limits, fsm, use_fsm, early)


def serves_pdb_walk_kernel(H) -> bool:
    """Whether IDA* runs ``H`` in :func:`solver.idastar_pdb._idastar_pdb_walk`: the max of one pattern
    database (with or without ``+reflect``) and walking distance."""
    return H.n_terms == 2 and sorted(H.terms[:2].tolist()) == [TERM_PDB, TERM_WD] and H.n_lookups == 1 + H.reflect


def _pdb_walk_call(x: KernelInputs):
    H, size, goal, (fsm, use_fsm) = x.H, x.size, x.goal, _fsm(x)
    goal_pos, nbr, early, step = goal_positions(goal), neighbours64(size), mirrors_early(H), walk_steps(size, goal)

    def call(tiles):
        v0, h0 = start_patterns(tiles.tolist(), goal, size)
        return _idastar_pdb_walk(tiles, size, goal_pos, nbr, H, x.limits, fsm, use_fsm, early, step, v0, h0)
    return "", call


def _general_call(x: KernelInputs):
    H, (fsm, use_fsm) = x.H, _fsm(x)
    goal_pos, nbr = goal_positions(x.goal), neighbours64(x.size)
    return "", lambda tiles: _idastar(tiles, x.size, goal_pos, nbr, H, x.limits, fsm, use_fsm)


def _graph_plugin_call(x: KernelInputs):
    H, kind, (fsm, use_fsm) = x.H, GRAPH_KINDS[x.algorithm], _fsm(x, "strict")
    goal_pos, nbr, kernel = goal_positions(x.goal), neighbours64(x.size), plugin_kernels(H.plugins).graph_search_plugin
    return H.key, lambda tiles: kernel(kind, tiles, x.size, goal_pos, nbr, H.base, x.limits, fsm, use_fsm)


def _serves_packed_astar(x: KernelInputs) -> bool:
    return packed_astar_serves(GRAPH_KINDS[x.algorithm], x.size, x.automaton)


def _packed_astar_call(x: KernelInputs):
    hmode, args = packed_astar_args(x.size, x.goal, x.H, x.limits)
    return HMODE_NAMES[hmode], lambda tiles: ASTAR_KERNELS[hmode](tiles, *args)


def _packed_astar_batch(x: KernelInputs):
    hmode, args = packed_astar_args(x.size, x.goal, x.H, x.limits)
    return ASTAR_BOARDS[hmode], args


def _graph_call(x: KernelInputs):
    H, kind, (fsm, use_fsm) = x.H, GRAPH_KINDS[x.algorithm], _fsm(x, "strict")
    goal_pos, nbr = goal_positions(x.goal), neighbours64(x.size)
    search = graph_search_kernel(H)
    variant = "pdb" if search is _graph_search_pdb else ""
    return variant, lambda tiles: search(kind, tiles, x.size, goal_pos, nbr, H, x.limits, fsm, use_fsm)


def _serves_conventions(x: KernelInputs) -> bool:
    return x.conventions is not KORF  # what every solve asks first: an identity test


def real_tile_costs(x: KernelInputs) -> tuple[np.ndarray, bool]:
    """``fcost[t, c]`` (float64): the straight-line distance of tile t on cell c from its goal
    cell, and whether f is to use it: with ``f=float`` and Euclidean distance alone (other
    heuristics are whole numbers already)."""
    H, n = x.H, x.size * x.size
    euclidean = H.n_terms == 1 and H.terms[0] == TERM_TILES and H.scale == EUCLID_SCALE
    if x.conventions.f != "float" or not euclidean:
        return np.zeros((n, n)), False
    goal_pos = goal_positions(x.goal)
    rows, cols = np.divmod(np.arange(n), x.size)
    dr = rows[None, :] - rows[goal_pos][:, None]
    dc = cols[None, :] - cols[goal_pos][:, None]
    return np.sqrt((dr * dr + dc * dc).astype(np.float64)), True


def _conventions_call(x: KernelInputs):
    c, kind = x.conventions, GRAPH_KINDS[x.algorithm]
    goal_pos, nbr = goal_positions(x.goal), neighbours64(x.size)
    order = np.array([MOVES.index(m) for m in c.order], dtype=np.int64)
    fcost, use_float = real_tile_costs(x)
    codes = (TIES.index(c.ties), DUPLICATES.index(c.duplicates), c.goal_at_generation(x.algorithm),
             COUNTS.index(c.count))
    return "", lambda tiles: _convention_search(kind, tiles, x.size, goal_pos, nbr, order, x.H, fcost, use_float,
                                                *codes, x.limits)


def _plugin_alone(x: KernelInputs) -> bool:
    return x.plugin and x.H.alone


def _built_in(serves: Callable[[KernelInputs], bool]) -> Callable[[KernelInputs], bool]:
    """``serves`` for built-in heuristics only (a plugin's H has none of their fields)."""
    return lambda x: not x.plugin and serves(x)


def _always(x: KernelInputs) -> bool:
    return True


IDASTAR, GRAPH = ("idastar",), tuple(GRAPH_KINDS)
# The first row of the request's algorithm that serves it runs it; the module text says more.
KERNELS = (
    Kernel("idastar-plugin-only", IDASTAR, _plugin_alone, _plugin_only_call),
    Kernel("idastar-plugin", IDASTAR, lambda x: x.plugin, _plugin_call),
    Kernel("idastar-tiles", IDASTAR, lambda x: serves_tiles_kernel(x.H), _tiles_call, _tiles_batch, split=True),
    Kernel("idastar-lines", IDASTAR, _built_in(_serves_lines), _lines_call),
    Kernel("idastar-walk", IDASTAR, _built_in(_serves_walk), _walk_call),
    Kernel("idastar-pdb", IDASTAR, _built_in(_serves_pdb), _pdb_call, split=True),
    Kernel("idastar-pdb-walk", IDASTAR, _built_in(lambda x: serves_pdb_walk_kernel(x.H)), _pdb_walk_call),
    Kernel("idastar", IDASTAR, _always, _general_call, split=True),
    Kernel("graph-conventions", GRAPH, _serves_conventions, _conventions_call),
    Kernel("graph-plugin", GRAPH, lambda x: x.plugin, _graph_plugin_call),
    Kernel("astar-packed", GRAPH, _serves_packed_astar, _packed_astar_call, _packed_astar_batch),
    Kernel("graph", GRAPH, _always, _graph_call),
)


def kernel_for(inputs: KernelInputs) -> Kernel:
    """The row of :data:`KERNELS` that runs ``inputs``."""
    return _reads_its_tables(next(k for k in _ROWS_OF.get(inputs.algorithm, ()) if k.serves(inputs)), inputs)


ZERO_AWARE_ROW = "idastar-pdb"


def _reads_its_tables(row: Kernel, inputs: KernelInputs) -> Kernel:
    """``row``, unless the heuristic's tables are zero-aware and the row's kernel reads
    placement-indexed ones: only the PDB IDA* kernel reads an entry per blank region."""
    H = inputs.H.base if inputs.plugin else inputs.H
    if H.zero_aware and row.name != ZERO_AWARE_ROW:
        raise InvalidOptionError(f"zero-aware pattern databases with algorithm {inputs.algorithm!r} and this "
                                 f"heuristic (the {row.name!r} kernel): expected IDA* with a zero-aware "
                                 "pattern database alone, pdb:P[+reflect]+zero-aware")
    return row


_ROWS_OF = {a: tuple(k for k in KERNELS if a in k.algorithms) for a in (*IDASTAR, *GRAPH)}  # KERNELS' order


def split_row(size: int, goal: tuple[int, ...], H, automaton=None) -> Kernel:
    """The row whose split form runs parallel IDA* of ``H`` (:func:`.subtrees.subtrees_call`):
    the first IDA* row with one that serves the request (walking distance alone, served by
    ``idastar-walk`` in serial search, runs in the general kernel's)."""
    x = KernelInputs("idastar", size, tuple(goal), H, limits=None, automaton=automaton)  # serves() reads no limits
    return _reads_its_tables(next(k for k in _ROWS_OF["idastar"] if k.split and k.serves(x)), x)


def pick(inputs: KernelInputs) -> tuple[str, Callable]:
    """(warm-up name, ``call(tiles8)``): the kernel that runs ``inputs`` on one board. The
    name is the row's, with its variant: one name per compiled kernel."""
    row = kernel_for(inputs)
    variant, call = row.call(inputs)
    return f"{row.name}-{variant}" if variant else row.name, call


def pick_batch(inputs: KernelInputs) -> tuple | None:
    """(batch kernel, arguments after the boards) for ``inputs``, or None when its kernel
    has no batch form."""
    row = kernel_for(inputs)
    return None if row.batch is None else row.batch(inputs)


_WARM: set[str] = set()


def warm(name: str, call: Callable, goal: tuple[int, ...], size: int) -> None:
    """Run ``call`` on a board one move from ``goal`` the first time kernel ``name`` runs
    in this process, so compiling it (or loading it from numba's cache) stays out of the
    clocks of the solves that follow."""
    if name not in _WARM:
        call(near_goal(goal, size))
        _WARM.add(name)
