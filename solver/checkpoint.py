"""Where a split search stands: the state it records and resumes from (no files here).

A split search (:mod:`solver.splitsearch`) records its state at the start of each iteration
and after each chunk of subtrees it searched (the subtree boundaries of a long iteration).
The state is plain data: the iterations done (bound and nodes), the running totals, the
iteration under way (its bound, the chunks already searched with their counts) and the
nodes each root generated the iteration before (which only balances the chunks). A search
resumed from it searches the roots no recorded chunk holds and counts exactly as the
uninterrupted search: an iteration's count is a sum over its roots, and a chunk's is the
sum over its roots, however the roots were cut into chunks.

:func:`state_from_dict` reads a state back from JSON-decoded data and checks every field's
type and range against the frontier it is for: a state is data, never code.
"""

from __future__ import annotations

from dataclasses import asdict, dataclass, field

import numpy as np

from .errors import TilesweepError
from .status import OUTCOMES, RUNNING
from .subtrees import ChunkResult

FORMAT = 1


class CheckpointError(TilesweepError):
    """A recorded state that cannot be resumed from: damaged, or of another search."""


@dataclass
class DoneChunk:
    """A chunk of the iteration under way, searched to its end (or to its first goal)."""

    ids: list[int]
    sizes: list[int]
    generated: int
    expanded: int
    next_bound: int
    solved: int = -1
    moves: str = ""
    cpu_seconds: float = 0.0

    @classmethod
    def of(cls, r: ChunkResult) -> DoneChunk:
        return cls([int(i) for i in r.ids], [int(s) for s in r.sizes], int(r.generated), int(r.expanded),
                   int(r.next_bound), int(r.solved), str(r.moves), float(r.cpu_seconds))

    def result(self) -> ChunkResult:
        return ChunkResult(RUNNING, self.solved, self.moves, self.generated, self.expanded, self.next_bound,
                           np.array(self.ids, dtype=np.int64), np.array(self.sizes, dtype=np.int64),
                           self.cpu_seconds)


@dataclass
class SplitState:
    """A split search's progress (see the module doc); ``status`` is RUNNING until it ended."""

    bound: int
    iterations: list[dict] = field(default_factory=list)   # {"bound", "nodes_generated"} of each done
    iteration_seconds: list[float] = field(default_factory=list)
    generated: int = 0
    expanded: int = 0
    completed: int = 0
    seconds: float = 0.0
    cpu_seconds: float = 0.0
    sizes: list[int] = field(default_factory=list)          # per frontier node, the iteration before
    done: list[DoneChunk] = field(default_factory=list)     # chunks of the iteration under way
    chunks: int = 0                                         # chunks the iteration under way was cut into
    iteration_elapsed: float = 0.0                          # its wall seconds so far
    status: int = RUNNING
    moves: str | None = None
    last: int = 0
    resumes: int = 0                                        # times the search was resumed from a record

    def to_dict(self) -> dict:
        return {"format": FORMAT, **asdict(self)}

    @property
    def done_generated(self) -> int:
        return sum(c.generated for c in self.done)


_INTS = ("bound", "generated", "expanded", "completed", "chunks", "status", "last", "resumes")
_FLOATS = ("seconds", "cpu_seconds", "iteration_elapsed")


def state_from_dict(data, n_nodes: int) -> SplitState:
    """The :class:`SplitState` held by ``data`` (decoded JSON) for a frontier of ``n_nodes``
    nodes; :class:`CheckpointError` names the first field that is not what it must be."""
    if not isinstance(data, dict) or data.get("format") != FORMAT:
        raise CheckpointError(f"is not a split-search state of format {FORMAT}")
    for name in _INTS:
        _check(isinstance(data.get(name), int) and not isinstance(data.get(name), bool), name, "a whole number")
    for name in _FLOATS:
        _check(_number(data.get(name)), name, "a number")
    _check(data["status"] == RUNNING or data["status"] in OUTCOMES, "status", "a search status")
    _check(data.get("moves") is None or _moves(data["moves"]), "moves", "a move string")
    _check(_ints(data.get("sizes")) and len(data["sizes"]) == n_nodes, "sizes",
           f"{n_nodes:,} whole numbers (one per frontier node)")
    _check(isinstance(data.get("iterations"), list) and all(_iteration(i) for i in data["iterations"]),
           "iterations", "a list of {bound, nodes_generated}")
    _check(isinstance(data.get("iteration_seconds"), list) and all(map(_number, data["iteration_seconds"])),
           "iteration_seconds", "a list of numbers")
    _check(isinstance(data.get("done"), list), "done", "a list of chunks")
    done = [_chunk(c, n_nodes) for c in data["done"]]
    fields = {k: data[k] for k in (*_INTS, *_FLOATS, "moves", "sizes", "iterations", "iteration_seconds")}
    return SplitState(**fields, done=done)


def _chunk(data, n_nodes: int) -> DoneChunk:
    _check(isinstance(data, dict) and set(data) == set(DoneChunk.__dataclass_fields__), "done", "chunks")
    ok = (_ints(data["ids"]) and _ints(data["sizes"]) and len(data["ids"]) == len(data["sizes"]) > 0
          and all(0 <= i < n_nodes for i in data["ids"]) and _ints([data[k] for k in
                                                                     ("generated", "expanded", "next_bound", "solved")])
          and -1 <= data["solved"] < n_nodes and _moves(data["moves"]) and _number(data["cpu_seconds"]))
    _check(ok, "done", "chunks of frontier roots with their counts")
    return DoneChunk(**data)


def _check(ok: bool, name: str, what: str) -> None:
    if not ok:
        raise CheckpointError(f"field {name!r} is not {what}")


def _number(x) -> bool:
    return isinstance(x, (int, float)) and not isinstance(x, bool) and x >= 0


def _ints(xs) -> bool:
    return isinstance(xs, list) and all(isinstance(x, int) and not isinstance(x, bool) for x in xs)


def _moves(x) -> bool:
    return isinstance(x, str) and set(x) <= set("UDLR")


def _iteration(x) -> bool:
    return isinstance(x, dict) and set(x) == {"bound", "nodes_generated"} and _ints(list(x.values()))
