"""The Python API (``tilesweep.api``): the calls the command line makes, giving its rows,
summaries and one-line errors; and every example of docs/python-api.md runs as written."""

import os
import shutil

import dask
import pandas as pd
import pytest
from typer.testing import CliRunner

import tilesweep
from sweeps_local import local_sweep
from test_docs_commands import ROOT, fenced_blocks
from tilesweep.cli import app
from tilesweep.cluster.jobqueue import cluster_class
from tilesweep.jobs.results import load_results
from tilesweep.jobs.schema import TIMING_COLUMNS
from tilesweep.jobs.summary import summarize
from tilesweep.solver import Board, InvalidBoardError, InvalidOptionError, UnknownNameError, solve

GUIDE = ROOT / "docs" / "python-api.md"
PLUGIN = ROOT / "examples" / "heuristics" / "manhattan.py"
HARDEST = "8 6 7 2 5 4 3 0 1"
SPEC = dict(size=3, count=12, seed=5, heuristics=("manhattan", "plugin:manhattan-plugin"), chunk_size=4)


def cli_error(*args) -> str:
    """The one line ``tilesweep ARGS`` prints on stderr, without its ``error:``, after exit 2
    (run in this process: tests/test_solve_cli.py checks the started program's errors)."""
    done = CliRunner().invoke(app, list(map(str, args)))
    assert done.exit_code == 2, done.stderr
    return done.stderr.strip().removeprefix("error: ")


def rows(frame: pd.DataFrame) -> pd.DataFrame:
    return frame.drop(columns=["sweep", *TIMING_COLUMNS]).reset_index(drop=True)


def test_solve_board_gives_the_solvers_result_from_text_numbers_or_a_board():
    expected = solve(Board.parse(HARDEST), "blank-last", "idastar", "linear-conflict")
    for tiles in (HARDEST, "867254301", [8, 6, 7, 2, 5, 4, 3, 0, 1], Board.parse(HARDEST)):
        result = tilesweep.solve_board(tiles, heuristic="linear-conflict")
        assert (result.cost, result.moves, result.nodes_generated) == (31, expected.moves, expected.nodes_generated)


def test_solve_board_with_a_plugin_gives_the_builtins_node_counts():
    mine = tilesweep.solve_board(HARDEST, heuristic="plugin:manhattan-plugin", plugins=PLUGIN)
    builtin = tilesweep.solve_board(HARDEST, heuristic="manhattan")
    assert mine.heuristic == "plugin:manhattan-plugin"
    assert (mine.cost, mine.nodes_generated, mine.nodes_expanded) == (31, builtin.nodes_generated,
                                                                      builtin.nodes_expanded)


@pytest.mark.parametrize("call, error, args", [
    (lambda: tilesweep.solve_board("1 2 3"), InvalidBoardError, ["solve", "1 2 3"]),
    (lambda: tilesweep.solve_board(HARDEST, heuristic="manhatan"), UnknownNameError,
     ["solve", HARDEST, "--heuristic", "manhatan"]),
    (lambda: tilesweep.define_sweep(count=0), InvalidOptionError, ["sweep", "--count", "0"]),
    (lambda: tilesweep.define_sweep(heuristics=["manhattan", "max(pdb:4-4"]), UnknownNameError,
     ["sweep", "--heuristic", "manhattan", "--heuristic", "max(pdb:4-4"]),
    (lambda: tilesweep.define_sweep(workers=2, cluster="slurm"), InvalidOptionError,
     ["sweep", "--workers", "2", "--cluster", "slurm"]),
])
def test_errors_carry_the_command_lines_one_line(call, error, args):
    with pytest.raises(error) as raised:
        call()
    assert isinstance(raised.value, tilesweep.TilesweepError)
    # an option's parser runs inside click, which names the option first
    assert cli_error(*args).removeprefix(f"Invalid value for '{args[1]}': ") == str(raised.value)


def test_define_sweep_is_the_command_lines_spec_and_writes_nothing(tmp_path):
    sweep = tilesweep.define_sweep(**SPEC, plugins=str(PLUGIN), out=tmp_path, name="api", workers=2)
    assert sweep.folder == tmp_path / "api" and not sweep.folder.exists()
    assert sweep.where.workers == 2
    assert sweep.spec.plugins[0][0] == "manhattan-plugin"
    assert sweep.command().startswith(f"tilesweep sweep --plugin {PLUGIN} --size 3 ")
    spec_file = tmp_path / "spec.toml"
    spec_file.write_text('size = 3\ncount = 7\nheuristics = ["misplaced"]\n')
    from_file = tilesweep.define_sweep(spec_file, count=9, out=tmp_path)
    assert (from_file.spec.count, from_file.spec.heuristics) == (9, ("misplaced",))
    with pytest.raises(TypeError, match="'worker'"):
        sweep.run(worker=2)


def test_a_sweep_on_disk_opens_and_reads_as_the_library_reads_it(tmp_path):
    folder = local_sweep(tmp_path, "done", plugin_files=(str(PLUGIN),), **SPEC)
    sweep = tilesweep.open_sweep(folder)
    assert sweep.spec.heuristics == SPEC["heuristics"] and sweep.folder == folder
    pd.testing.assert_frame_equal(sweep.results(), load_results(folder))
    assert list(sweep.results(columns=["instance", "cost"]).columns) == ["instance", "cost"]
    pd.testing.assert_frame_equal(sweep.summary(), summarize(load_results(folder), "manhattan"))
    state = sweep.state()
    assert state.complete and state.rows == 24 and state.statuses["solved"] == 24
    with pytest.raises(InvalidOptionError, match="no sweep.json"):
        tilesweep.open_sweep(tmp_path)


@pytest.mark.cluster
def test_run_on_the_embedded_cluster_and_at_a_scheduler_address_gives_the_in_process_rows(tmp_path):
    from distributed import LocalCluster

    reference = rows(load_results(local_sweep(tmp_path / "local", "ref", plugin_files=(str(PLUGIN),), **SPEC)))
    sweep = tilesweep.define_sweep(**SPEC, plugins=PLUGIN, out=tmp_path, name="embedded", workers=2)
    seen = []
    summary = sweep.run(on_progress=seen.append)
    assert [p.chunks_done for p in seen] == [1, 2, 3] and seen[-1].solves_done == seen[-1].solves_total == 24
    pd.testing.assert_frame_equal(rows(sweep.results()), reference)
    pd.testing.assert_frame_equal(summary, sweep.summary())
    assert summary.loc[summary["heuristic"] == "plugin:manhattan-plugin", "nodes_ratio"].item() == 1.0
    again = []
    sweep.run(on_progress=again.append)  # every part is on disk: nothing runs
    assert again == []
    elsewhere = tilesweep.define_sweep(**SPEC, plugins=PLUGIN, out=tmp_path, name="address")
    with LocalCluster(n_workers=1, threads_per_worker=1, host="127.0.0.1", dashboard_address=None) as cluster:
        elsewhere.run(scheduler=cluster.scheduler_address)
    pd.testing.assert_frame_equal(rows(elsewhere.results()), reference)


@pytest.mark.cluster
def test_a_started_sweep_is_followed_by_its_progress_loop_and_ends_in_its_summary(tmp_path):
    reference = rows(load_results(local_sweep(tmp_path / "local", "ref", plugin_files=(str(PLUGIN),), **SPEC)))
    sweep = tilesweep.define_sweep(**SPEC, plugins=PLUGIN, out=tmp_path, name="started")
    with pytest.raises(InvalidOptionError, match="workers"):
        sweep.start(workers=0)  # bad input raises in the caller, before any thread
    run = sweep.start(workers=2)
    seen = [(p.chunks_done, p.solves_done, p.solves_total) for p in run.progress(timeout=600)]
    assert seen == [(1, 8, 24), (2, 16, 24), (3, 24, 24)] and run.done()
    summary = run.result()
    pd.testing.assert_frame_equal(summary, sweep.summary())
    pd.testing.assert_frame_equal(rows(sweep.results()), reference)
    assert list(run.progress()) == []  # a second loop ends at once
    again = sweep.start(workers=2)  # every part is on disk: nothing runs
    assert list(again.progress(timeout=600)) == []
    pd.testing.assert_frame_equal(again.result(), summary)
    failing = tilesweep.define_sweep(**SPEC, plugins=PLUGIN, out=tmp_path, name="unreached")
    failed = failing.start(scheduler="tcp://127.0.0.1:9")  # nothing listens there
    with pytest.raises(tilesweep.TilesweepError, match="cannot reach the Dask scheduler"):
        list(failed.progress(timeout=600))
    with pytest.raises(tilesweep.TilesweepError, match="cannot reach the Dask scheduler"):
        failed.result()


def guide_blocks() -> list[tuple[int, str]]:
    """(line, code) of every python block of the guide."""
    return [(line, "\n".join(lines)) for language, line, lines in fenced_blocks(GUIDE) if language == "python"]


def run_blocks(blocks, folder, capsys) -> str:
    """Run ``blocks`` in one namespace in ``folder`` (which gets the repository's examples/);
    return what they printed."""
    shutil.copytree(ROOT / "examples", folder / "examples")
    namespace = {}
    cwd = os.getcwd()
    os.chdir(folder)
    try:
        for line, code in blocks:
            exec(compile(code, f"{GUIDE}:{line}", "exec"), namespace)
    finally:
        os.chdir(cwd)
    return capsys.readouterr().out


def is_batch(code: str) -> bool:
    return 'cluster="slurm"' in code


@pytest.mark.cluster
def test_the_guides_examples_run(tmp_path, capsys):
    blocks = [b for b in guide_blocks() if not is_batch(b[1])]
    assert len(blocks) >= 6
    out = run_blocks(blocks, tmp_path, capsys)
    assert "solved 31 " in out and "400/400 solves" in out
    assert (tmp_path / "sweeps" / "api-demo" / "summary.parquet").is_file()
    assert (tmp_path / "sweeps" / "api-address" / "summary.parquet").is_file()
    assert "heuristic 'manhatan' is not known" in out


@pytest.mark.slurm
@pytest.mark.skipif(shutil.which("sbatch") is None, reason="Slurm is not installed (.ci/install-slurm)")
def test_the_guides_slurm_example_runs(tmp_path, capsys):
    """One single-threaded worker job on this machine, set up as a site's jobqueue.yaml would."""
    (block,) = [b for b in guide_blocks() if is_batch(b[1])]
    site = {"jobqueue.slurm.cores": 1, "jobqueue.slurm.memory": "1GB", "jobqueue.slurm.interface": "lo"}
    # dask-jobqueue adds its defaults to dask's config when first imported: imported inside the
    # set() below, they would leave with it, and later jobqueue tests in this process would find none
    cluster_class("slurm")
    with dask.config.set(site):
        out = run_blocks([block], tmp_path, capsys)
    assert "manhattan      20" in out
    assert len(load_results(tmp_path / "sweeps" / "api-slurm")) == 20
