"""--prune from the CLI to the rows: solve --json, sweep specs, the pruning column, summaries."""

import json

import numpy as np
import pandas as pd
import pyarrow.parquet as pq
from typer.testing import CliRunner

from tilesweep.cli import app
from tilesweep.jobs.parts import write_part
from tilesweep.jobs.results import load_results
from tilesweep.jobs.schema import COLUMNS
from tilesweep.jobs.spec import build_spec
from tilesweep.jobs.summary import format_summary, summarize
from tilesweep.jobs.sweep import prepare, run_local
from tilesweep.solver import Board, goal_tiles, parse_heuristic, solve
from tilesweep.solver.batch import kernel_boards, solve_boards
from tilesweep.solver.generators import uniform_instance

RUNNER = CliRunner()


def test_solve_json_shows_the_pruning():
    for prune, expected in (("parent", "parent"), ("fsm", "fsm:14"), ("fsm:10", "fsm:10")):
        result = RUNNER.invoke(app, ["solve", "867254301", "-H", "walking-distance", "--prune", prune, "--json"])
        assert result.exit_code == 0, result.output
        data = json.loads(result.output)
        assert (data["pruning"], data["cost"], data["heuristic"]) == (expected, 31, "walking-distance")


def test_solve_refuses_a_bad_pruning_with_one_line():
    result = RUNNER.invoke(app, ["solve", "867254301", "--prune", "fsm:1"])
    assert result.exit_code == 2
    lines = result.stderr.strip().splitlines()
    assert len(lines) == 1 and "'fsm:1'" in lines[0] and "Traceback" not in result.output


def sweep(tmp_path, name, prune):
    options = dict(size=3, count=6, seed=3, out=str(tmp_path), name=name, chunk_size=3,
                   algorithms=("idastar", "astar"), heuristics=("manhattan", "walking-distance"))
    if prune is not None:
        options["prune"] = prune
    spec, _ = build_spec(options)
    run_local(prepare(spec))
    return spec


def test_sweep_rows_carry_the_pruning_and_summaries_keep_them_apart(tmp_path):
    parent = sweep(tmp_path, "parent", None)
    fsm = sweep(tmp_path, "fsm", "fsm")
    assert fsm.prune == "fsm:14" and "--prune fsm:14" in fsm.command()
    assert "prune" not in parent.identity() and fsm.identity()["prune"] == "fsm:14"
    rows = {p: load_results(s.folder) for p, s in (("parent", parent), ("fsm:14", fsm))}
    for prune, frame in rows.items():
        assert set(frame["pruning"]) == {prune} and (frame["status"] == "solved").all()
    both = pd.concat(rows.values())
    merged = both.pivot_table(index=["instance", "algorithm", "heuristic"], columns="pruning", values="cost")
    assert (merged["parent"] == merged["fsm:14"]).all()
    summary = summarize(both, baseline="manhattan")
    assert len(summary) == 8 and set(summary["pruning"]) == {"parent", "fsm:14"}
    assert (summary["paired"].where(summary["heuristic"] != "manhattan", 6) == 6).all()
    table = format_summary(summary, "table").splitlines()
    assert table[0].split()[:3] == ["algorithm", "heuristic", "pruning"]
    assert "pruning" not in format_summary(summarize(rows["parent"]), "table").splitlines()[0]


def test_parts_from_before_the_column_read_as_parent(tmp_path):
    spec = sweep(tmp_path, "old", None)
    part = next((spec.folder / "results").glob("part-*.parquet"))
    # as tilesweep wrote it then
    write_part(spec, int(part.stem.split("-")[1]), pq.read_table(part).select(list(COLUMNS[:-1])))
    assert set(load_results(spec.folder)["pruning"]) == {"parent"}


def test_batch_solves_equal_single_solves_with_fsm():
    goal = goal_tiles("blank-last", 3)
    boards = np.array([uniform_instance(3, goal, np.random.default_rng(i)).tiles for i in range(12)], dtype=np.int8)
    boards = boards[kernel_boards(boards, goal, 3)]
    for algorithm, name in (("idastar", "walking-distance"), ("idastar", "manhattan"), ("astar", "linear-conflict")):
        cols = solve_boards(boards, 3, goal, algorithm, parse_heuristic(name, 3, goal), prune="fsm")
        single = [solve(Board(tuple(b), 3), goal, algorithm, name, prune="fsm") for b in boards.tolist()]
        assert cols.request.pruning == "fsm:14"
        assert cols.nodes_generated.to_pylist() == [r.nodes_generated for r in single]
        assert cols.cost.to_pylist() == [r.cost for r in single]
