"""The batch path (a chunk's boards solved per configuration in one loop, results as
columns) gives the rows of the per-solve path, column for column but for timing."""

import pyarrow as pa
import pytest

from tilesweep.cluster.tables import open_tables
from tilesweep.jobs.schema import TIMING_COLUMNS, rows_to_table
from tilesweep.jobs.spec import build_spec
from tilesweep.jobs.work import chunk_jobs, solve_chunk, solve_chunk_table


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
    dict(count=30, chunk_size=17, max_nodes=400, algorithms=("idastar", "astar"), heuristics=("manhattan", "euclidean")),
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
    monkeypatch.setenv("TILESWEEP_FAULT_INSTANCES", "faulty:3")
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
