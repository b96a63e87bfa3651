"""Every ``tilesweep sweep`` option means the same on the command line (text that typer
parses with the library's parser) and in a TOML spec (typed values): the same spec, built
from typed values only; a bad value is the same one-line error either way."""

import json
import os

import pytest
import typer
from typer.testing import CliRunner

import tilesweep.jobs.spec as spec_module
import tilesweep.jobs.sweep as sweep_module
from tilesweep.cli import app
from tilesweep.jobs.spec import SweepSpec, build_spec
from tilesweep.solver.board import goal_tiles
from tilesweep.solver.errors import InvalidOptionError

RUNNER = CliRunner()
BOARDS = "boards.txt"  # written into the test's folder: three 8-puzzles

# option -> (TOML key, the values its help text names, as (command-line words, TOML value))
CASES = {
    "--size": ("size", [("3", 3), ("4", 4), ("5", 5)]),
    "--goal": ("goal", [("blank-last", "blank-last"), ("blank-first", "blank-first"),
                        ("1 2 3 8 0 4 7 6 5", "1 2 3 8 0 4 7 6 5")]),
    "--count": ("count", [("1", 1), ("100", 100)]),
    "--seed": ("seed", [("0", 0), ("7", 7)]),
    "--instances": ("instances", [("uniform", "uniform"), ("walk:40", "walk:40"), ("korf100", "korf100"),
                                  (BOARDS, BOARDS)]),
    "--algorithm": ("algorithm", [("astar", "astar"), ("idastar", "idastar"), ("bfs", "bfs"), ("dfs", "dfs"),
                                  (["astar", "idastar"], ["astar", "idastar"])]),
    "--heuristic": ("heuristic", [("manhattan", "manhattan"), ("linear-conflict", "linear-conflict"),
                                  ("pdb:5-3+reflect", "pdb:5-3+reflect"),
                                  (["manhattan", "misplaced"], ["manhattan", "misplaced"])]),
    "--out": ("out", [("elsewhere", "elsewhere")]),
    "--name": ("name", [("mine", "mine")]),
    "--store": ("store", [("pdb", "pdb")]),
    "--scheduler": ("scheduler", [("tcp://10.0.0.5:8786", "tcp://10.0.0.5:8786")]),
    "--scheduler-file": ("scheduler-file", [("scheduler.json", "scheduler.json")]),
    "--workers": ("workers", [("3", 3)]),
    "--parallel-above": ("parallel-above", [("100000000", 100_000_000)]),
    "--chunk-size": ("chunk-size", [("7", 7), ("auto", "auto")]),
    "--max-nodes": ("max-nodes", [("100000", 100000)]),
    "--time-limit": ("time-limit", [("0.5", 0.5), ("30", 30)]),
    "--cpu-time-limit": ("cpu-time-limit", [("0.5", 0.5), ("30", 30)]),
    "--prune": ("prune", [("parent", "parent"), ("fsm:3", "fsm:3")]),
    "--repeat": ("repeat", [("1", 1), ("5", 5)]),
    # other conventions refuse IDA*, the default algorithm: a case of their own in COMBINED
    "--conventions": ("conventions", [("korf", "korf"), ("korf,order=ULRD", "korf")]),  # korf's own order
    "--max-memory": ("max-memory", [("700MB", 700_000_000), ("2GiB", 2 << 30), ("1048576", 1048576)]),
    "--worker-wait": ("worker-wait", [("30", 30.0), ("0", 0.0), ("2.5", 2.5)]),
    "--wait-for-workers": ("wait-for-workers", [("4", 4)]),
    "--cluster": ("cluster", [("local", "local")]),
    # batch jobs' options only go with --cluster slurm: cases of their own in COMBINED
    "--jobs": ("jobs", []),
    "--max-jobs": ("max-jobs", []),
    "--cluster-option": ("cluster-option", []),
    "--plugin": ("plugin", []),  # needs a plugin file: tests/test_plugin_sweeps.py
}
# Combinations a user types together (the korf100 one was once refused: '4' against 4).
COMBINED = [
    {"--instances": ("korf100", "korf100"), "--size": ("4", 4), "--algorithm": ("idastar", "idastar"),
     "--heuristic": ("pdb:7-8+reflect", "pdb:7-8+reflect")},
    {"--size": ("4", 4), "--instances": ("walk:60", "walk:60"), "--count": ("10", 10), "--seed": ("3", 3),
     "--chunk-size": ("2", 2), "--max-nodes": ("5000", 5000), "--workers": ("1", 1)},
    {"--size": ("4", 4), "--cluster": ("slurm", "slurm"), "--jobs": ("2", 2),
     "--cluster-option": (["account=lab", "cores=2", "walltime=02:00:00"], ["account=lab", "cores=2",
                                                                           "walltime=02:00:00"])},
    {"--size": ("4", 4), "--cluster": ("pbs", "pbs"), "--max-jobs": ("3", 3)},
    {"--size": ("4", 4), "--algorithm": (["astar", "bfs"], ["astar", "bfs"]),
     "--conventions": ("pops-board-string,order=DURL", "pops-board-string,order=DURL")},
]
# how the summary prints; which parts rerun; where the client runs; a plan printed instead of a run
NOT_IN_THE_SPEC = {"--baseline", "--format", "--wide", "--retry-errors", "--detach", "--check-heuristics",
                   "--dry-run", "--predict"}


class Stopped(Exception):
    pass


def sweep_options() -> set[str]:
    command = typer.main.get_command(app).commands["sweep"]
    return {opt for p in command.params if isinstance(p, typer.core.TyperOption) for opt in p.opts
            if opt.startswith("--")}


def test_every_sweep_option_has_a_case():
    assert set(CASES) == sweep_options() - NOT_IN_THE_SPEC


@pytest.fixture
def folder(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    (tmp_path / BOARDS).write_text("1 2 3 4 5 6 0 7 8\n8 6 7 2 5 4 3 0 1\n1 2 3 4 5 6 7 0 8\n")
    (tmp_path / "scheduler.json").write_text('{"type": "Scheduler", "address": "tcp://10.0.0.5:8786"}')
    return tmp_path


def spec_from_cli(monkeypatch, words: list[str]):
    """(spec, run options, workers default) the sweep command builds from ``words``."""
    built = []

    def record(*args):
        built.append((build_spec(*args), args[2]))
        return built[-1][0]

    def stop(spec, *rest):
        raise Stopped  # before any instance is made or any process started

    monkeypatch.setattr(spec_module, "build_spec", record)
    monkeypatch.setattr(sweep_module, "prepare", stop)
    result = RUNNER.invoke(app, ["sweep", *words])
    assert built and isinstance(result.exception, Stopped), result.output
    (spec, run), workers = built[0]
    return spec, run, workers


def toml_value(value) -> str:
    return json.dumps(value)  # TOML's strings, integers and arrays of strings read the same


def spec_from_toml(folder, given: dict, workers: int):
    lines = [f"{CASES[opt][0]} = {toml_value(value)}" for opt, value in given.items()]
    path = folder / "spec.toml"
    path.write_text("[sweep]\n" + "\n".join(lines) + "\n")
    return build_spec({}, str(path), workers)


def check_same(folder, monkeypatch, given: dict[str, tuple]):
    words = []
    for opt, (text, _) in given.items():
        for word in ([text] if isinstance(text, str) else text):
            words += [opt, word]
    spec, run, workers = spec_from_cli(monkeypatch, words)
    assert (spec, run) == spec_from_toml(folder, {opt: value for opt, (_, value) in given.items()}, workers)
    assert all(isinstance(getattr(spec, f), int) for f in ("size", "count", "seed", "chunk_size"))
    assert spec.max_nodes is None or type(spec.max_nodes) is int
    assert run.workers is None or type(run.workers) is int
    assert SweepSpec.from_json(spec.to_json()) == spec
    return spec, run


@pytest.mark.parametrize("option, words, value", [(opt, w, v) for opt, (_, vals) in CASES.items() for w, v in vals])
def test_cli_and_toml_give_the_same_spec(folder, monkeypatch, option, words, value):
    spec, run = check_same(folder, monkeypatch, {option: (words, value)})
    key = option[2:].replace("-", "_")
    typed = value if not isinstance(value, list) else tuple(value)
    if key in ("store", "scheduler", "scheduler_file", "workers", "parallel_above", "worker_wait", "cluster",
               "wait_for_workers"):
        assert getattr(run, key) == typed
    elif key == "instances" and value == BOARDS:
        assert str(spec.instances) == str(folder / BOARDS) and spec.count == 3
    elif key == "goal":
        assert spec.goal_tuple == goal_tiles(value, 3)
    elif key == "instances":
        assert str(spec.instances) == value
    elif key in ("algorithm", "heuristic"):
        assert getattr(spec, key + "s") == (typed if isinstance(typed, tuple) else (typed,))
    elif key == "max_memory":
        assert spec.max_memory == {"2GB": 2 * 10**9, "700MB": 700 * 10**6}.get(value, value)
    elif key != "chunk_size" or value != "auto":
        assert getattr(spec, key) == typed


@pytest.mark.parametrize("given", COMBINED)
def test_options_given_together(folder, monkeypatch, given):
    spec, _ = check_same(folder, monkeypatch, given)
    assert spec.size == 4


def test_the_korf100_command_of_the_readme_is_accepted(folder, monkeypatch):
    spec, _, _ = spec_from_cli(monkeypatch, ["--instances", "korf100", "--size", "4", "--algorithm", "idastar",
                                             "--heuristic", "pdb:7-8+reflect"])
    assert (spec.size, spec.goal, spec.count, spec.heuristics) == (4, "blank-first", 100, ("pdb:7-8+reflect",))


@pytest.mark.parametrize("option, text, toml, message", [
    ("--size", "4.0", '"4.0"', "size '4.0' is not a whole number"),
    ("--size", "6", "6", "size 6 is not supported"),
    ("--count", "ten", '"ten"', "count 'ten' is not a whole number"),
    ("--count", "0", "0", "count 0 is too small"),
    ("--count", "-5", "-5", "count -5 is too small; expected an integer >= 1"),
    ("--seed", "x", '"x"', "seed 'x' is not a whole number"),
    ("--max-nodes", "0", "0", "max-nodes 0 is too small"),
    ("--chunk-size", "big", '"big"', "chunk-size 'big' is not a whole number"),
    ("--workers", "none", '"none"', "workers 'none' is not a whole number"),
    ("--parallel-above", "0", "0", "parallel-above 0 is too small"),
    ("--parallel-above", "many", '"many"', "parallel-above 'many' is not a whole number"),
    ("--time-limit", "soon", '"soon"', "time-limit 'soon' is not a number of seconds"),
    ("--cpu-time-limit", "soon", '"soon"', "cpu-time-limit 'soon' is not a number of seconds"),
    ("--max-memory", "lots", '"lots"', "max-memory 'lots' is not a size"),
    ("--repeat", "0", "0", "repeat 0 is too small; expected an integer >= 1"),
    ("--repeat", "101", "101", "repeat 101 is too large; expected an integer from 1 to 100"),
    ("--repeat", "twice", '"twice"', "repeat 'twice' is not a whole number"),
    # the stated limits (each quoting the value and the limit)
    ("--count", "1000000000000", "1000000000000", "count 1000000000000 is too large; expected an integer from 1 "
                                                  "to 1,000,000,000"),
    ("--count", "9" * 5000, '"' + "9" * 5000 + '"', "is too large; expected an integer from 1 to 1,000,000,000"),
    ("--instances", "walk:100000000000", '"walk:100000000000"', "instances 'walk:100000000000': expected a "
                                                                "walk of at most 1,000,000 moves"),
    ("--max-nodes", "1" + "0" * 21, "1" + "0" * 21, "max-nodes 1000000000000000000000 is too large; expected an "
                                                    "integer from 1 to 1,000,000,000,000,000,000"),
    ("--parallel-above", "1" + "0" * 21, "1" + "0" * 21, "parallel-above 1000000000000000000000 is too large"),
    ("--time-limit", "1e300", "1e300", "is not a number of seconds; expected a number > 0 and at most 1,000,000,000"),
    ("--worker-wait", "-1", "-1", "is not a number of seconds; expected a number >= 0 and at most 1,000,000,000"),
    ("--worker-wait", "never", '"never"', "worker-wait 'never' is not a number of seconds"),
    ("--cluster", "k8s", '"k8s"', "cluster 'k8s' is not known; expected one of: local, slurm, pbs, sge"),
    ("--jobs", "0", "0", "jobs 0 is too small"),
    ("--wait-for-workers", "0", "0", "wait-for-workers 0 is too small"),
    ("--cluster-option", "account", '["account"]', "cluster-option 'account' is not KEY=VALUE"),
])
def test_a_bad_value_is_the_same_one_line_error(folder, option, text, toml, message):
    result = RUNNER.invoke(app, ["sweep", option, text])
    lines = result.output.strip().splitlines()
    assert result.exit_code == 2 and len(lines) == 1 and message in lines[0], result.output
    (folder / "bad.toml").write_text(f"{CASES[option][0]} = {toml}\n")
    with pytest.raises(InvalidOptionError, match=message):
        build_spec({}, str(folder / "bad.toml"))


@pytest.mark.parametrize("words, message", [
    (["--jobs", "2"], "--jobs sets batch jobs of workers; expected it with --cluster slurm"),
    (["--cluster", "slurm", "--jobs", "2", "--max-jobs", "3"], "--jobs 2 and --max-jobs 3 both given"),
    (["--cluster", "slurm", "--scheduler", "tcp://10.0.0.5:8786"], "--scheduler and --cluster slurm both given"),
    (["--cluster", "slurm", "--scheduler-file", "s.json"], "--scheduler-file and --cluster slurm both given"),
    (["--scheduler", "tcp://10.0.0.5:8786", "--scheduler-file", "s.json"],
     "--scheduler tcp://10.0.0.5:8786 and --scheduler-file s.json both given"),
    (["--workers", "2", "--wait-for-workers", "3"], "--wait-for-workers 3 is more than --workers 2"),
])
def test_batch_job_options_that_do_not_fit(folder, words, message):
    result = RUNNER.invoke(app, ["sweep", *words])
    lines = result.output.strip().splitlines()
    assert result.exit_code == 2 and len(lines) == 1 and message in lines[0], result.output


def test_a_cluster_table_in_the_spec(folder):
    """``[cluster]``: its kind and scale, the rest the batch jobs' settings (as --cluster-option)."""
    (folder / "spec.toml").write_text('[sweep]\ncount = 4\n[cluster]\nkind = "slurm"\nmax-jobs = 2\n'
                                      'walltime = "01:00:00"\ncores = 2\njob_extra_directives = ["--exclusive"]\n')
    _, run = build_spec({}, str(folder / "spec.toml"))
    assert (run.cluster, run.max_jobs, run.jobs) == ("slurm", 2, None)
    assert run.cluster_options == ('walltime="01:00:00"', "cores=2", 'job_extra_directives=["--exclusive"]')
    assert "--cluster slurm --max-jobs 2 --cluster-option" in " ".join(run.args())


@pytest.mark.parametrize("text, message", [
    ("{not json", "cannot be read as a Dask scheduler file"),
    ('{"type": "Scheduler"}', "cannot be read as a Dask scheduler file"),
    ('{"address": "10.0.0.5"}', "scheduler '10.0.0.5' is not a Dask scheduler address"),
])
def test_a_scheduler_file_that_names_no_scheduler(folder, text, message):
    (folder / "scheduler.json").write_text(text)
    result = RUNNER.invoke(app, ["sweep", "--out", str(folder), "--scheduler-file", str(folder / "scheduler.json")])
    lines = result.output.strip().splitlines()
    assert result.exit_code == 2 and len(lines) == 1 and message in lines[0], result.output


def test_a_scheduler_file_is_read_for_its_address_and_kept_in_the_resume_command(folder):
    """The address a scheduler file names is the one connected to; the resume command names
    the file (a new allocation's scheduler writes a new address there)."""
    from tilesweep.cluster.connect import scheduler_address

    path = folder / "scheduler.json"
    path.write_text('{"type": "Scheduler", "address": "tcp://127.0.0.1:8786"}')
    assert scheduler_address(None, str(path)) == "tcp://127.0.0.1:8786"
    spec, run = build_spec({"scheduler_file": str(path), "out": str(folder)})
    assert f"--scheduler-file {path}" in spec.command(run)


@pytest.mark.parametrize("kind", ["folder", "fifo"])
def test_a_scheduler_file_that_can_never_be_one_is_refused_at_once(tmp_path, kind):
    """A folder or FIFO (as a device would be) is refused in one line, without the wait for a file."""
    import time

    path = tmp_path / "scheduler.json"
    path.mkdir() if kind == "folder" else os.mkfifo(path)
    started = time.monotonic()
    result = RUNNER.invoke(app, ["sweep", "--out", str(tmp_path / "sweeps"), "--scheduler-file", str(path)])
    lines = result.stderr.strip().splitlines()
    assert result.exit_code == 2 and len(lines) == 1 and repr(str(path)) in lines[0], result.output
    assert ("a folder" if kind == "folder" else "a FIFO or device") in lines[0]
    assert time.monotonic() - started < 10


def test_a_missing_scheduler_file_is_waited_for_and_said_once(tmp_path):
    from tilesweep.cluster.connect import read_scheduler_file
    from tilesweep.solver.errors import TilesweepError

    path = tmp_path / "scheduler.json"
    said = []
    with pytest.raises(TilesweepError, match="no Dask scheduler file"):
        read_scheduler_file(str(path), seconds=1.2, on_wait=lambda *heard: said.append(heard))
    assert said == [(str(path), 1.2)]


def unreachable_address() -> str:
    """A loopback address nothing listens on (its port bound, then closed)."""
    import socket

    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return f"tcp://127.0.0.1:{sock.getsockname()[1]}"


def write_once_waited_for(monkeypatch, path, address: str):
    """Write a scheduler file naming ``address`` at ``path`` (whole, by a rename, as a
    scheduler started beside the sweep does) at the sweep's second look for it: the first
    look found nothing, so the wait has been told. Tied to the looks, not to a clock, as
    what runs before the wait takes seconds on a loaded machine."""
    from tilesweep.cluster import connect

    ready, looks = connect._scheduler_file_ready, []

    def look(name):
        looks.append(name)
        if len(looks) == 2:
            part = path.with_name(path.name + ".part")
            part.write_text(json.dumps({"type": "Scheduler", "address": address}))
            os.replace(part, path)
        return ready(name)

    monkeypatch.setattr(connect, "_scheduler_file_ready", look)


def test_the_wait_for_a_scheduler_file_is_said_on_the_command_line(tmp_path, monkeypatch):
    """The sweep's run tells the wait (an event, :class:`~tilesweep.cluster.events.SweepEvents`);
    the command prints it on stderr, then goes on with the address the file names."""
    path, address = tmp_path / "scheduler.json", unreachable_address()
    write_once_waited_for(monkeypatch, path, address)
    result = RUNNER.invoke(app, ["sweep", "--size", "3", "--count", "2", "--algorithm", "bfs",
                                 "--out", str(tmp_path / "sweeps"), "--scheduler-file", str(path)])
    lines = result.stderr.strip().splitlines()
    assert result.exit_code == 1, result.output
    assert lines[0] == f"waiting up to 120 s for the Dask scheduler file {str(path)!r}", result.output
    assert "cannot reach the Dask scheduler" in lines[-1] and repr(address) in lines[-1]


def test_the_wait_for_a_scheduler_file_is_said_through_the_python_api(tmp_path, caplog, monkeypatch):
    import logging

    import tilesweep
    from tilesweep.cluster.connect import ClusterError

    path, address = tmp_path / "scheduler.json", unreachable_address()
    sweep = tilesweep.define_sweep(size=3, count=2, algorithms="bfs", out=tmp_path / "sweeps", name="file",
                                   scheduler_file=str(path))
    write_once_waited_for(monkeypatch, path, address)
    with caplog.at_level(logging.WARNING, logger="tilesweep.api"), \
            pytest.raises(ClusterError, match="cannot reach the Dask scheduler"):
        sweep.run()
    warnings = [r.getMessage() for r in caplog.records if r.name == "tilesweep.api"]
    assert warnings == [f"waiting up to 120 s for the Dask scheduler file {str(path)!r}"]


def test_detach_with_an_unreachable_scheduler_is_one_line_and_starts_nothing(tmp_path):
    import socket

    with socket.socket() as sock:  # a loopback port nothing listens on once closed
        sock.bind(("127.0.0.1", 0))
        port = sock.getsockname()[1]
    address = f"tcp://127.0.0.1:{port}"
    result = RUNNER.invoke(app, ["sweep", "--count", "4", "--out", str(tmp_path), "--scheduler", address, "--detach"])
    lines = result.stderr.strip().splitlines()
    assert result.exit_code == 1 and len(lines) == 1, result.output
    assert "cannot reach the Dask scheduler" in lines[0] and repr(address) in lines[0]
    assert not list(tmp_path.rglob("client.json"))
