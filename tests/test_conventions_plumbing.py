"""``--conventions`` through the program: ``solve`` (its JSON and one-line refusals), a sweep of
the course's board from an instances file (the rows and their ``conventions`` column), the
sweep's identity (old sweeps resume as korf), TOML specs, ``compare``'s refusal, the API."""

import json
import subprocess

import pytest
from typer.testing import CliRunner

from program import CLI
from sweeps_local import local_sweep
from test_conventions import COURSE_BOARD, COURSE_GOAL, COURSE_TABLE, search_depth
from tilesweep.api import define_sweep, solve_board
from tilesweep.cli import app
from tilesweep.jobs.results import load_results
from tilesweep.jobs.spec import SweepSpec, build_spec
from tilesweep.solver import InvalidOptionError

runner = CliRunner()


def invoke(*args):
    result = runner.invoke(app, list(args))
    assert "Traceback" not in result.output
    return result


@pytest.mark.parametrize("algorithm,heuristic", list(COURSE_TABLE))
def test_solve_reproduces_the_course_table(algorithm, heuristic):
    result = invoke("solve", COURSE_BOARD, "--goal", COURSE_GOAL, "--algorithm", algorithm, "--heuristic", heuristic,
                    "--conventions", "pops-board-string", "--json")
    assert result.exit_code == 0, result.stderr
    row = json.loads(result.stdout)
    assert row["conventions"] == "pops-board-string" and row["max_depth"] is not None
    got = (row["cost"], row["nodes_expanded"], search_depth(algorithm, row["cost"], row["max_depth"]))
    assert got == COURSE_TABLE[algorithm, heuristic]


@pytest.mark.parametrize("args,quoted", [
    (["--conventions", "course"], "'course'"),
    (["--conventions", "korf,ties=coin"], "'coin'"),
    (["--algorithm", "idastar", "--conventions", "pops-board-string"], "'pops-board-string'"),
    (["--algorithm", "astar", "--prune", "fsm", "--conventions", "heap-best-g"], "'fsm"),
])
def test_solve_refuses_in_one_line(args, quoted):
    run = subprocess.run([*CLI, "solve", COURSE_BOARD, *args], capture_output=True, text=True, timeout=120)
    assert run.returncode == 2 and run.stdout == ""
    assert len(run.stderr.strip().splitlines()) == 1 and quoted in run.stderr and "Traceback" not in run.stderr


def test_human_output_names_the_conventions():
    result = invoke("solve", COURSE_BOARD, "--goal", COURSE_GOAL, "-a", "astar", "--conventions", "heap-best-g")
    assert result.exit_code == 0 and "counting   heap-best-g" in result.stdout
    assert "counting" not in invoke("solve", COURSE_BOARD, "--goal", COURSE_GOAL, "-a", "astar").stdout


def course_file(tmp_path):
    path = tmp_path / "course.txt"
    path.write_text(COURSE_BOARD + "\n")
    return str(path)


def test_a_sweep_of_the_course_board_reproduces_the_table(tmp_path):
    folder = local_sweep(tmp_path, "course", instances=course_file(tmp_path), goal="blank-first",
                         algorithms=("bfs", "dfs", "astar"), heuristics=("manhattan", "euclidean"),
                         conventions="pops-board-string")
    rows = load_results(folder)
    assert set(rows["conventions"]) == {"pops-board-string"} and len(rows) == len(COURSE_TABLE)
    for row in rows.itertuples():
        key = (row.algorithm, "manhattan" if row.heuristic == "none" else row.heuristic)
        assert (row.cost, row.nodes_expanded, search_depth(row.algorithm, row.cost, row.max_depth)) == COURSE_TABLE[key]
    assert "--conventions pops-board-string" in SweepSpec.from_json((folder / "sweep.json").read_text()).command()
    verified = invoke("verify", str(folder), "--sample", "4")  # solved again under the sweep's conventions
    assert verified.exit_code == 0, verified.output


def test_conventions_are_part_of_the_identity_and_old_specs_read_as_korf(tmp_path):
    base = dict(size=3, count=5, algorithms=("astar",), out=str(tmp_path))
    korf, _ = build_spec(base, workers=1)
    course, _ = build_spec({**base, "conventions": "pops-board-string"}, workers=1)
    spelled, _ = build_spec({**base, "conventions": "korf,order=ULRD"}, workers=1)
    assert course.fingerprint() != korf.fingerprint() and course.name != korf.name
    assert spelled.fingerprint() == korf.fingerprint() and spelled.conventions == "korf"
    old = json.loads(korf.to_json())
    del old["conventions"]  # a sweep.json written before the field
    assert SweepSpec.from_json(json.dumps(old)).fingerprint() == korf.fingerprint()


def test_toml_spec_and_api_take_conventions(tmp_path):
    toml = tmp_path / "spec.toml"
    toml.write_text('size = 3\ncount = 3\nalgorithms = ["bfs"]\nconventions = "pops-board-string,order=DURL"\n')
    spec, _ = build_spec({"out": str(tmp_path)}, str(toml), workers=1)
    assert spec.conventions == "pops-board-string,order=DURL"
    assert define_sweep(toml, out=tmp_path).spec.conventions == spec.conventions
    toml.write_text('size = 3\ncount = 3\nconventions = "korf,goal-test=never"\n')
    with pytest.raises(InvalidOptionError, match="'never'"):
        build_spec({"out": str(tmp_path)}, str(toml), workers=1)
    r = solve_board(COURSE_BOARD, goal=COURSE_GOAL, algorithm="astar", conventions="pops-board-string")
    assert (r.cost, r.nodes_expanded) == COURSE_TABLE["astar", "manhattan"][:2]


def test_compare_refuses_rows_of_different_conventions_unless_asked(tmp_path):
    options = dict(instances=course_file(tmp_path), goal="blank-first", algorithms=("bfs",))
    korf = local_sweep(tmp_path, "korf", **options)
    course = local_sweep(tmp_path, "course", **options, conventions="pops-board-string")
    refused = invoke("compare", str(korf), str(course))
    assert refused.exit_code == 2 and len(refused.stderr.strip().splitlines()) == 1
    assert "'korf'" in refused.stderr and "'pops-board-string'" in refused.stderr
    asked = invoke("compare", str(korf), str(course), "--mixed-conventions", "--format", "json")
    assert asked.exit_code == 0 and json.loads(asked.stdout)["configurations"][0]["nodes_diff"] == 1
    assert invoke("compare", str(course), str(course)).exit_code == 0
