"""``sweep --repeat K``: each solved row timed K times on real (in-process) sweeps, the
rows otherwise those of a sweep timed once; timings that disagree make an error row."""

import statistics

import pytest

from sweeps_local import local_sweep
from tilesweep.jobs.parts import SpecMismatchError
from tilesweep.jobs.results import load_results
from tilesweep.jobs.schema import TIMING_COLUMNS
from tilesweep.jobs.spec import build_spec
from tilesweep.jobs.sweep import prepare
from tilesweep.jobs.work import _solve_chunk_once, retime

STATS = ["seconds_min", "seconds_median", "cpu_seconds_min", "cpu_seconds_median"]
# Two configurations, and a node budget that stops some IDA* runs (timed once)
SPEC = dict(size=3, count=24, seed=5, algorithms=("astar", "idastar"), heuristics=("manhattan",),
            max_nodes=1500, chunk_size=8)

# A heuristic whose values change from call to call: IDA* generates other nodes each time
RANDOM_PLUGIN = '''
import numba
import numpy as np

@numba.njit
def jittery(tiles, goal):
    h = 0
    for c in range(tiles.shape[0]):
        if tiles[c] != 0 and tiles[c] != goal[c]:
            h += 1
    return h + np.random.randint(0, 3) if h else 0

HEURISTICS = {"jittery": jittery}
'''


def test_a_repeated_sweep_has_the_rows_of_one_timing_and_the_min_and_median_of_k(tmp_path):
    once = load_results(local_sweep(tmp_path, "once", **SPEC))
    thrice = load_results(local_sweep(tmp_path, "thrice", repeat=3, **SPEC))
    figures = [c for c in once.columns if c not in (*TIMING_COLUMNS, "sweep", "timings")]
    assert thrice[figures].equals(once[figures])
    solved = thrice["status"] == "solved"
    assert 0 < solved.sum() < len(thrice)  # both kinds of row are checked
    assert (thrice.loc[solved, "timings"] == 3).all()
    assert thrice.loc[~solved, ["timings", *STATS]].isna().all().all()  # timed once, under the budget
    assert once[["timings", *STATS]].isna().all().all()
    for clock in ("seconds", "cpu_seconds"):
        rows = thrice[solved]
        assert (rows[f"{clock}_min"] <= rows[f"{clock}_median"]).all() and (rows[f"{clock}_min"] > 0).all()
        assert rows[clock].equals(rows[f"{clock}_median"])


def test_retime_keeps_the_min_and_median_of_every_timing(tmp_path):
    spec, _ = build_spec(dict(size=3, count=4, seed=1, out=str(tmp_path), name="r", repeat=4), workers=1)
    with prepare(spec) as plan:
        job = plan.jobs[0]
    first = _solve_chunk_once(job, lambda name: (), lambda: None)
    passes = []

    def again(sub):
        table = _solve_chunk_once(sub, lambda name: (), lambda: None)
        passes.append(table.to_pylist())
        return table

    rows = retime(job, first, again).to_pylist()
    assert len(passes) == 3
    for k, row in enumerate(rows):
        walls = [first.column("seconds")[k].as_py(), *(p[k]["seconds"] for p in passes)]
        cpus = [first.column("cpu_seconds")[k].as_py(), *(p[k]["cpu_seconds"] for p in passes)]
        assert (row["seconds_min"], row["seconds_median"]) == (min(walls), statistics.median(walls))
        assert (row["cpu_seconds_min"], row["cpu_seconds_median"]) == (min(cpus), statistics.median(cpus))


def test_timings_that_disagree_make_an_error_row_that_says_how(tmp_path):
    plugin = tmp_path / "jittery.py"
    plugin.write_text(RANDOM_PLUGIN)
    rows = load_results(local_sweep(tmp_path, "jitter", size=3, count=6, seed=3, heuristics=("plugin:jittery",),
                                    plugin_files=(str(plugin),), repeat=3))
    assert (rows["status"] == "error").all() and (rows["status_reason"] == "repeat").all()
    assert (rows["timings"] == 3).all() and rows["cost"].isna().all() and (rows["nodes_generated"] == 0).all()
    message = rows["error"].iloc[0]
    assert message.startswith("3 timings of this solve disagree (") and "nodes_generated " in message
    assert message.endswith("expected the same status, cost, moves, nodes_generated, nodes_expanded each time")
    assert rows["tiles"].notna().all() and rows["heuristic_version"].notna().all()


def test_resuming_with_another_repeat_is_refused(tmp_path):
    local_sweep(tmp_path, "twice", size=3, count=4, seed=2, repeat=2)
    spec, _ = build_spec(dict(size=3, count=4, seed=2, out=str(tmp_path), name="twice", repeat=3), workers=1)
    assert "--repeat 3" in spec.command()
    with pytest.raises(SpecMismatchError, match=r"differs in: repeat\)"):
        prepare(spec)
    once, _ = build_spec(dict(size=3, count=4, seed=2, out=str(tmp_path)), workers=1)
    assert "repeat" not in once.identity()  # sweeps without it keep their fingerprint
