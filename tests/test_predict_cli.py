"""``tilesweep predict`` and ``tilesweep.predict``: predictions beside a real sweep's
completed iterations, distributions kept in the store, a bundled set's cost, bad input."""

import json
import subprocess

import numpy as np
import pytest

import tilesweep
from program import CLI
from sweeps_local import local_sweep
from tilesweep.jobs.predict import iterations_of
from tilesweep.jobs.results import load_results
from tilesweep.pdb_store import open_store

pytestmark = pytest.mark.slow  # samples distributions and sweeps to compare them: about 2 s a test


@pytest.fixture(scope="module")
def swept(tmp_path_factory):
    out = tmp_path_factory.mktemp("predict")
    folder = local_sweep(out, "p8", size=3, count=40, seed=3, algorithms=("idastar",),
                         heuristics=("manhattan", "pdb:4-4"), store=str(out / "store"))
    return folder, out / "store"


def test_predictions_stand_beside_every_completed_iteration(swept):
    folder, store = swept
    frame = tilesweep.predict(folder, store=store, iterations=True)
    rows = load_results(folder)
    for heuristic in ("manhattan", "pdb:4-4"):
        mine = frame[frame["heuristic"] == heuristic]
        solved = rows[(rows["heuristic"] == heuristic) & (rows["status"] == "solved")]
        expected = sum(len(iterations_of(r)) - 1 for _, r in solved.iterrows())
        assert len(mine) == expected > 0
        first = mine.groupby("instance").head(1)
        for _, it in first.iterrows():  # the first iteration's count is the row's own (root included)
            row = solved[solved["instance"] == it["instance"]].iloc[0]
            assert it["measured"] == iterations_of(row)[0][1]
        assert (mine[["kre", "cdp"]] > 0).all().all()
    # manhattan changes by 1 a move: the two-step table is kept; pdb:4-4's entries jump by
    # up to 7 across a move (the blank's region changes), too wide for it
    assert (frame[frame["heuristic"] == "manhattan"]["cdp2"] > 0).all()
    assert frame[frame["heuristic"] == "pdb:4-4"]["cdp2"].isna().all()


def test_json_records_and_the_store_keeps_the_distributions(swept):
    folder, store = swept
    out = subprocess.run([*CLI, "predict", str(folder), "--store", str(store), "--format", "json"],
                         capture_output=True, text=True, timeout=600)
    assert out.returncode == 0, out.stderr
    records = json.loads(out.stdout)
    overall = [r for r in records if "instance" not in r]
    assert {(r["heuristic"], r["method"]) for r in overall} == {
        ("manhattan", "kre"), ("manhattan", "cdp"), ("manhattan", "cdp2"), ("pdb:4-4", "kre"), ("pdb:4-4", "cdp")}
    for r in overall:
        per = [x for x in records if x.get("instance") is not None and x["heuristic"] == r["heuristic"]
               and x["method"] == r["method"]]
        assert sum(x["measured_nodes"] for x in per) == r["measured_nodes"]
        assert np.isclose(sum(x["predicted_nodes"] for x in per), r["predicted_nodes"])
        assert r["distributions"] == "exact over all 181,440 states"
    with open_store(store) as s:
        assert all(check.ok for check in s.verify())
        assert len(list(s.root.glob("hdist_*.npy"))) == 6   # two heuristics, three arrays each
    only = subprocess.run([*CLI, "predict", str(folder), "--store", str(store), "--format", "json", "--method", "kre"],
                          capture_output=True, text=True, timeout=600)
    assert {r["method"] for r in json.loads(only.stdout)} == {"kre"}
    again = tilesweep.predict(folder, store=store)
    assert np.allclose(again[again["instance"].isna()]["predicted_nodes"],
                       [r["predicted_nodes"] for r in overall])


def test_a_bundled_set_is_costed_beside_its_published_counts(tmp_path):
    out = subprocess.run([*CLI, "predict", "--instances", "korf100", "--count", "2", "-H", "manhattan",
                          "--sample", "20000", "--tilted", "2000", "--rate-nodes", "200000", "--store", str(tmp_path),
                          "--format", "json"], capture_output=True, text=True, timeout=600)
    assert out.returncode == 0, out.stderr
    records = json.loads(out.stdout)
    kre = [r for r in records if r["method"] == "kre"]
    assert [r.get("instance") for r in kre] == [0, 1, None]
    assert kre[-1]["nodes_per_second"] > 0
    assert np.isclose(kre[-1]["cpu_hours"], kre[-1]["predicted_nodes"] / kre[-1]["nodes_per_second"] / 3600)
    assert kre[0]["distributions"] == "20,000 uniform random states, seed 0; conditionals also over 2,000 tilted states"


@pytest.mark.parametrize("args, message", [
    (["--instances", "uniform", "--size", "4", "-H", "manhattan"],
     "error: instances 'uniform': their optimal lengths are unknown, and a set's cost needs them; expected a "
     "bundled set (korf100, korf50-24) or a finished sweep"),
    (["--instances", "korf100", "-H", "manhattan", "--sample", "10"],
     "error: sample 10 is too small; expected at least 1000 states"),
    (["--instances", "korf100", "-H", "nonsense"], None),
    (["--instances", "korf100", "-H", "manhattan", "--method", "kre3"], None),
])
def test_bad_input_is_one_line_and_exit_2(args, message):
    out = subprocess.run([*CLI, "predict", *args], capture_output=True, text=True, timeout=300)
    lines = out.stderr.strip().splitlines()
    assert out.returncode == 2 and len(lines) == 1, out.stderr
    assert message is None and ("nonsense" in lines[0] or "'kre3'" in lines[0]) or lines == [message]
