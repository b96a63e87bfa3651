"""Sweep specs: defaults, TOML, validation (one line quoting the value), instances."""

import json

import numpy as np
import pytest

import faults
from chunk_reference import solve_chunk
from tilesweep.jobs.instances import instance_rng, make_instances
from tilesweep.jobs.spec import SweepSpec, build_spec, combinations
from tilesweep.jobs.work import chunk_jobs
from tilesweep.solver.board import is_solvable
from tilesweep.solver.errors import InvalidBoardError, InvalidOptionError, UnknownNameError


def spec_of(tmp_path, **options):
    return build_spec({"out": str(tmp_path), **options})[0]


def test_defaults_and_combinations(tmp_path):
    spec = spec_of(tmp_path, algorithms=("astar", "bfs", "dfs"), heuristics=("manhattan", "linear-conflict"))
    assert (spec.size, spec.goal, str(spec.instances), spec.count, spec.seed) == (3, "blank-last", "uniform", 100, 0)
    assert spec.combos == (("astar", "manhattan"), ("astar", "linear-conflict"), ("bfs", "none"), ("dfs", "none"))
    assert spec.name.startswith("8puzzle-uniform-n100-s0-")
    assert combinations(("idastar", "idastar"), ("manhattan",)) == (("idastar", "manhattan"),)


def test_name_does_not_depend_on_chunk_size_but_fingerprint_does(tmp_path):
    a, b = spec_of(tmp_path, chunk_size=5), spec_of(tmp_path, chunk_size=7)
    assert a.name == b.name and a.fingerprint() != b.fingerprint()
    assert SweepSpec.from_json(a.to_json()) == a


def test_toml_spec_and_cli_override(tmp_path):
    boards = tmp_path / "boards.txt"
    boards.write_text("# two boards\n1 2 3 4 5 6 0 7 8\n\n7 1 2 3 4 5 6 8 0 9\n".replace(" 9", ""))
    toml = tmp_path / "spec.toml"
    toml.write_text('instances = "boards.txt"\nalgorithm = ["astar", "idastar"]\n'
                    'heuristics = "misplaced"\nmax-nodes = 5000\nname = "mine"\n')
    spec, run = build_spec({"out": str(tmp_path), "heuristics": ("manhattan",), "workers": "1"}, str(toml))
    assert str(spec.instances) == str(boards) and spec.count == 2 and spec.max_nodes == 5000
    assert spec.heuristics == ("manhattan",) and spec.algorithms == ("astar", "idastar")
    assert run.workers == 1 and spec.name == "mine" and spec.instances_sha256
    assert [b.text() for b in make_instances(spec)] == ["1 2 3 4 5 6 0 7 8", "7 1 2 3 4 5 6 8 0"]


@pytest.mark.parametrize("options, fragment", [
    ({"size": "6"}, "size 6"),
    ({"size": "x"}, "size 'x'"),
    ({"count": "0"}, "count 0"),
    ({"count": -3}, "count -3"),
    ({"seed": "s"}, "seed 's'"),
    ({"instances": "walk:abc"}, "'walk:abc'"),
    ({"instances": "/no/such/file.txt"}, "'/no/such/file.txt'"),
    ({"instances": "korf100", "count": 101}, "count 101"),
    ({"instances": "korf100", "size": 3}, "size 3"),
    ({"algorithms": ("greedy",)}, "'greedy'"),
    ({"heuristics": ("nope",)}, "'nope'"),
    ({"heuristics": ("pdb:9-9",)}, "'9-9'"),
    ({"goal": "sideways"}, "'sideways'"),
    ({"max_nodes": "0"}, "max-nodes 0"),
    ({"chunk_size": "lots"}, "chunk-size 'lots'"),
    ({"name": "a/b"}, "'a/b'"),
    ({"workers": "0"}, "workers 0"),
])
def test_bad_values_are_one_line_errors_quoting_the_value(tmp_path, options, fragment):
    with pytest.raises((InvalidOptionError, InvalidBoardError, UnknownNameError)) as err:
        spec_of(tmp_path, **options)
    assert fragment in str(err.value) and "\n" not in str(err.value)


def test_bad_toml(tmp_path):
    toml = tmp_path / "bad.toml"
    toml.write_text("colour = 'red'\n")
    with pytest.raises(InvalidOptionError, match="'colour'"):
        build_spec({}, str(toml))
    toml.write_text("size = = 3\n")
    with pytest.raises(InvalidOptionError, match="not valid TOML"):
        build_spec({}, str(toml))


def test_korf100_is_bundled_with_its_goal(tmp_path):
    spec = spec_of(tmp_path, instances="korf100", count=3)
    assert (spec.size, spec.goal) == (4, "blank-first")
    boards = make_instances(spec)
    assert boards[0].text() == "14 13 15 7 11 12 9 5 6 0 2 1 4 8 10 3"
    assert all(is_solvable(b.tiles, spec.goal_tuple, 4) for b in boards)


@pytest.mark.parametrize("source", ["uniform", "walk:30"])
def test_instance_i_depends_only_on_seed_and_i(tmp_path, source):
    small = make_instances(spec_of(tmp_path, instances=source, count=5, seed=11))
    large = make_instances(spec_of(tmp_path, instances=source, count=40, seed=11))
    other = make_instances(spec_of(tmp_path, instances=source, count=5, seed=12))
    assert small == large[:5] and small != other
    assert all(is_solvable(b.tiles, tuple(range(1, 9)) + (0,), 3) for b in large)
    expected = np.random.default_rng(np.random.SeedSequence([11, 3])).integers(1 << 30)
    assert instance_rng(11, 3).integers(1 << 30) == expected


def test_chunks_cover_every_instance_once(tmp_path):
    spec = spec_of(tmp_path, count=23, chunk_size=5)
    jobs = chunk_jobs(spec)
    assert [len(j.instances) for j in jobs] == [5, 5, 5, 5, 3]
    assert [i for j in jobs for i, _ in j.instances] == list(range(23))


def test_a_solve_that_raises_is_an_error_row(tmp_path, monkeypatch):
    spec = spec_of(tmp_path, count=3, name="faulty", chunk_size=3)
    faults.install(faults.listed("faulty:1,other:2"), monkeypatch.setattr)
    rows = solve_chunk(chunk_jobs(spec)[0])
    assert [r["status"] for r in rows] == ["solved", "error", "solved"]
    assert "injected fault on instance 1" in rows[1]["error"] and rows[0]["error"] is None
    assert json.loads(rows[0]["iterations"])[-1]["bound"] == rows[0]["cost"]
