"""A sweep's fingerprint and default name never change for the same options: a sweep written
before resumes only if its ``sweep.json`` fingerprint still matches. The figures below are
those of specs built from these options before the options became typed."""

import pytest

from tilesweep.jobs.spec import build_spec

PINNED = [
    (dict(count=10),
     "a4978a682d5cdfd66980ead49b5ab37ed6fc097b146d88fe6bc9e5b0cb562517", "8puzzle-uniform-n10-s0-9c490afa", 1),
    (dict(size=4, goal="blank-first", instances="walk:20", count=7, seed=5, algorithms=("astar", "bfs", "idastar"),
          heuristics=("linear-conflict", "manhattan"), max_nodes=100000, time_limit="2.5", prune="fsm", repeat=3),
     "746ad8f205f7c8f280014528ba95c67f70b02bd97d2e24e10181f46430db5d69", "15puzzle-walk20-n7-s5-eed71640", 1),
    (dict(instances="korf100", count=4, max_memory="64M", cpu_time_limit=30, chunk_size=2, name="korf-four"),
     "7ebbb54b04935ecd307c9913c88aea45a4c5bc7cbfb67d249ae7932486b45816", "korf-four", 2),
]
TOML = """[sweep]
size = 3
count = 12
seed = 7
algorithms = ["astar", "dfs"]
heuristic = "misplaced"
max-nodes = 5000
"""


@pytest.mark.parametrize("options, fingerprint, name, chunk_size", PINNED)
def test_fingerprints_of_cli_options_are_unchanged(tmp_path, options, fingerprint, name, chunk_size):
    spec, _ = build_spec({**options, "out": str(tmp_path)}, workers=2)
    assert (spec.fingerprint(), spec.name, spec.chunk_size) == (fingerprint, name, chunk_size)


def test_fingerprint_of_a_toml_spec_under_cli_options_is_unchanged(tmp_path):
    path = tmp_path / "spec.toml"
    path.write_text(TOML)
    spec, _ = build_spec({"out": str(tmp_path), "seed": 8}, str(path), workers=2)  # the CLI's seed wins
    assert spec.seed == 8 and spec.algorithms == ("astar", "dfs") and spec.max_nodes == 5000
    assert spec.fingerprint() == "08e97bf9047f21686e7596229f824750d1b3ff6a2ed75425e40f02d13f427f5f"
    assert (spec.name, spec.chunk_size) == ("8puzzle-uniform-n12-s8-2052843b", 1)
