"""``sweep --parallel-above NODES``: the IDA* rows that pass NODES nodes are solved again by
parallel IDA* on the sweep's cluster, and every row comes out as without the option."""

import numpy as np
import pytest
from typer.testing import CliRunner

from sweeps_local import local_sweep
from tilesweep.cli import app
from tilesweep.jobs.results import load_results
from tilesweep.jobs.schema import TIMING_COLUMNS
from tilesweep.solver.board import goal_tiles
from tilesweep.solver.generators import random_walk_instance

pytestmark = pytest.mark.cluster


def test_rows_above_the_threshold_come_out_the_same(korf100, tmp_path):
    goal = goal_tiles("blank-first", 4)
    rng = np.random.default_rng(16)
    boards = [korf100[79], *(random_walk_instance(4, goal, k, rng).tiles for k in (20, 40)), korf100[12]]
    (tmp_path / "boards.txt").write_text("".join(" ".join(map(str, b)) + "\n" for b in boards))
    options = dict(instances=str(tmp_path / "boards.txt"), goal="blank-first", algorithms=("idastar",),
                   heuristics=("manhattan", "linear-conflict"), chunk_size=2)
    reference = load_results(local_sweep(tmp_path / "serial", "four", **options))
    words = ["sweep", "--instances", str(tmp_path / "boards.txt"), "--goal", "blank-first", "--heuristic", "manhattan",
             "--heuristic", "linear-conflict", "--chunk-size", "2", "--name", "four", "--out", str(tmp_path / "par"),
             "--workers", "2", "--parallel-above", "200000"]
    result = CliRunner().invoke(app, words)
    assert result.exit_code == 0, result.output
    rows = load_results(tmp_path / "par" / "four")
    parallel = rows["worker"].str.startswith("parallel:2@")
    assert parallel.sum() >= 2 and set(rows[parallel]["instance"]) == {0, 3}
    assert "instance 0 (idastar, manhattan) passed 200,000 nodes" in result.output
    same = [c for c in rows.columns if c not in TIMING_COLUMNS]
    assert rows[same].equals(reference[same])
    assert (rows["status"] == "solved").all()
