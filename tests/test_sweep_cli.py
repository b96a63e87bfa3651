"""``tilesweep sweep / summary / query`` end to end: sweeps through the real CLI and a
LocalCluster (tier ``cluster``), and the results-side commands on the same sweep run in
this process (fast tier)."""

import json
import os
import re
import signal
import socket
import subprocess
import sys
import time
from pathlib import Path

import duckdb
import pandas as pd
import pyarrow.dataset as ds
import pyarrow.parquet as pq
import pytest
from typer.testing import CliRunner

from program import CLI
from sweeps_local import local_sweep
from tilesweep.cli import app

ROOT = Path(__file__).resolve().parents[1]
ENV = {k: v for k, v in os.environ.items() if k != "DASK_SCHEDULER_ADDRESS"}
RUNNER = CliRunner()


def cli(*args, check=True):
    proc = subprocess.run([*CLI, *map(str, args)], env=ENV,
                          capture_output=True, text=True, timeout=300)
    if check:
        assert proc.returncode == 0, proc.stderr
    return proc


SWEEP = ["sweep", "--size", "3", "--count", "24", "--seed", "5", "--algorithm", "astar", "--algorithm", "idastar",
         "--heuristic", "manhattan", "--heuristic", "linear-conflict", "--chunk-size", "5", "--workers", "1",
         "--name", "e2e"]


@pytest.fixture(scope="module")
def swept(tmp_path_factory):
    """SWEEP through the CLI on a LocalCluster: (folder, finished process)."""
    out = tmp_path_factory.mktemp("sweeps")
    proc = cli(*SWEEP, "--out", out)
    return out / "e2e", proc


@pytest.fixture(scope="module")
def local(tmp_path_factory):
    """The same sweep as SWEEP, run in this process (no Dask): its folder."""
    out = tmp_path_factory.mktemp("local")
    return local_sweep(out, "e2e", size=3, count=24, seed=5, algorithms=("astar", "idastar"),
                       heuristics=("manhattan", "linear-conflict"), chunk_size=5)


@pytest.mark.cluster
def test_folder_layout_and_schema(swept):
    folder, proc = swept
    parts = sorted(p.name for p in (folder / "results").iterdir())
    assert parts == [f"part-{i:05d}.parquet" for i in range(5)]
    spec = json.loads((folder / "sweep.json").read_text())
    meta = pq.read_schema(folder / "results" / parts[0]).metadata
    assert json.loads(meta[b"tilesweep.spec"])["fingerprint"] == spec["fingerprint"]
    df = pd.read_parquet(folder / "results")
    assert len(df) == 24 * 4 and set(df["status"]) == {"solved"}
    assert df.groupby("instance").size().eq(4).all()
    assert {"sweep", "instance", "size", "goal", "tiles", "algorithm", "heuristic", "status", "cost", "moves",
            "nodes_generated", "nodes_expanded", "ebf", "h0", "iterations", "seconds", "worker", "error"} <= set(df)
    # worker is host:pid of the Dask worker process that solved the row (not this process)
    hosts_pids = df["worker"].str.extract(r"^(.+):(\d+)$")
    assert hosts_pids.notna().all().all() and set(hosts_pids[0]) == {socket.gethostname()}
    assert str(os.getpid()) not in set(hosts_pids[1])
    ida = df[df["algorithm"] == "idastar"]
    assert all(json.loads(t)[-1]["bound"] == c for t, c in zip(ida["iterations"], ida["cost"], strict=True))
    assert df[df["algorithm"] == "astar"]["iterations"].isna().all()
    # the summary is printed (stdout) and written
    assert "linear-conflict" in proc.stdout and "reduction" in proc.stdout
    assert len(pd.read_parquet(folder / "summary.parquet")) == 4


@pytest.mark.cluster
def test_the_embedded_cluster_dashboard_link_is_printed(swept):
    _, proc = swept
    assert re.search(r"^dashboard: http://127\.0\.0\.1:\d+/status$", proc.stderr, re.M), proc.stderr


@pytest.mark.cluster
def test_a_run_record_is_written_beside_the_spec(swept):
    from tilesweep import __version__
    folder, _ = swept
    runs = json.loads((folder / "run.json").read_text())["runs"]
    assert len(runs) == 1 and runs[0]["tilesweep"] == __version__ and runs[0]["workers"] == 1
    assert runs[0]["scheduler"] == "embedded LocalCluster" and runs[0]["machine"]["cores"] == os.cpu_count()


def test_each_run_adds_a_record(tmp_path):
    from tilesweep import __version__
    from tilesweep.jobs.runrecord import record_run
    record_run(tmp_path, None, 2)
    record_run(tmp_path, "tcp://10.0.0.5:8786", None)
    first, second = json.loads((tmp_path / "run.json").read_text())["runs"]
    assert first["tilesweep"] == __version__ and first["machine"]["cores"] == os.cpu_count()
    assert (first["scheduler"], first["workers"]) == ("embedded LocalCluster", 2)
    assert (second["scheduler"], second["workers"]) == ("tcp://10.0.0.5:8786", None)

def test_three_readers_agree(local):
    folder = local
    by_pandas = pd.read_parquet(folder / "results")
    by_arrow = ds.dataset(folder / "results", format="parquet").to_table().to_pandas()
    by_duck = duckdb.sql(f"select * from read_parquet('{folder}/results/*.parquet') order by instance").df()
    assert len(by_pandas) == len(by_arrow) == len(by_duck) == 96
    assert by_pandas["nodes_generated"].sum() == by_arrow["nodes_generated"].sum() == by_duck["nodes_generated"].sum()
    costs = duckdb.sql(f"select heuristic, sum(cost) c from read_parquet('{folder}/results/*.parquet') "
                       "group by heuristic order by heuristic").fetchall()
    assert costs[0][1] == costs[1][1]


def test_the_worker_column_is_host_and_pid(local):
    assert set(pd.read_parquet(local / "results")["worker"]) == {f"{socket.gethostname()}:{os.getpid()}"}


@pytest.mark.slow
def test_summary_and_query_commands(local):
    folder = local
    rows = json.loads(RUNNER.invoke(app, ["summary", str(folder), "--baseline", "manhattan",
                                          "--format", "json"]).stdout)
    lc = [r for r in rows if r["heuristic"] == "linear-conflict"]
    assert all(r["instances"] == 24 and r["node_reduction_pct"] > 0 and r["more"] == 0 for r in lc)
    out = RUNNER.invoke(app, ["query", str(folder), "--where", 'algorithm == "astar"', "--group-by", "heuristic",
                              "--agg", "nodes_generated:mean", "--sort", "-nodes_generated_mean",
                              "--format", "csv"]).stdout
    lines = out.strip().splitlines()
    assert lines[0] == "heuristic,nodes_generated_mean" and lines[1].startswith("manhattan,")
    target = folder.parent / "q.parquet"
    cli("query", folder / "results", "--limit", "3", "--format", "parquet", "--output", target)
    assert len(pd.read_parquet(target)) == 3


def test_rerun_resumes_and_other_spec_is_refused(local, tmp_path):
    folder = local
    before = {p: p.stat().st_mtime_ns for p in (folder / "results").iterdir()}
    rerun = RUNNER.invoke(app, SWEEP + ["--out", str(folder.parent)])
    assert rerun.exit_code == 0 and "(5 already done)" in rerun.stderr
    assert before == {p: p.stat().st_mtime_ns for p in (folder / "results").iterdir()}
    refused = RUNNER.invoke(app, SWEEP + ["--out", str(folder.parent), "--seed", "6"])
    assert refused.exit_code == 2 and "'e2e'" in refused.stderr and "seed" in refused.stderr
    assert len(refused.stderr.strip().splitlines()) == 1


def test_a_corrupt_part_is_refused_naming_it(local, tmp_path):
    folder = local
    copy = tmp_path / "e2e"
    subprocess.run(["cp", "-r", str(folder), str(copy)], check=True)
    part = copy / "results" / "part-00002.parquet"
    part.write_bytes(part.read_bytes()[:-40])
    for args in (["summary", str(copy)], ["query", str(copy)]):  # a resume: tests/test_integrity.py
        result = RUNNER.invoke(app, args)
        assert result.exit_code == 1 and str(part) in result.output and "Traceback" not in result.output


@pytest.mark.parametrize("args, quoted", [
    (["sweep", "--count", "ten"], "'ten'"),
    (["sweep", "--size", "7"], "size 7"),
    (["sweep", "--heuristic", "pdb:9-9"], "'9-9'"),
    (["sweep", "--algorithm", "greedy"], "'greedy'"),
    (["sweep", "--instances", "walk:-1"], "'walk:-1'"),
    (["sweep", "--workers", "none"], "'none'"),
    (["sweep", "no-such-spec.toml"], "'no-such-spec.toml'"),
    (["sweep", "--format", "xml"], "'xml'"),
    (["summary", "/no/such/results"], "'/no/such/results'"),
    (["query", "/no/such/results"], "'/no/such/results'"),
])
def test_bad_input_is_one_line_exit_2(args, quoted, tmp_path):
    result = RUNNER.invoke(app, args + (["--out", str(tmp_path)] if args[0] == "sweep" else []))
    assert result.exit_code == 2, result.output
    lines = result.output.strip().splitlines()
    assert len(lines) == 1 and quoted in lines[0] and "Traceback" not in result.output


@pytest.mark.parametrize("command", ["summary", "query"])
def test_an_empty_regular_file_is_one_line_exit_2(tmp_path, command):
    empty = tmp_path / "results.parquet"
    empty.touch()
    result = RUNNER.invoke(app, [command, str(empty)])
    lines = result.stderr.strip().splitlines()
    assert result.exit_code == 2 and len(lines) == 1 and f"'{empty}'" in lines[0], result.output
    assert "not a part of a sweep folder" in lines[0] and "rerun" not in lines[0]


def test_bad_query_expression_is_one_line_exit_2(local):
    folder = local
    result = RUNNER.invoke(app, ["query", str(folder), "--where", "cost >>> 3"])
    assert result.exit_code == 2 and len(result.output.strip().splitlines()) == 1
    assert "'cost >>> 3'" in result.output


def test_query_columns_default_and_chosen(local):
    from tilesweep.jobs.query import TABLE_COLUMNS
    table = RUNNER.invoke(app, ["query", str(local), "--limit", "2"])
    assert table.exit_code == 0 and table.stdout.splitlines()[0].split() == list(TABLE_COLUMNS)
    chosen = RUNNER.invoke(app, ["query", str(local), "--columns", "instance,heuristic,cost", "--format", "csv"])
    assert chosen.stdout.splitlines()[0] == "instance,heuristic,cost" and len(chosen.stdout.splitlines()) == 97
    every = RUNNER.invoke(app, ["query", str(local), "--limit", "1", "--format", "csv"]).stdout.splitlines()[0]
    assert "iterations" in every.split(",") and "moves" in every.split(",")


def test_query_csv_gives_the_figures_without_float_noise(local):
    args = ["query", str(local), "--group-by", "heuristic,algorithm", "--agg", "seconds:mean", "--agg", "ebf:mean"]
    exact = json.loads(RUNNER.invoke(app, args + ["--format", "json"]).stdout)
    lines = RUNNER.invoke(app, args + ["--format", "csv"]).stdout.strip().splitlines()
    assert lines[0] == "heuristic,algorithm,seconds_mean,ebf_mean" and len(lines) == len(exact) + 1
    for line, row in zip(lines[1:], exact):
        assert line.split(",")[2:] == [f"{row['seconds_mean']:.15g}", f"{row['ebf_mean']:.15g}"]


@pytest.mark.parametrize("args, says", [
    (["--where", "colour > 1"], "names 'colour', not a result column; expected one of: sweep, instance, size,"),
    (["--where", "cost >"], "is not an expression (invalid syntax at the end); expected a condition such as"),
    (["--columns", "instance,colour"], "shown column 'colour' is not a result column; expected one of: sweep,"),
    (["--group-by", "colour"], "group-by column 'colour' is not a result column; expected one of: sweep,"),
])
def test_query_errors_list_the_columns_in_one_line(local, args, says):
    result = RUNNER.invoke(app, ["query", str(local), *args])
    lines = result.stderr.strip().splitlines()
    assert result.exit_code == 2 and len(lines) == 1 and says in lines[0], result.output


@pytest.mark.cluster
def test_ctrl_c_keeps_parts_and_prints_the_resume_command(tmp_path):
    args = [sys.executable, str(ROOT / "cli.py"), "sweep", "--count", "6", "--algorithm", "bfs", "--chunk-size", "1",
            "--workers", "1", "--name", "interrupted", "--out", str(tmp_path)]
    proc = subprocess.Popen(args, cwd=ROOT, env=ENV, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    results = tmp_path / "interrupted" / "results"
    deadline = time.time() + 120
    while time.time() < deadline and len(list(results.glob("part-*.parquet"))) < 1:
        time.sleep(0.05)
    proc.send_signal(signal.SIGINT)
    _, err = proc.communicate(timeout=60)
    kept = len(list(results.glob("part-*.parquet")))
    assert proc.returncode == 130, err
    assert 1 <= kept < 6 and f"{kept} of 6 chunks are saved" in err
    command = err.strip().splitlines()[-1].strip()
    assert command.startswith("python cli.py sweep") and "--name interrupted" in command
    resumed = subprocess.run([sys.executable, *command.split()[1:]], cwd=ROOT, env=ENV, capture_output=True,
                             text=True, timeout=300)
    assert resumed.returncode == 0, resumed.stderr
    assert f"({kept} already done)" in resumed.stderr
    df = pd.read_parquet(results)
    assert sorted(df["instance"]) == list(range(6))
