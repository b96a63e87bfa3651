"""IDA* with each iteration split at a frontier into chunks of subtrees (split search).

The start is expanded once to the split depth (:mod:`solver.frontier`). Each iteration
counts the nodes above the frontier itself, cuts the roots it keeps into chunks and hands
them, with the bound, to ``run_chunks`` (in this process: :func:`local_chunks`; on Dask:
:mod:`cluster.parallel`), whose kernels (:mod:`solver.subtrees`) search each root's
subtree exactly as the serial kernels do. The next bound is the least f above the bound
over the frontier and every chunk. The search stops after the first iteration that
accepts a goal.

Chunks are runs of consecutive roots (in depth-first order) of about equal predicted work:
a root's subtree in one iteration predicts its size in the next well (sizes vary by orders
of magnitude between roots), so each root weighs what its subtree generated in the
iteration before (roots new to this iteration weigh one node).

Node accounting: an iteration that ends without a goal is searched in full, so its count
equals serial IDA*'s to the node (``nodes_completed_iterations``). In the last iteration
serial IDA* stops at the first goal it meets in depth-first order. By default so does the
split search: when a chunk meets a goal the later chunks are cancelled, the earlier ones
searched to their end, and the iteration is counted as serial IDA* counts it, up to that
goal (the nodes above the roots it meets first, the whole subtrees of the roots before
it, its own up to the goal): every count and the moves are serial IDA*'s. With
``complete_last_iteration`` every chunk runs, each root's subtree to its first goal, so
``nodes_last_iteration`` counts more than serial IDA* does, the same for any workers and
chunks; the goal reported is still the one serial IDA* meets first.
"""

from __future__ import annotations

import time
from dataclasses import dataclass, replace

import numpy as np

from .checkpoint import DoneChunk, SplitState
from .deepening import MAX_ITERATIONS, NO_BOUND
from .ebf import effective_branching_factor
from .frontier import Frontier, expand
from .hstate import h_many
from .limits import CPU_CLOCK, LIMIT_CLOCK, LIMIT_NODES, LIMIT_NS, finished_late, make_limits
from .search import heuristic_of
from .status import EXHAUSTED, OUTCOMES, RUNNING, SOLVED, TOO_MANY_ITERATIONS
from .subtrees import Chunk, ChunkResult, subtrees_call, warmed

# Chunks per worker in an iteration: at least MIN, one per CHUNK_NODES nodes of the iteration
# before (the next is several times larger), at most MAX. Subtree sizes vary by orders of
# magnitude, so many chunks balance the workers; but each task costs a round trip through
# the scheduler, which on 2 busy cores (load 14) took ~50 ms: Korf #1's 2.8 M-node
# iteration took 1.5-2.4 s in 32 tasks and 0.4 s in 8 (benchmarks/parallel_speedup.py).
MIN_CHUNKS_PER_WORKER, MAX_CHUNKS_PER_WORKER = 2, 16
CHUNK_NODES = 2_000_000
# An iteration grows about 6-fold with Manhattan distance (2- to 4-fold with pattern
# databases), so one after an iteration of 200,000 nodes takes some 10 ms here with Manhattan
# distance (100 M nodes/s) and under a second with pattern databases (3 M nodes/s): no more
# than a round trip of many tasks through the scheduler on busy cores.
HERE_NODES = 200_000


@dataclass
class SplitOutcome:
    """What a split search did, beyond a serial solve's fields."""

    status: int = RUNNING
    moves: str | None = None
    generated: int = 0
    expanded: int = 0
    iterations: list | None = None
    completed: int = 0          # nodes of the iterations that ended without a goal
    last: int = 0               # nodes of the last iteration
    seconds: float = 0.0
    iteration_seconds: list | None = None  # wall time of each iteration
    # CPU time: this thread's outside the chunk calls, plus each chunk's search (wherever
    # it ran; chunks cancelled after a goal are not counted)
    cpu_seconds: float = 0.0


def local_chunks(search):
    """``run_chunks`` in this process: each chunk in turn with ``search``
    (:func:`solver.subtrees.subtrees_call`) and what the chunks before it left of ``limits``,
    stopping after a goal when asked to; ``on_chunk(result)`` hears of each chunk searched."""
    def run(chunks: list[Chunk], bound: int, stop_at_goal: bool, limits: np.ndarray,
            on_chunk=None) -> list[ChunkResult]:
        out, began = [], time.perf_counter()
        for chunk in chunks:
            spent = sum(r.cpu_seconds for r in out) if limits[LIMIT_CLOCK] == CPU_CLOCK else time.perf_counter() - began
            out.append(search(chunk, bound, stop_at_goal, _left(limits, sum(r.generated for r in out), spent)))
            if out[-1].status == RUNNING and on_chunk is not None:
                on_chunk(out[-1])
            if stop_at_goal and out[-1].solved >= 0 or out[-1].status != RUNNING:
                break
        return out
    return run


def split_idastar(frontier: Frontier, h0: int, run_chunks, workers: int, limits: np.ndarray,
                  complete_last_iteration: bool = False, run_here=None, resume: SplitState | None = None,
                  record=None) -> SplitOutcome:
    """IDA* from the start whose ``frontier`` is given, its heuristic value ``h0``.

    ``run_chunks(chunks, bound, stop_at_goal, limits, on_chunk)`` searches a list of
    :class:`~solver.subtrees.Chunk` on ``workers`` workers (:func:`chunk_count` chunks an
    iteration) and returns their :class:`~solver.subtrees.ChunkResult`. The chunks are runs
    of roots in depth-first order; with ``stop_at_goal`` it returns the results of the chunks
    up to the first, in that order, whose search met a goal (each chunk stops at its first
    goal; later chunks are not needed), else of every chunk (a limit hit may end it early);
    ``on_chunk(result)`` is called with each chunk searched to its end (or first goal) as it
    comes in. The node budget and time limit of ``limits`` hold for the whole search: each
    iteration's chunks get what is left of them, and the search stops when one is met.

    ``run_here`` (a ``run_chunks`` in this process) runs the first iterations, as one
    chunk, for as long as each generates under :data:`HERE_NODES` nodes: they are too
    small to pay a round trip to the workers.

    ``resume``: a :class:`~solver.checkpoint.SplitState` to go on from; ``record(state)``
    is given the search's state at the start of each iteration, after each chunk and at
    the end (:mod:`solver.checkpoint`).
    """
    state = resume or SplitState(bound=h0, sizes=[0] * len(frontier.depth))
    if state.status != RUNNING:
        return _outcome(state)
    if resume is not None:
        state.resumes += 1
    clock = _Clock(state)
    sizes = np.array(state.sizes, dtype=np.int64)  # nodes below each root in the iteration before
    stop = not complete_last_iteration
    if state.iterations and state.iterations[-1]["nodes_generated"] >= HERE_NODES:
        run_here = None
    while len(state.iterations) < MAX_ITERATIONS:
        bound = state.bound
        top = frontier.at(bound, NO_BOUND)
        done = [c.result() for c in state.done]
        roots = _roots_left(frontier, top, done, stop)
        count = 1 if run_here else chunk_count(state.iterations[-1]["nodes_generated"] if state.iterations else 0,
                                               workers)
        chunks = frontier.chunks(roots, sizes[roots] + 1, count)
        state.chunks = len(done) + len(chunks)
        _save(record, state, clock)

        def on_chunk(result, state=state):
            state.done.append(DoneChunk.of(result))
            _save(record, state, clock)

        left = _left(limits, state.generated + state.done_generated, clock.spent(limits))
        results = clock.call(run_here or run_chunks, chunks, bound, stop, left, on_chunk) if chunks else []
        results = _kept(frontier, top, done + results, stop)
        state.cpu_seconds += sum(r.cpu_seconds for r in results)
        for r in results:
            sizes[r.ids] = r.sizes
        found = [(int(frontier.rank[g]), g, "") for g in top.goals]
        found += [(int(frontier.rank[r.solved]), r.solved, r.moves) for r in results if r.solved >= 0]
        generated, expanded = top.generated, top.expanded
        if found and stop:  # count as serial IDA* does, up to the goal it meets first
            generated, expanded = frontier.upto(bound, min(found)[1])
        nodes = generated + sum(r.generated for r in results) + (1 if not state.iterations else 0)
        state.generated += nodes
        state.expanded += expanded + sum(r.expanded for r in results)
        state.iterations.append({"bound": int(bound), "nodes_generated": int(nodes)})
        state.iteration_seconds.append(clock.iteration())
        state.done, state.sizes = [], sizes.tolist()
        if nodes >= HERE_NODES:
            run_here = None
        state.last = nodes
        if found:
            _, index, moves = min(found)
            state.status, state.moves = SOLVED, frontier.path(index) + moves
            break
        failed = [r.status for r in results if r.status != RUNNING]
        if failed:  # a limit: the state recorded last (this iteration's start and chunks) is kept
            return clock.finish(_outcome(state, failed[0]))
        state.completed += nodes
        state.bound = int(min([top.next_bound] + [r.next_bound for r in results]))
        if state.bound >= NO_BOUND:
            state.status = EXHAUSTED
            break
    else:
        state.status = TOO_MANY_ITERATIONS
    out = clock.finish(_outcome(state))
    state.seconds, state.cpu_seconds = out.seconds, out.cpu_seconds
    if record is not None:
        record(state)
    return out


def _roots_left(frontier: Frontier, top, done: list[ChunkResult], stop: bool) -> np.ndarray:
    """The roots of an iteration still to search: those ``top`` keeps, less the ``done``
    chunks' and, when stopping at the first goal, those after a goal already met (above
    the roots, or below a root of a done chunk)."""
    roots = top.roots
    if done:
        roots = roots[~np.isin(roots, np.concatenate([r.ids for r in done]))]
    if stop:  # serial IDA* stops at the first goal: only the roots before it are searched
        goals = list(top.goals) + [r.solved for r in done if r.solved >= 0]
        if goals:
            roots = roots[frontier.rank[roots] < frontier.rank[goals].min()]
    return roots


def _kept(frontier: Frontier, top, results: list[ChunkResult], stop: bool) -> list[ChunkResult]:
    """``results`` without, when stopping at the first goal, the chunks after the goal met
    first (chunks recorded before a resume, whose roots come after a goal found since)."""
    solved = [r.solved for r in results if r.solved >= 0]
    if not stop or not solved:
        return results
    first = frontier.rank[solved].min()
    return [r for r in results if frontier.rank[r.ids[0]] <= first]


def _save(record, state: SplitState, clock) -> None:
    """Give ``record`` the state as it stands: its clocks read now (the CPU time of this
    thread so far with that of the finished iterations' chunks)."""
    if record is not None:
        state.seconds, state.iteration_elapsed = clock.elapsed(), clock.in_iteration()
        record(replace(state, cpu_seconds=state.cpu_seconds + clock.own_cpu()))


def _outcome(state: SplitState, status: int | None = None) -> SplitOutcome:
    return SplitOutcome(status=state.status if status is None else status, moves=state.moves,
                        generated=state.generated, expanded=state.expanded, iterations=list(state.iterations),
                        completed=state.completed, last=state.last, seconds=state.seconds,
                        iteration_seconds=list(state.iteration_seconds), cpu_seconds=state.cpu_seconds)


class _Clock:
    """The wall and CPU time of a split search, carried over from the state it resumed."""

    def __init__(self, state: SplitState):
        self.state = state
        now = time.perf_counter()
        self.start = now - state.seconds
        self.began = now - state.iteration_elapsed
        self.cpu_start = time.thread_time()
        self.waiting = 0.0  # this thread's CPU time inside the chunk calls, counted by the chunks instead

    def call(self, run, *args):
        called = time.thread_time()
        try:
            return run(*args)
        finally:
            self.waiting += time.thread_time() - called

    def own_cpu(self) -> float:
        return time.thread_time() - self.cpu_start - self.waiting

    def spent(self, limits: np.ndarray) -> float:
        if limits[LIMIT_CLOCK] == CPU_CLOCK:
            return self.state.cpu_seconds + self.own_cpu() + sum(c.cpu_seconds for c in self.state.done)
        return self.elapsed()

    def elapsed(self) -> float:
        return time.perf_counter() - self.start

    def in_iteration(self) -> float:
        return time.perf_counter() - self.began

    def iteration(self) -> float:
        seconds = self.in_iteration()
        self.began = time.perf_counter()
        return seconds

    def finish(self, out: SplitOutcome) -> SplitOutcome:
        out.seconds = self.elapsed()
        out.cpu_seconds = out.cpu_seconds + self.own_cpu()
        return out


def chunk_count(previous_nodes: int, workers: int) -> int:
    """Chunks of an iteration after one of ``previous_nodes`` nodes, on ``workers`` workers."""
    return workers * min(MAX_CHUNKS_PER_WORKER, max(MIN_CHUNKS_PER_WORKER, previous_nodes // CHUNK_NODES // workers))


def _left(limits: np.ndarray, generated: int, spent: float) -> np.ndarray:
    """The limits of the next chunks: the node budget less ``generated``, the time limit
    less the ``spent`` seconds on its clock (CPU time: the parts' sum so far, which each
    chunk may use up alone, so chunks running side by side can pass the limit together;
    the row then says ``late``)."""
    ns = int(limits[LIMIT_NS])
    left_s = None if ns <= 0 else max(1e-9, ns / 1e9 - spent)
    return make_limits(max(1, int(limits[LIMIT_NODES]) - generated), left_s,
                       cpu_clock=limits[LIMIT_CLOCK] == CPU_CLOCK)


def fill_result(result, out: SplitOutcome, h0: int, workers: int, split_depth: int, n_roots: int):
    """Put a split search's outcome into a :class:`~solver.solve.SolveResult`."""
    result.status, result.status_reason = OUTCOMES[out.status]
    result.nodes_generated, result.nodes_expanded = out.generated, out.expanded
    result.h0, result.seconds, result.iterations = int(h0), out.seconds, out.iterations
    result.cpu_seconds = out.cpu_seconds
    if result.status == "solved":
        result.cost, result.moves = len(out.moves), out.moves
        result.ebf = effective_branching_factor(out.generated, result.cost)
    result.extra.update(nodes_completed_iterations=out.completed, nodes_last_iteration=out.last,
                        workers=workers, split_depth=split_depth, frontier_roots=n_roots,
                        iteration_seconds=out.iteration_seconds)
    return result


def split_runner(run_chunks_for, workers: int, split_depth: int, complete_last_iteration: bool = False,
                 small_here: bool = False, checkpoints=None):
    """An IDA* runner for :func:`solver.solve.solve` (``split=``) that searches by split search.

    ``run_chunks_for(size, goal, heuristic, H, automaton)`` gives the ``run_chunks`` of
    :func:`split_idastar` (:func:`local_chunks` here, Dask tasks in :mod:`cluster.parallel`);
    an iteration is cut into :func:`chunk_count` chunks. ``small_here``:
    the first, small iterations run in this process (``run_here`` of :func:`split_idastar`).
    ``checkpoints(identity, n_nodes)`` gives ``(state, record)``: the recorded state of the
    search that :func:`search_identity` names (None: none yet) and where to record it
    (:mod:`jobs.checkpoints`).
    """
    def run(board, goal, H, limits, result, automaton=None):
        # h0 and a one-row frontier level compile (or load) the heuristic's kernels outside
        # the clock, as serial search does: a cold first solve spent 12 s of its `seconds` there
        h0 = heuristic_of(board, goal, H)
        h_many(board.array()[None, :], board.size, H)
        start, cpu_start = time.perf_counter(), time.thread_time()
        frontier = expand(board.tiles, board.size, goal, H, split_depth,
                          None if automaton is None else automaton.full)
        expanding, expanding_cpu = time.perf_counter() - start, time.thread_time() - cpu_start
        resume, record = None, None
        if checkpoints is not None:
            identity = search_identity(board, goal, result, split_depth, complete_last_iteration)
            resume, record = checkpoints(identity, len(frontier.depth))
        run_chunks = run_chunks_for(board.size, goal, result.heuristic, H, automaton)
        here = None
        if small_here:
            here = local_chunks(warmed(subtrees_call(board.size, goal, H, automaton), board.size, goal))
        out = split_idastar(frontier, h0, run_chunks, workers, limits, complete_last_iteration, here,
                            resume, record)
        out.seconds += expanding
        out.cpu_seconds += expanding_cpu
        out.status = finished_late(out.status, int(out.seconds * 1e9), int(out.cpu_seconds * 1e9), limits)
        return fill_result(result, out, h0, workers, split_depth, frontier.n_roots)
    return run


def search_identity(board, goal, result, split_depth: int, complete_last_iteration: bool) -> dict:
    """What names a split search's state: the board, goal, heuristic, pruning, conventions,
    the frontier's depth (the roots' numbering) and the last iteration's accounting."""
    return {"tiles": board.text(), "size": board.size, "goal": list(goal), "heuristic": result.heuristic,
            "pruning": result.pruning,
            "conventions": result.conventions, "split_depth": split_depth,
            "complete_last_iteration": complete_last_iteration}


def local_runner(split_depth: int, workers: int = 1, complete_last_iteration: bool = False, checkpoints=None):
    """:func:`split_runner` searching the chunks in this process (as ``workers`` would be cut)."""
    # warmed: the kernel compiles outside the chunks' CPU time, as on the Dask workers
    return split_runner(lambda size, goal, _, H, automaton: local_chunks(
                            warmed(subtrees_call(size, goal, H, automaton), size, goal)),
                        workers, split_depth, complete_last_iteration, checkpoints=checkpoints)
