"""Heuristic names, their parsing, and the arrays that the search kernels evaluate.

Every heuristic is the same three-part sum that the kernels update per move:

* a per-tile table ``tile_cost[t, c]`` (Manhattan, misplaced, Euclidean in fixed point),
* optional linear-conflict line tables (Hansson, Mayer & Yung 1992, admissible form),
* optional disjoint additive pattern databases (Korf & Felner 2002), with the optional
  main-diagonal reflection lookup (the max of the two sums); a table is of tilesweep's
  own kind or, with ``+blank-ignoring``, of the blank-ignoring kind (:data:`TABLE_KINDS`),
  both indexed by the placement alone,
* optional walking distance (Takahashi 2001, :mod:`solver.walking`), with
  ``walking-distance+id`` the larger of it and Takahashi's inversion distance per axis.

``max(A,B,...)`` takes the maximum of its parts inside the kernels: each part is a *term*
(a set of the parts above that it adds up) and h is the largest term. None of them
counts the blank.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from functools import lru_cache
from typing import NamedTuple

import numpy as np

from .errors import InvalidBoardError, InvalidOptionError, UnknownNameError
from .geometry import transpose_cell
from .hstate import MAX_LOOKUPS, TERM_ID, TERM_LC, TERM_PDB, TERM_TILES, TERM_WD
from .htables import (
    line_codes,
    line_conflict_table,
    reflection,
    tile_cost_table,
    walk_arrays,
)
from .plugins import (
    PREFIX as PLUGIN_PREFIX,
    checked as checked_plugin,
    combined_function,
    incremental_function,
    kernel_key,
)
from .ranking import placement_count
from .zeroaware import binomials, offsets_for, records_for, zero_aware_count

WALKING = ("walking-distance", "walking-distance+id")
BASE_HEURISTICS = ("manhattan", "linear-conflict", "euclidean", "misplaced", *WALKING)
PER_TILE = ("manhattan", "linear-conflict", "euclidean", "misplaced")
WD_SIZES = (3, 4)  # the 5x5 pattern code would not fit 64 bits
MAX_TERMS = 4
MAX_GROUPS = 8
# The two kinds of pattern database: tilesweep's own (the blank roams the free cells at
# no cost; an entry is the depth at which its first blank region is reached) and the
# blank-ignoring one (a pattern tile moves into any adjacent free cell), named by a suffix.
# A zero-aware table (tilesweep's own abstraction) keeps an entry per blank region of a
# placement instead of the least of them (:mod:`solver.zeroaware`).
BLANK_AWARE, BLANK_IGNORING, ZERO_AWARE = "blank-aware", "blank-ignoring", "zero-aware"
TABLE_KINDS = (BLANK_AWARE, BLANK_IGNORING, ZERO_AWARE)
PDB_SUFFIXES = ("reflect", BLANK_IGNORING, ZERO_AWARE)

# Named partitions as goal cells of the blank-first layout (blank in cell 0). For a goal
# with the blank in the last cell the cells are rotated by 180 degrees; a group's tiles
# are the goal's tiles on those cells. Korf & Felner's 7-8 is tiles 1-7 / 8-15.
PARTITIONS: dict[int, dict[str, tuple[tuple[int, ...], ...]]] = {
    3: {
        "4-4": ((1, 2, 3, 4), (5, 6, 7, 8)),
        "5-3": ((1, 2, 3, 4, 5), (6, 7, 8)),
    },
    4: {
        "5-5-5": ((1, 2, 3, 6, 7), (4, 5, 8, 9, 12), (10, 11, 13, 14, 15)),
        "6-6-3": ((1, 4, 5, 8, 9, 12), (2, 3, 6, 7, 10, 11), (13, 14, 15)),
        "7-8": ((1, 2, 3, 4, 5, 6, 7), (8, 9, 10, 11, 12, 13, 14, 15)),
    },
    5: {
        "5-5-5-5-4": ((1, 2, 5, 6, 7), (3, 4, 8, 9, 14), (10, 11, 15, 16, 20),
                      (12, 13, 17, 18, 19), (21, 22, 23, 24)),
        "6-6-6-6": ((1, 2, 5, 6, 7, 12), (3, 4, 8, 9, 13, 14), (10, 11, 15, 16, 20, 21),
                    (17, 18, 19, 22, 23, 24)),
    },
}


@dataclass(frozen=True)
class HeuristicSpec:
    """A parsed heuristic: its base and, for pattern databases, groups and reflection."""

    name: str
    base: str
    groups: tuple[tuple[int, ...], ...] = ()
    reflect: bool = False
    parts: tuple[str, ...] = ()  # max(...): the base of each built-in part, in order
    plugins: tuple[tuple[str, str], ...] = ()  # (name, source sha256) of each plugin part
    # max(...) of several pattern databases: (number of groups, +reflect) of each, in order;
    # their groups follow one another in ``groups``
    databases: tuple[tuple[int, bool], ...] = ()
    # the kind of each group's table (TABLE_KINDS), in ``groups`` order; empty: all blank-aware
    kinds: tuple[str, ...] = ()

    @property
    def tables(self) -> tuple[tuple[tuple[int, ...], str], ...]:
        """(group, table kind) of each table it reads, in ``groups`` order."""
        return tuple(zip(self.groups, self.kinds or (BLANK_AWARE,) * len(self.groups)))

    @property
    def heuristic_version(self) -> str | None:
        """The source hash of its plugin (of each, joined by ``+``), None without one."""
        return "+".join(sha for _, sha in self.plugins) or None

    @property
    def is_pdb(self) -> bool:
        """Whether it reads pattern databases (a ``pdb:`` or a ``max`` with one)."""
        return bool(self.groups)

    @property
    def lookups(self) -> tuple[tuple[tuple[int, ...], bool], ...]:
        """The PDB lookups h takes the maximum of: (indices in ``groups``, reflected) each;
        a database with ``+reflect`` has two."""
        out, first = [], 0
        for k, reflect in self.databases or ((len(self.groups), self.reflect),):
            indices = tuple(range(first, first + k))
            out += [(indices, False)] + [(indices, True)] * reflect
            first += k
        return tuple(out) if self.groups else ()

    @property
    def bases(self) -> tuple[str, ...]:
        """The base of each term: the parts of a ``max``, else the base itself."""
        return self.parts or (self.base,)


def heuristic_names(size: int) -> list[str]:
    """Every heuristic name offered for ``size``, base names first."""
    pdbs = [f"pdb:{p}" for p in PARTITIONS.get(size, {})]
    bases = [b for b in BASE_HEURISTICS if b not in WALKING or size in WD_SIZES]
    return bases + pdbs + [p + "+reflect" for p in pdbs]


def partition_groups(partition: str, size: int, goal: tuple[int, ...]) -> tuple[tuple[int, ...], ...]:
    """Tile groups of a named partition for ``goal``."""
    named = PARTITIONS.get(size, {})
    if partition not in named:
        choices = ", ".join(named) or "none (give explicit groups like 1,2,3/4,5,6)"
        raise UnknownNameError(f"partition {partition!r} is not known for size {size}; "
                               f"expected one of: {choices}")
    n = size * size
    blank = goal.index(0)
    if blank not in (0, n - 1):
        raise InvalidBoardError(f"partition {partition!r} needs a goal with the blank in cell 0 "
                                f"or {n - 1}; give explicit groups like pdb:1,2,3/4,5,6")
    flip = blank == n - 1
    return tuple(tuple(sorted(goal[n - 1 - c if flip else c] for c in cells))
                 for cells in named[partition])


def _explicit_groups(text: str, size: int) -> tuple[tuple[int, ...], ...]:
    """Parse ``1,2,3/4,5,6`` into disjoint groups of non-blank tiles."""
    n = size * size
    groups, seen = [], set()
    for part in text.split("/"):
        if not re.fullmatch(r"\d+(,\d+)*", part):
            raise InvalidBoardError(f"pattern group {part!r} in {text!r} is not a comma list "
                                    "of tile numbers; expected e.g. pdb:1,2,3,4/5,6,7,8")
        tiles = tuple(int(t) for t in part.split(","))
        bad = [t for t in tiles if not 1 <= t < n or t in seen or tiles.count(t) > 1]
        if bad:
            raise InvalidBoardError(f"pattern groups {text!r}: tile {bad[0]} is the blank, out of "
                                    f"range 1..{n - 1} or in two groups; groups must be disjoint")
        seen.update(tiles)
        groups.append(tuple(sorted(tiles)))
    if len(groups) > MAX_GROUPS:
        raise InvalidBoardError(f"pattern groups {text!r}: {len(groups)} groups; at most {MAX_GROUPS}")
    return tuple(groups)


@lru_cache(maxsize=None)  # one per built-in name: every solve() parses its heuristic
def _base_spec(name: str) -> HeuristicSpec:
    return HeuristicSpec(name, name)


#: The heuristic of an uninformed search's rows (BFS and DFS read no h).
NO_HEURISTIC = "none"


def search_heuristic(name: str, size: int, goal: tuple[int, ...]) -> HeuristicSpec:
    """The heuristic a search of rows named ``name`` runs with: :data:`NO_HEURISTIC` (an
    uninformed search, which reads no h) has manhattan stand in, the cheapest to set up."""
    return parse_heuristic("manhattan" if name == NO_HEURISTIC else name, size, goal)


def parse_heuristic(name: str, size: int, goal: tuple[int, ...]) -> HeuristicSpec:
    """Parse a heuristic name (``manhattan``, ``pdb:7-8+reflect``, ``pdb:1,2/3,4``,
    ``max(pdb:6-6-3+reflect,walking-distance)``)."""
    if name.startswith("max(") and name.endswith(")"):
        return _parse_max(name, size, goal)
    if name in WALKING and size not in WD_SIZES:
        raise UnknownNameError(f"heuristic {name!r} is built for sizes "
                               f"{', '.join(map(str, WD_SIZES))} only, not {size}")
    if name in BASE_HEURISTICS:
        return _base_spec(name)
    if name.startswith(PLUGIN_PREFIX):
        found = checked_plugin(name[len(PLUGIN_PREFIX):], goal)
        return HeuristicSpec(name, "plugin", plugins=((found.name, found.sha256),))
    _refuse_sum(name)
    if not name.startswith("pdb:"):
        raise UnknownNameError(f"heuristic {name!r} is not known; expected one of: "
                               + ", ".join(heuristic_names(size))
                               + ", pdb:GROUPS[+reflect][+blank-ignoring|+zero-aware] or plugin:NAME")
    body, suffixes = _pdb_suffixes(name)
    reflect = "reflect" in suffixes
    if BLANK_IGNORING in suffixes and ZERO_AWARE in suffixes:
        raise InvalidOptionError(f"heuristic {name!r}: +{BLANK_IGNORING} and +{ZERO_AWARE} name two "
                                 "kinds of table; expected at most one of them")
    kind = next((k for k in (BLANK_IGNORING, ZERO_AWARE) if k in suffixes), BLANK_AWARE)
    if re.fullmatch(r"\d+(-\d+)+", body):
        groups = partition_groups(body, size, goal)
    else:
        groups = _explicit_groups(body, size)
    if reflect and goal.index(0) != transpose_cell(goal.index(0), size):
        raise InvalidBoardError(f"heuristic {name!r}: +reflect needs a goal whose blank is on the "
                                "main diagonal, so the reflected goal is the goal")
    # tilesweep's own tables leave ``kinds`` empty, so their specs stay as they were
    kinds = (kind,) * len(groups) if kind != BLANK_AWARE else ()
    return HeuristicSpec(name, "pdb", groups, reflect, kinds=kinds)


def _pdb_suffixes(name: str) -> tuple[str, set[str]]:
    """The body of a ``pdb:`` name and its suffixes (``+reflect``, ``+blank-ignoring``, in
    either order, each at most once)."""
    body, *suffixes = name[4:].split("+")
    if len(set(suffixes)) != len(suffixes):
        raise InvalidOptionError(f"heuristic {name!r} repeats a suffix; expected each of "
                                 f"{', '.join('+' + s for s in PDB_SUFFIXES)} at most once")
    return body, set(suffixes)


def _refuse_sum(name: str) -> None:
    """Refuse ``A+B``: only ``+reflect``, ``+blank-ignoring`` and ``+zero-aware`` may follow a ``pdb:`` name
    (``walking-distance+id`` is a name of its own)."""
    head, plus, tail = name.partition("+")
    if name.startswith("pdb:"):
        tail = next((s for s in tail.split("+") if s not in PDB_SUFFIXES), "") if plus else ""
    if plus and tail and tail != "reflect":
        raise InvalidOptionError(
            f"heuristic {name!r} adds two heuristics; only pattern databases of disjoint tiles "
            "add up (walking distance, Manhattan distance and a PDB count the same tile moves, "
            f"so their sum is not admissible); take the maximum instead: max({head},{tail})")


def _parse_max(name: str, size: int, goal: tuple[int, ...]) -> HeuristicSpec:
    """Parse ``max(A,B,...)`` into one spec whose terms the kernels take the maximum of."""
    texts = re.split(r",(?=[a-z])", name[4:-1])  # explicit groups hold commas before digits
    if "max(" in name[4:] or not 2 <= len(texts) <= MAX_TERMS:
        raise InvalidOptionError(f"heuristic {name!r}: expected max(A,B,...) of 2 to {MAX_TERMS} "
                                 "heuristics that are not themselves max(...)")
    parts = [parse_heuristic(text, size, goal) for text in texts]
    pdbs = [p for p in parts if p.is_pdb]
    per_tile = {p.base for p in parts if p.base in PER_TILE}
    if sum(p.base in WALKING for p in parts) > 1 or \
            len(per_tile - {"manhattan", "linear-conflict"}) + bool(per_tile & {"manhattan", "linear-conflict"}) > 1:
        raise InvalidOptionError(f"heuristic {name!r}: a max takes at most one walking distance and one "
                                 "of euclidean, misplaced or manhattan/linear-conflict")
    groups = tuple(g for p in pdbs for g in p.groups)
    lookups = sum(1 + p.reflect for p in pdbs)
    if len(groups) > MAX_GROUPS or lookups > MAX_LOOKUPS:
        raise InvalidOptionError(f"heuristic {name!r}: its pattern databases have {len(groups)} groups "
                                 f"and {lookups} lookups (a +reflect counts two); at most {MAX_GROUPS} "
                                 f"groups and {MAX_LOOKUPS} lookups")
    plugins = tuple(dict.fromkeys(x for p in parts for x in p.plugins))
    built_in = tuple(dict.fromkeys(p.base for p in parts if p.base != "plugin")) or ("plugin",)
    kinds = tuple(kind for p in pdbs for _, kind in p.tables) if any(p.kinds for p in pdbs) else ()
    if len(pdbs) == 1:
        return HeuristicSpec(name, "max", groups, pdbs[0].reflect, built_in, plugins, kinds=kinds)
    return HeuristicSpec(name, "max", groups, False, built_in, plugins,
                         tuple((len(p.groups), p.reflect) for p in pdbs), kinds)


class KernelHeuristic(NamedTuple):
    """The arrays a search kernel evaluates. Built by :func:`kernel_heuristic`.

    tile_cost : int32[N, N]   cost of tile t on cell c (0 for the blank), times ``scale``
    scale : int64             1, or the fixed-point scale of Euclidean distance
    use_lc : bool             add linear conflicts
    lc_code : int32[2n + 2, N]  per line (rows, then columns) each tile's code:
                              0 not of this line, else 1 + its index along the line;
                              then each tile's goal place in row-major and in
                              column-major order (inversion distance)
    lc_table : uint8[(n+1)^n] 2 x tiles to remove so a line's own tiles are in order
    n_groups : int64          pattern groups in use (0 for none)
    tile_group : int8[N]      group of each tile, -1 for none
    group_tiles : int8[MAX_GROUPS, N]  tiles of each group, in table order
    group_k : int64[MAX_GROUPS]        tiles per group
    tables : tuple of MAX_GROUPS uint8[:] (read-only)   one table per group
    reflect : bool            one database, also looked up on the main-diagonal
                              reflection (the max of the two)
    refl_tile : int8[N]       relabelling of tiles under the reflection
    refl_cell : int8[N]       cell mirrored about the main diagonal
    terms : int64[MAX_TERMS]  per term, the parts it adds (hstate.TERM_* bits); h = max
    n_terms : int64           terms in use
    use_wd : bool             track walking distance (and, for a term with TERM_ID,
                              inversions)
    goal_row, goal_col : int64[N]     goal row and column of each tile
    wd_link_v, wd_link_h : int32[:]   walking-distance link tables (:mod:`solver.walking`)
    wd_v, wd_h : (int64[P], int32[P], uint8[P])  pattern codes, numbers and distances
    n_lookups : int64         PDB lookups (a database, its reflection, the other databases
                              of a max of several): the PDB part is the largest of their sums
    lookup_group : int8[MAX_LOOKUPS, N]  per lookup, the group whose value a move of tile t
                              changes (-1 for none); row 0 is ``tile_group``
    lookup_refl : bool[MAX_LOOKUPS]      whether a lookup reads the reflected board
    zero_aware : bool         the tables are zero-aware (an entry per blank region,
                              :mod:`solver.zeroaware`); only the PDB IDA* kernel reads them
    za_records : int64[:]     each group size's set records (:func:`solver.zeroaware.records_for`),
                              one after another, ...
    za_first : int64[MAX_GROUPS]   ... group g's records from ``za_records[2 * za_first[g]]``
    za_regions : int64[MAX_GROUPS] the blank regions of all placements' sets of each group's size
                                   (an order rank's stride in the table)
    za_binom : int64[N + 1, :]     binomial coefficients (:func:`solver.zeroaware.binomials`)
    """

    tile_cost: np.ndarray
    scale: int
    use_lc: bool
    lc_code: np.ndarray
    lc_table: np.ndarray
    n_groups: int
    tile_group: np.ndarray
    group_tiles: np.ndarray
    group_k: np.ndarray
    tables: tuple
    reflect: bool
    refl_tile: np.ndarray
    refl_cell: np.ndarray
    terms: np.ndarray
    n_terms: int
    use_wd: bool
    goal_row: np.ndarray
    goal_col: np.ndarray
    wd_link_v: np.ndarray
    wd_link_h: np.ndarray
    wd_v: tuple
    wd_h: tuple
    n_lookups: int
    lookup_group: np.ndarray
    lookup_refl: np.ndarray
    zero_aware: bool
    za_records: np.ndarray
    za_first: np.ndarray
    za_regions: np.ndarray
    za_binom: np.ndarray


def expected_table_size(size: int, group: tuple[int, ...], kind: str = BLANK_AWARE) -> int:
    """Entries of the table of ``group`` on a ``size`` board (of table kind ``kind``)."""
    if kind == ZERO_AWARE:
        return zero_aware_count(size, len(group))
    return placement_count(size * size, len(group))


def zero_aware_arrays(spec: HeuristicSpec, size: int) -> tuple:
    """``zero_aware`` and the ``za_*`` arrays of :class:`KernelHeuristic` (small
    stand-ins for tables of the other kinds)."""
    zero_aware = any(kind == ZERO_AWARE for _, kind in spec.tables)
    if zero_aware and any(kind != ZERO_AWARE for _, kind in spec.tables):
        raise InvalidOptionError(f"heuristic {spec.name!r} mixes zero-aware tables with others; "
                                 "expected all of one kind")
    first = np.zeros(MAX_GROUPS, dtype=np.int64)
    regions = np.ones(MAX_GROUPS, dtype=np.int64)
    starts: dict[int, int] = {}  # groups of one size share their records: fewer cache lines
    parts = []
    for g, group in enumerate(spec.groups if zero_aware else ()):
        k = len(group)
        if k not in starts:
            starts[k] = sum(p.size for p in parts) // 2
            parts.append(records_for(size, k))
        first[g], regions[g] = starts[k], offsets_for(size, k)[-1]
    records = np.concatenate(parts) if parts else np.zeros(2, dtype=np.int64)
    return zero_aware, records, first, regions, binomials(size * size)


class PluginHeuristic(NamedTuple):
    """A heuristic with plugin parts: h = max(the built-in parts of ``base``, ``plug``).

    base : KernelHeuristic    the built-in parts (h = 0 when there are none)
    plug : numba dispatcher   ``plug(tiles, goal)``, the plugins' maximum (-1 if one is negative)
    goal : int64[N]           the goal board handed to ``plug``
    key : str                 names the compiled kernels of this ``plug`` (:func:`solver.plugins.kernel_key`)
    alone : bool              no built-in parts: h is ``plug`` alone
    step : numba dispatcher   the incremental form of a single plugin (None without one):
                              ``step(tiles, goal, h, tile, source, target)``, see
                              :mod:`solver.plugins`
    plugins : tuple           the plugins ``(name, sha256)``, whose kernels
                              :func:`solver.plugin_kernels.plugin_kernels` gives
    """

    base: KernelHeuristic
    plug: object
    goal: np.ndarray
    key: str
    alone: bool
    step: object = None
    plugins: tuple = ()


_KERNEL_HEURISTICS: dict[tuple, KernelHeuristic | PluginHeuristic] = {}


def kernel_heuristic(spec: HeuristicSpec, size: int, goal: tuple[int, ...],
                     tables: tuple[np.ndarray, ...] = ()) -> KernelHeuristic:
    """The kernel arrays of ``spec``; ``tables`` are its groups' PDB arrays, in order.

    Built once per process for each heuristic, goal and set of tables: a sweep solves
    thousands of boards with the same one. Tables are keyed by their memory address; a
    cached entry keeps its tables alive, so an address cannot be reused while it is kept.
    """
    key = (spec, size, tuple(goal), tuple((t.__array_interface__["data"][0], t.shape, t.dtype.str)
                                          for t in map(np.asarray, tables)))
    H = _KERNEL_HEURISTICS.get(key)
    if H is None:
        H = _build_kernel_heuristic(spec, size, tuple(goal), tuple(tables))
        if spec.plugins:
            goal_board = np.array(goal, dtype=np.int64)
            H = PluginHeuristic(H, combined_function(spec.plugins), goal_board, kernel_key(spec.plugins),
                                spec.bases == ("plugin",), incremental_function(spec.plugins), spec.plugins)
        _KERNEL_HEURISTICS[key] = H
    return H


def _build_kernel_heuristic(spec: HeuristicSpec, size: int, goal: tuple[int, ...],
                            tables: tuple[np.ndarray, ...]) -> KernelHeuristic:
    """Build the kernel arrays of ``spec`` (see :func:`kernel_heuristic`)."""
    n = size * size
    per_tile = [b for b in spec.bases if b in PER_TILE] or ["pdb"]
    cost, scale = tile_cost_table("manhattan" if per_tile[0] == "linear-conflict" else per_tile[0], size, goal)
    if len(tables) != len(spec.groups):
        raise ValueError(f"{spec.name} needs {len(spec.groups)} tables, got {len(tables)}")
    tile_group = np.full(n, -1, dtype=np.int8)
    group_tiles = np.zeros((MAX_GROUPS, n), dtype=np.int8)
    group_k = np.zeros(MAX_GROUPS, dtype=np.int64)
    for g, group in enumerate(spec.groups):
        group_tiles[g, : len(group)] = group
        group_k[g] = len(group)
    refl_tile, refl_cell = reflection(size, goal)
    n_lookups, lookup_group, lookup_refl = lookup_arrays(spec, n, refl_tile)
    if n_lookups:
        tile_group[:] = lookup_group[0]  # the first database's groups: the lookup planned ahead
    padded = []
    for g in range(MAX_GROUPS):
        table = np.asarray(tables[g]) if g < len(tables) else np.zeros(0, np.uint8)
        expected = expected_table_size(size, *spec.tables[g]) if g < len(tables) else 0
        if g < len(tables) and (table.dtype != np.uint8 or table.shape != (expected,)):
            raise ValueError(f"table {g} of {spec.name} has dtype {table.dtype} and shape "
                             f"{table.shape}; expected uint8 of {expected}")
        view = table.view()
        view.flags.writeable = False  # one numba type for mmapped and in-memory tables
        padded.append(view)
    terms = term_masks(spec.bases)
    zero_aware, za_records, za_first, za_regions, za_binom = zero_aware_arrays(spec, size)
    use_wd = any(b in WALKING for b in spec.bases)
    walk = walk_arrays(size, goal, use_wd)
    return KernelHeuristic(tile_cost=cost, scale=scale, use_lc="linear-conflict" in spec.bases,
                           lc_code=line_codes(size, goal), lc_table=line_conflict_table(size),
                           n_groups=len(spec.groups), tile_group=tile_group, group_tiles=group_tiles, group_k=group_k,
                           tables=tuple(padded), reflect=spec.reflect, refl_tile=refl_tile, refl_cell=refl_cell,
                           terms=terms, n_terms=len(spec.bases), use_wd=use_wd, goal_row=walk.goal_row,
                           goal_col=walk.goal_col, wd_link_v=walk.link_v, wd_link_h=walk.link_h, wd_v=walk.v,
                           wd_h=walk.h, n_lookups=n_lookups, lookup_group=lookup_group, lookup_refl=lookup_refl,
                           zero_aware=zero_aware, za_records=za_records, za_first=za_first,
                           za_regions=za_regions, za_binom=za_binom)


def lookup_arrays(spec: HeuristicSpec, n: int, refl_tile: np.ndarray) -> tuple:
    """``n_lookups``, ``lookup_group`` and ``lookup_refl`` of :class:`KernelHeuristic`."""
    groups = np.full((MAX_LOOKUPS, n), -1, dtype=np.int8)
    reflected = np.zeros(MAX_LOOKUPS, dtype=np.bool_)
    for i, (indices, refl) in enumerate(spec.lookups):
        mine = np.full(n, -1, dtype=np.int8)
        for g in indices:
            mine[list(spec.groups[g])] = g
        groups[i] = mine[refl_tile] if refl else mine
        reflected[i] = refl
    return len(spec.lookups), groups, reflected


def term_masks(bases: tuple[str, ...]) -> np.ndarray:
    """``int64[MAX_TERMS]``: the parts (hstate.TERM_* bits) each term adds up."""
    bits = {"linear-conflict": TERM_TILES | TERM_LC, "pdb": TERM_PDB, "walking-distance": TERM_WD,
            "walking-distance+id": TERM_WD | TERM_ID}
    masks = np.zeros(MAX_TERMS, dtype=np.int64)
    masks[: len(bases)] = [bits.get(b, TERM_TILES) for b in bases]
    return masks
