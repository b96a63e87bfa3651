"""The ``solve`` command: human, JSON and trace output; exit codes; one-line errors."""

import json
import subprocess
import sys
from pathlib import Path

import pytest
from typer.testing import CliRunner

import naive
from program import CLI
from tilesweep.cli import app

ROOT = Path(__file__).resolve().parents[1]
JSON_KEYS = {"tiles", "size", "goal", "algorithm", "heuristic", "status", "cost", "moves",
             "nodes_generated", "nodes_expanded", "ebf", "h0", "seconds"}
runner = CliRunner()


def run_cli(*args):
    """``tilesweep ARGS`` in a subprocess (see tests/program.py)."""
    return subprocess.run([*CLI, *args], capture_output=True, text=True, timeout=120)


def invoke(*args):
    result = runner.invoke(app, list(args))
    assert "Traceback" not in result.output
    return result


def test_human_output():
    result = invoke("solve", "8 6 7 2 5 4 3 0 1", "--algorithm", "astar", "--heuristic", "linear-conflict")
    assert result.exit_code == 0, result.stderr
    out = result.stdout
    assert out.splitlines()[:3] == ["8 6 7", "2 5 4", "3 . 1"]
    assert "status     solved" in out and "cost       31" in out
    moves = next(line.split()[1] for line in out.splitlines() if line.startswith("moves"))
    assert len(moves) == 31 and naive.replay((8, 6, 7, 2, 5, 4, 3, 0, 1), moves) == (1, 2, 3, 4, 5, 6, 7, 8, 0)
    for label in ("generated", "expanded", "ebf", "h0", "seconds"):
        assert any(line.startswith(label) for line in out.splitlines()), label


@pytest.mark.parametrize("algorithm", ["astar", "idastar", "bfs", "dfs"])
def test_json_output(algorithm):
    p = run_cli("solve", "867254301", "-a", algorithm, "--json") if algorithm == "idastar" else None
    result = invoke("solve", "8,6,7,2,5,4,3,0,1", "-a", algorithm, "--json")
    outputs = [result.stdout] + ([p.stdout] if p else [])
    for out in outputs:
        lines = out.strip().splitlines()
        assert len(lines) == 1
        data = json.loads(lines[0])
        assert JSON_KEYS <= set(data)
        assert data["tiles"] == "8 6 7 2 5 4 3 0 1" and data["size"] == 3 and data["goal"] == "blank-last"
        assert data["algorithm"] == algorithm and data["status"] == "solved"
        assert len(data["moves"]) == data["cost"]
        assert naive.replay((8, 6, 7, 2, 5, 4, 3, 0, 1), data["moves"]) == (1, 2, 3, 4, 5, 6, 7, 8, 0)
        if algorithm != "dfs":
            assert data["cost"] == 31
        assert data["h0"] == 21 and data["nodes_generated"] >= data["nodes_expanded"]
        if algorithm == "idastar":
            assert data["heuristic"] == "manhattan"
            assert [it["bound"] for it in data["iterations"]] == [21, 23, 25, 27, 29, 31]
            assert sum(it["nodes_generated"] for it in data["iterations"]) == data["nodes_generated"]


def test_trace_prints_iteration_table():
    result = invoke("solve", "2 3 1 4 5 6 7 8 0", "--trace")
    assert result.exit_code == 0
    lines = result.stdout.splitlines()
    header = next(i for i, line in enumerate(lines) if "bound" in line and "nodes" in line)
    bounds = [int(line.split()[1]) for line in lines[header + 1:] if line.strip()]
    assert bounds == [4, 6, 8, 10, 12, 14, 16]


@pytest.mark.slow
@pytest.mark.parametrize("text", ["1 2 3 4 5 6 7 8 9 10 11 12 13 15 14 0", "1 3 2 4 5 6 7 8 0"])
def test_unsolvable_exits_zero(text):
    p = run_cli("solve", text, "--json") if text.startswith("1 3") else None
    result = invoke("solve", text, "--json")
    for code, out in [(result.exit_code, result.stdout)] + ([(p.returncode, p.stdout)] if p else []):
        assert code == 0
        data = json.loads(out)
        assert data["status"] == "unsolvable" and data["nodes_generated"] == 0 and data["cost"] is None
    human = invoke("solve", text)
    assert human.exit_code == 0 and "unsolvable" in human.stdout


@pytest.mark.parametrize("text,goal,permutation,blank", [
    ("1 3 2 4 5 6 7 8 0", "blank-last", "odd", "0 moves (even)"),      # two tiles swapped
    ("1 2 3 4 5 6 7 8 0", "blank-first", "even", "4 moves (even)"),  # the other goal's parity... agrees
    ("2 1 3 4 5 6 7 8 0", "blank-first", "odd", "4 moves (even)"),
])
def test_unsolvable_says_which_parities_differ(text, goal, permutation, blank):
    data = json.loads(invoke("solve", text, "--goal", goal, "--json").stdout)
    human = invoke("solve", text, "--goal", goal).stdout
    if permutation == "even":  # solvable: no reason given
        assert data["status"] == "solved" and "reason" not in data and "reason " not in human
        return
    assert data["status"] == "unsolvable"
    assert data["reason"].startswith(f"unsolvable: the tiles (blank included) are an {permutation} permutation")
    assert blank in data["reason"]
    reason = next(line for line in human.splitlines() if line.startswith("reason"))
    assert f"an {permutation} permutation of the goal" in reason and blank in reason


@pytest.mark.parametrize("args,expected", [
    ([], {"goal": "blank-last", "algorithm": "idastar", "heuristic": "manhattan", "pruning": "parent",
          "limits": "no node limit, no time limit"}),
    (["-a", "astar", "-H", "linear-conflict", "--max-nodes", "5000", "--max-memory", "1GiB", "--time-limit", "2.5",
      "--goal", "blank-first"],
     {"goal": "blank-first", "algorithm": "astar", "heuristic": "linear-conflict", "pruning": "parent",
      "limits": "5,000 nodes, 1.0 GiB of boards, 2.5 seconds"}),
    (["-a", "bfs", "--max-nodes", "70"], {"algorithm": "bfs", "heuristic": "none", "limits": "70 nodes, "}),
])
def test_text_output_names_the_configuration(args, expected):
    result = invoke("solve", "1 2 3 4 5 6 7 0 8", *args)
    assert result.exit_code == 0, result.output
    lines = result.stdout.splitlines()
    shown = {line.split()[0]: line.split(None, 1)[1] for line in lines[3:] if line.split()[0] in
             ("goal", "algorithm", "heuristic", "pruning", "limits")}
    assert all(shown[key].startswith(value) for key, value in expected.items()), shown
    assert set(shown) == {"goal", "algorithm", "heuristic", "pruning", "limits"}


def test_budget_exceeded():
    result = invoke("solve", "14 13 15 7 11 12 9 5 6 0 2 1 4 8 10 3", "--goal", "blank-first",
                    "--max-nodes", "500", "--json")
    assert result.exit_code == 0
    data = json.loads(result.stdout)
    assert data["status"] == "budget_exceeded" and data["nodes_generated"] <= 500


def test_explicit_goal_and_size():
    result = invoke("solve", "1 2 3 4 5 6 7 8 0", "--goal", "1,2,3,4,5,6,7,0,8", "--size", "3", "--json")
    data = json.loads(result.stdout)
    assert data["cost"] == 1 and data["moves"] == "L" and data["goal"] == "1 2 3 4 5 6 7 0 8"


GOOD = "1 2 3 4 5 6 7 8 0"
BAD = [  # (arguments, a value the one-line message must quote)
    (["1 2 3"], "1 2 3"),                                           # wrong count
    (["1 1 2 3 4 5 6 7 8"], "1 1 2 3 4 5 6 7 8"),                   # duplicates
    (["1 2 3 4 5 6 7 8 x"], "x"),                                   # letters
    (["1 2 3 4 5 6 7 8 -1"], "-1"),                                 # negative number
    (["1 2 3 4 5 6 7 8 9"], "9"),                                   # out of range
    ([""], "''"),                                                   # empty string
    ([GOOD, "-a", "greedy"], "greedy"),                             # unknown algorithm
    ([GOOD, "-H", "hamming"], "hamming"),                           # unknown heuristic
    ([GOOD, "--size", "4"], "4"),                                   # size mismatch
    ([GOOD, "--size", "7"], "7"),                                   # unsupported size
    ([GOOD, "--goal", "1 2 3"], "1 2 3"),                           # goal mismatch
    ([GOOD, "--goal", "1 1 2 3 4 5 6 7 8"], "1 1 2 3 4 5 6 7 8"),   # goal with a duplicate
    ([GOOD, "--goal", "blank-middle"], "blank-middle"),             # unknown goal name
    ([GOOD, "--max-nodes", "-5"], "-5"),                            # negative budget
    ([GOOD, "--max-nodes", "0"], "0"),                              # zero budget
    ([GOOD, "-H", "pdb:9-9"], "9-9"),                               # unknown partition
    ([GOOD, "-H", "pdb:1,2/2,3"], "1,2/2,3"),                       # malformed groups
    ([GOOD, "-H", "pdb:1,x/3"], "1,x"),                             # not a tile list
    ([GOOD, "--goal", "1 2 0 3 4 5 6 7 8", "-H", "pdb:1,2,3,4/5,6,7,8+reflect"],
     "pdb:1,2,3,4/5,6,7,8+reflect"),                                # reflect, blank off diagonal
    ([GOOD, "--goal", "1 2 0 3 4 5 6 7 8", "-H", "pdb:4-4+reflect"], "4-4"),
    (["-1 2 3 4 5 6 7 8 0"], "-1"),                                 # leading negative number
    ([GOOD, "--max-nodes", "abc"], "abc"),                          # budget not a number
    ([GOOD, "--parallel", "--split-depth", "0"], "0"),               # split depth too small
    ([GOOD, "--parallel", "--split-depth", "99"], "99"),             # split depth too large
    ([GOOD, "--parallel", "--split-depth", "x"], "x"),               # split depth not a number
    ([GOOD, "--split-depth", "5"], "--split-depth"),                # a parallel option alone
    ([GOOD, "--complete-last-iteration"], "--complete-last-iteration"),
    ([GOOD, "--parallel", "-a", "astar"], "astar"),                 # parallel search is IDA*
    ([GOOD, "--parallel", "--scheduler", "nohost"], "nohost"),      # malformed scheduler
]


@pytest.mark.parametrize("args, quoted", BAD, ids=[" ".join(a) or "empty" for a, _ in BAD])
def test_bad_input_one_line_exit_2(args, quoted):
    result = invoke("solve", *args)
    assert result.exit_code == 2, result.output
    lines = result.stderr.strip().splitlines()
    assert len(lines) == 1, result.stderr
    assert quoted in lines[0]
    assert result.stdout == ""


@pytest.mark.parametrize("args, quoted", [
    ([GOOD, "--goal", "1 2 3 4 5 6 7 8 " + "9" * 5000], "out of range 0..8: 999999999... (5,000 digits)"),
    (["1 2 3 4 5 6 7 0 " + "8" * 5000], "out of range 0..8: 888888888... (5,000 digits)"),
    ([GOOD, "--goal", "x" * 5000], "'xxxx"),
], ids=["goal", "tiles", "goal-name"])
def test_a_huge_value_is_one_short_line(args, quoted):
    """More digits than Python turns into an int: refused, and quoted cut short."""
    result = invoke("solve", *args)
    assert result.exit_code == 2 and result.stdout == ""
    assert result.stderr.count("\n") == 1 and quoted in result.stderr and len(result.stderr) < 400


@pytest.mark.parametrize("args, quoted", [BAD[0], BAD[7], BAD[20]], ids=["count", "heuristic", "leading-minus"])
def test_bad_input_subprocess(args, quoted):
    p = run_cli("solve", *args)
    assert p.returncode == 2
    assert len(p.stderr.strip().splitlines()) == 1, p.stderr
    assert quoted in p.stderr and "Traceback" not in p.stderr + p.stdout


@pytest.mark.slow
@pytest.mark.parametrize("program", [["-m", "tilesweep"], [str(ROOT / "cli.py")]],
                         ids=["python -m tilesweep", "python cli.py"])
def test_every_way_to_start_the_program(program, tmp_path):
    p = subprocess.run([sys.executable, *program, "solve", "8 6 7 2 5 4 3 0 1", "--json"], cwd=tmp_path,
                       capture_output=True, text=True, timeout=120)
    assert p.returncode == 0, p.stderr
    assert json.loads(p.stdout)["cost"] == 31


@pytest.mark.slow  # starts Python under a profiler
def test_the_quick_exit_keeps_the_output_and_code_and_lets_a_profiler_write(tmp_path):
    # The command line leaves without the interpreter's teardown (cli.leave): what it printed
    # is still there and its exit code is kept, and under a profiler it exits normally, so
    # the profile is written.
    solved = run_cli("solve", "1 2 3 4 5 6 0 7 8", "--json")
    assert solved.returncode == 0 and json.loads(solved.stdout)["cost"] == 2, solved.stderr
    bad = run_cli("solve", "1 2 3", "--json")
    assert bad.returncode == 2 and bad.stderr.startswith("error:"), bad.stderr
    profile = tmp_path / "profile"
    done = subprocess.run([sys.executable, "-m", "cProfile", "-o", str(profile), str(ROOT / "cli.py"), "solve",
                           "1 2 3 4 5 6 0 7 8"], capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, done.stderr
    assert profile.stat().st_size > 0
