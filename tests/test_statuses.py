"""One status vocabulary from the kernels to the rows and the summary; old parts still read."""

import json

import pandas as pd
import pyarrow as pa
import pyarrow.parquet as pq
from typer.testing import CliRunner

from tilesweep.cli import app
from tilesweep.jobs.parts import write_part
from tilesweep.jobs.results import load_results
from tilesweep.jobs.schema import ADDED_COLUMNS, COLUMNS, RESULT_SCHEMA
from tilesweep.jobs.spec import build_spec
from tilesweep.jobs.summary import summarize
from tilesweep.jobs.sweep import finish, prepare, run_local
from tilesweep.solver.status import STATUSES

RUNNER = CliRunner()
KORF_1 = "14 13 15 7 11 12 9 5 6 0 2 1 4 8 10 3"


def test_solve_json_carries_status_reason_and_limits():
    result = RUNNER.invoke(app, ["solve", KORF_1, "--goal", "blank-first", "--max-nodes", "500", "--json"])
    assert result.exit_code == 0, result.output
    data = json.loads(result.output)
    assert (data["status"], data["status_reason"], data["max_nodes"]) == ("budget_exceeded", "nodes", 500)
    assert data["time_limit"] is None


def test_solve_time_limit_from_the_cli():
    result = RUNNER.invoke(app, ["solve", KORF_1, "--goal", "blank-first", "--time-limit", "0.3"])
    assert result.exit_code == 0, result.output
    assert "status     timeout" in result.output


def test_solve_bad_limits_are_one_line_exit_2():
    for option, value in (("--time-limit", "soon"), ("--max-memory", "lots")):
        result = RUNNER.invoke(app, ["solve", "8 6 7 2 5 4 3 0 1", "--algorithm", "astar", option, value])
        assert result.exit_code == 2 and repr(value) in result.output and "Traceback" not in result.output


def test_sweep_rows_carry_their_limits_and_summary_counts_every_status(tmp_path):
    options = dict(size=4, goal="blank-first", count=3, seed=1, algorithms=("idastar",), heuristics=("manhattan",),
                   max_nodes=200_000, time_limit=30.0, out=str(tmp_path), name="limits", chunk_size=2)
    spec, _ = build_spec(options)
    run_local(prepare(spec))
    rows = load_results(spec.folder)
    assert (rows["max_nodes"] == 200_000).all() and (rows["time_limit"] == 30.0).all()
    over = rows[rows["status"] == "budget_exceeded"]
    assert len(over) and (over["status_reason"] == "nodes").all()
    summary = finish(spec)
    assert list(summary.columns[4:4 + len(STATUSES)]) == list(STATUSES)
    assert summary[list(STATUSES)].sum(axis=1).tolist() == [3]
    assert "--time-limit 30.0" in spec.command()


def test_summary_counts_statuses_outside_the_vocabulary():
    df = pd.DataFrame({"size": 3, "algorithm": "idastar", "heuristic": "manhattan", "sweep": "s",
                       "instance": range(3), "goal": "blank-last", "tiles": "x", "cost": 1,
                       "status": ["solved", "depth_limit", "timeout"], "nodes_generated": 5, "ebf": 1.0,
                       "seconds": 0.1})
    s = summarize(df).iloc[0]
    assert (s.solved, s.timeout, s.depth_limit, s.instances) == (1, 1, 1, 3)


def test_a_part_from_before_the_added_columns_still_reads(tmp_path):
    spec, _ = build_spec(dict(size=3, count=4, seed=2, out=str(tmp_path), name="old", chunk_size=4))
    run_local(prepare(spec))
    part = next((spec.folder / "results").glob("part-*.parquet"))
    old = pq.read_table(part).select(list(COLUMNS[:len(COLUMNS) - len(ADDED_COLUMNS)]))
    write_part(spec, int(part.stem.split("-")[1]), old)  # as tilesweep wrote it then
    rows = load_results(spec.folder)
    assert rows["status_reason"].isna().all() and rows["max_nodes"].isna().all() and len(rows) == 4
    assert prepare(spec).pending == []  # the old part counts as finished


def test_a_part_with_a_foreign_schema_is_refused(tmp_path):
    from tilesweep.jobs.parts import CorruptPartError, read_part
    path = tmp_path / "part-00000.parquet"
    pq.write_table(pa.table({"status": ["solved"], "cost": [1]}), path)
    try:
        read_part(path)
    except CorruptPartError as err:
        assert "does not have the tilesweep result schema" in str(err)
    else:
        raise AssertionError("a foreign part was read")
    assert RESULT_SCHEMA.names[-len(ADDED_COLUMNS):] == list(ADDED_COLUMNS)
