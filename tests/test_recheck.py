"""``tilesweep verify``: a seeded sample of a sweep's rows solved again on this installation;
a row altered by hand (its part re-recorded, so the manifest passes) is named, exit 1."""

import pyarrow.compute as pc
import pytest
from typer.testing import CliRunner

from sweeps_local import report_sweep
from tilesweep.cli import app
from tilesweep.jobs.parts import read_part, results_dir, write_part
from tilesweep.jobs.recheck import recheck, reproducible
from tilesweep.jobs.results import load_results
from tilesweep.jobs.spec import SweepSpec

RUNNER = CliRunner()


@pytest.fixture(scope="module")
def sweep(tmp_path_factory):
    """A* and IDA* x manhattan, linear-conflict, pdb:4-4 on 60 8-puzzles, some runs over their node budget."""
    return report_sweep(tmp_path_factory.mktemp("recheck"))


def test_every_row_of_a_sweep_is_solved_again_the_same(sweep):
    rows = load_results(sweep)
    assert set(rows["status"]) == {"solved", "budget_exceeded"}  # node budgets: reproducible too
    found = recheck(sweep, None, 0, str(sweep.parent / "store"))
    assert (found.checked, found.skipped, found.differences) == (len(rows), 0, [])


def test_the_sample_is_seeded_and_machine_dependent_rows_are_left_out(sweep):
    rows = load_results(sweep)
    assert reproducible(rows.assign(status="timeout")).sum() == 0
    memory = rows.assign(status="budget_exceeded", status_reason="memory")
    assert reproducible(memory).sum() == 0
    result = RUNNER.invoke(app, ["verify", str(sweep), "--sample", "25", "--seed", "3",
                                 "--store", str(sweep.parent / "store")])
    assert result.exit_code == 0, result.output
    assert result.output.strip() == f"solved 25 of {len(rows)} rows again (seed 3): 0 difference(s)"


def test_a_row_altered_by_hand_is_named(tmp_path):
    folder = report_sweep(tmp_path, name="altered")
    spec = SweepSpec.from_json((folder / "sweep.json").read_text())
    table = read_part(results_dir(folder) / "part-00001.parquet")
    row = 5
    nodes = table.column("nodes_generated").to_pylist()
    instance, algorithm, heuristic = (table.column(c)[row].as_py() for c in ("instance", "algorithm", "heuristic"))
    nodes[row] += 1
    altered = table.set_column(table.schema.get_field_index("nodes_generated"), "nodes_generated",
                               pc.cast(nodes, table.schema.field("nodes_generated").type))
    write_part(spec, 1, altered)  # re-recorded: the manifest check passes, the figures do not
    result = RUNNER.invoke(app, ["verify", str(folder), "--sample", "0", "--store", str(tmp_path / "store")])
    assert result.exit_code == 1, result.output
    lines = result.output.strip().splitlines()
    assert lines[0] == (f"differs: instance {instance} ({algorithm}, {heuristic}): nodes_generated "
                        f"{nodes[row]} recorded, {nodes[row] - 1} now")
    assert len(lines) == 2 and lines[1].endswith(": 1 difference(s)")


def test_bad_input_is_one_line(tmp_path):
    result = RUNNER.invoke(app, ["verify", str(tmp_path)])
    assert result.exit_code == 2 and len(result.output.strip().splitlines()) == 1, result.output
    result = RUNNER.invoke(app, ["verify", str(tmp_path), "--sample", "-1"])
    assert result.exit_code == 2 and "sample -1 is too small" in result.output


def test_a_negative_seed_is_one_line(tmp_path):
    result = RUNNER.invoke(app, ["verify", str(tmp_path), "--seed", "-1"])
    lines = result.stderr.strip().splitlines()
    assert result.exit_code == 2 and len(lines) == 1 and "-1" in lines[0] and "seed" in lines[0], result.output
