"""The batch path (a chunk's boards solved per configuration in one loop, results as
columns) gives the rows of the per-solve path, column for column but for timing."""

import dataclasses

import numpy as np
import pyarrow as pa
import pytest

import faults
from chunk_reference import solve_chunk
from tilesweep.cluster.tables import open_tables
from tilesweep.jobs.schema import TIMING_COLUMNS, normalise_row, rows_to_table
from tilesweep.jobs.spec import build_spec
from tilesweep.jobs.work import chunk_jobs, solve_chunk_table
from tilesweep.solver.batch import FIGURES, kernel_boards, solve_boards
from tilesweep.solver.board import Board, goal_tiles
from tilesweep.solver.generators import random_walk_instance, uniform_instance
from tilesweep.solver.heuristics import parse_heuristic
from tilesweep.solver.solve import solve


def listed(cols):
    """``cols`` with each figure as a Python list."""
    return dataclasses.replace(cols, **{name: getattr(cols, name).to_pylist() for name in FIGURES})


def same_rows(job, tables_for=lambda name: (), monkeypatch=None):
    """With ``monkeypatch``, every board must go through the batch (a batch that raised
    would fall back to solving its boards one by one, which would hide it)."""
    single = rows_to_table(solve_chunk(job, tables_for))
    if monkeypatch is not None:
        import tilesweep.jobs.work as work

        def not_batched(*args, **kwargs):
            raise AssertionError("a board left the batch path")

        monkeypatch.setattr(work, "solve_one", not_batched)
    batch = solve_chunk_table(job, tables_for)
    if monkeypatch is not None:
        monkeypatch.undo()
    assert batch.schema == single.schema and batch.num_rows == single.num_rows
    for name in batch.column_names:
        if name not in TIMING_COLUMNS:
            assert batch.column(name).to_pylist() == single.column(name).to_pylist(), name
    return batch


def jobs_of(tmp_path, **options):
    return chunk_jobs(build_spec({"out": str(tmp_path), **options}, workers=1)[0])


@pytest.mark.parametrize("options", [
    dict(count=12, chunk_size=6, algorithms=("idastar", "astar", "bfs", "dfs"),
         heuristics=("manhattan", "linear-conflict", "misplaced")),
    dict(count=30, chunk_size=17, max_nodes=400, algorithms=("idastar", "astar"),
         heuristics=("manhattan", "euclidean")),
    dict(count=12, chunk_size=7, size=4, instances="walk:30", goal="blank-first", algorithms=("idastar", "astar")),
])
def test_batch_rows_equal_single_rows(tmp_path, options, monkeypatch):
    for job in jobs_of(tmp_path, **options)[:2]:
        table = same_rows(job, monkeypatch=monkeypatch)
    assert set(table.column("status").to_pylist()) >= {"solved"}


def test_boards_the_kernels_do_not_take_and_faults(tmp_path, monkeypatch):
    boards = tmp_path / "boards.txt"
    boards.write_text("1 2 3 4 5 6 7 8 0\n8 6 7 2 5 4 3 0 1\n2 1 3 4 5 6 7 8 0\n1 2 3 4 5 6 0 7 8\n"
                      "0 1 2 3 4 5 6 7 8\n")
    faults.install(faults.listed("faulty:3"), monkeypatch.setattr)
    (job,) = jobs_of(tmp_path, instances=str(boards), name="faulty", chunk_size=5,
                     algorithms=("idastar", "astar", "bfs"))
    table = same_rows(job)
    statuses = table.column("status").to_pylist()
    assert statuses[:9] == ["solved"] * 6 + ["unsolvable"] * 3 and statuses[9:12] == ["error"] * 3
    assert table.column("cost").to_pylist()[:3] == [0, 0, 0]  # the goal itself
    assert table.column("instance").to_pylist() == [i for i in range(5) for _ in range(3)]


def test_a_batch_that_raises_becomes_per_solve_error_rows(tmp_path, monkeypatch):
    import tilesweep.jobs.work as work

    def broken(*args, **kwargs):
        raise MemoryError("no room")

    monkeypatch.setattr(work, "solve_boards", broken)
    monkeypatch.setattr(work, "solve", broken)
    (job,) = jobs_of(tmp_path, count=3, chunk_size=3)
    table = solve_chunk_table(job)
    assert table.column("status").to_pylist() == ["error"] * 3
    assert table.column("error").to_pylist() == ["MemoryError: no room"] * 3


def test_pattern_databases(tmp_path, monkeypatch):
    spec = build_spec({"out": str(tmp_path), "count": 25, "chunk_size": 25, "algorithms": ("idastar", "astar"),
                       "heuristics": ("pdb:4-4", "pdb:5-3+reflect")}, workers=1)[0]
    _, tables = open_tables(str(tmp_path / "store"), spec.heuristics, 3, spec.goal_tuple, build=True)
    table = same_rows(chunk_jobs(spec)[0], lambda h: tables.get(h, ()), monkeypatch)
    assert isinstance(table, pa.Table) and table.column("status").to_pylist().count("solved") == 100


def packed_boards(size: int, count: int, walk: int | None = None) -> tuple[tuple[int, ...], np.ndarray]:
    """(goal, boards the kernels take): uniform 8-puzzles, or ``walk``-move 15-puzzles."""
    goal = goal_tiles("blank-last", size)
    rngs = [np.random.default_rng(np.random.SeedSequence([7, i])) for i in range(count)]
    boards = np.array([(uniform_instance(size, goal, r) if walk is None else random_walk_instance(size, goal, walk, r))
                       .tiles for r in rngs], dtype=np.int8)
    return goal, boards[kernel_boards(boards, goal, size)]


def single_columns(boards, goal, size, heuristic, tables=(), algorithm="astar", **limits) -> dict:
    """The figures of :func:`solve` on each board, as the columns :func:`solve_boards` returns."""
    results = [normalise_row(solve(Board(tuple(b), size), goal, algorithm, heuristic, tables, **limits).to_dict())
               for b in boards.tolist()]
    return {name: [r[name] for r in results] for name in PACKED_FIGURES}


PACKED_FIGURES = ("status", "status_reason", "cost", "moves", "nodes_generated", "nodes_expanded", "ebf", "h0",
                  "max_depth", "iterations")


@pytest.mark.parametrize("heuristic", ["manhattan", "linear-conflict", "misplaced", "walking-distance",
                                       "pdb:4-4", "pdb:5-3+reflect", "max(linear-conflict,pdb:4-4)"])
def test_packed_astar_batch_equals_per_board_solves(tmp_path, heuristic):
    """One compiled call over 400 8-puzzles gives each board's solve() figures, unlimited and
    under node budgets that stop some searches part-way."""
    goal, boards = packed_boards(3, 400)
    spec = parse_heuristic(heuristic, 3, goal)
    names = [heuristic] if spec.is_pdb else []
    _, tables = open_tables(str(tmp_path / "store"), names, 3, goal, build=True)
    tables = tables.get(heuristic, ())
    for max_nodes in (None, 300, 1):
        cols = listed(solve_boards(boards, 3, goal, "astar", spec, tables, max_nodes=max_nodes))
        single = single_columns(boards, goal, 3, heuristic, tables, max_nodes=max_nodes)
        for name in PACKED_FIGURES:
            assert getattr(cols, name) == single[name], (max_nodes, name)
        assert len(cols.seconds) == len(boards) and min(cols.seconds) >= 0
    statuses = set(listed(solve_boards(boards, 3, goal, "astar", spec, tables, max_nodes=300)).status)
    assert statuses == {"solved", "budget_exceeded"}


@pytest.mark.slow  # seconds of 15-puzzle A*; the 8-puzzle cases above keep the packed batch in the fast tier
def test_packed_astar_batch_on_15_puzzles_under_memory_and_node_limits():
    goal, boards = packed_boards(4, 40, walk=50)
    spec = parse_heuristic("manhattan", 4, goal)
    for limits in ({}, {"max_memory": "1MiB"}, {"max_nodes": 5000}, {"max_nodes": 5000, "max_memory": "1MiB"}):
        cols = listed(solve_boards(boards, 4, goal, "astar", spec, **limits))
        single = single_columns(boards, goal, 4, "manhattan", **limits)
        for name in PACKED_FIGURES:
            assert getattr(cols, name) == single[name], (limits, name)
    reasons = set(listed(solve_boards(boards, 4, goal, "astar", spec, max_memory="1MiB")).status_reason)
    assert reasons == {None, "memory"}


def test_packed_astar_batch_of_no_boards_and_of_a_time_limit():
    goal, boards = packed_boards(4, 20, walk=50)
    spec = parse_heuristic("manhattan", 4, goal)
    assert listed(solve_boards(boards[:0], 4, goal, "astar", spec)).status == []
    cols = listed(solve_boards(boards, 4, goal, "astar", spec, time_limit=1e-4))
    assert set(cols.status) <= {"solved", "timeout"}
    single = single_columns(boards, goal, 4, "manhattan")
    for i, status in enumerate(cols.status):  # a search that finished in time found what solve() finds
        if status == "solved":
            assert (cols.cost[i], cols.nodes_generated[i], cols.moves[i]) == \
                (single["cost"][i], single["nodes_generated"][i], single["moves"][i])
        else:
            assert cols.cost[i] is None and cols.moves[i] is None


def test_packed_astar_chunk_with_goal_and_unsolvable_boards(tmp_path):
    """Goal and unsolvable boards stay out of the compiled batch and keep their rows."""
    boards = tmp_path / "boards.txt"
    boards.write_text("1 2 3 4 5 6 7 8 0\n8 6 7 2 5 4 3 0 1\n2 1 3 4 5 6 7 8 0\n1 2 3 4 5 6 0 7 8\n"
                      "0 1 2 3 4 5 6 7 8\n1 2 3 4 5 6 8 7 0\n8 6 7 2 0 4 3 5 1\n")
    (job,) = jobs_of(tmp_path, instances=str(boards), chunk_size=7, algorithms=("astar",),
                     heuristics=("manhattan", "linear-conflict"), max_nodes=2000)
    table = same_rows(job)
    statuses = table.column("status").to_pylist()
    assert set(statuses) == {"solved", "unsolvable", "budget_exceeded"}
    assert statuses[:2] == ["solved"] * 2 and table.column("cost").to_pylist()[:2] == [0, 0]


@pytest.mark.parametrize("prune", ["parent", "fsm"])
@pytest.mark.parametrize("heuristic", ["manhattan", "misplaced", "euclidean"])
def test_per_tile_idastar_batch_equals_per_board_solves(heuristic, prune):
    """IDA* with a per-tile heuristic: one compiled call over 300 8-puzzles and 15 15-puzzles
    gives each board's solve() figures, iterations included, unlimited and under budgets."""
    for size, count, walk in ((3, 300, None), (4, 15, 26)):
        goal, boards = packed_boards(size, count, walk)
        spec = parse_heuristic(heuristic, size, goal)
        for max_nodes in (None, 500):
            cols = listed(solve_boards(boards, size, goal, "idastar", spec, max_nodes=max_nodes, prune=prune))
            single = single_columns(boards, goal, size, heuristic, algorithm="idastar", max_nodes=max_nodes,
                                    prune=prune)
            for name in PACKED_FIGURES:
                assert getattr(cols, name) == single[name], (size, max_nodes, name)
        assert "budget_exceeded" in cols.status
