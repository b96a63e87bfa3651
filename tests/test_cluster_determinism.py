"""The same sweep gives identical rows in-process, on 1 and on 2 Dask workers, for any chunking."""

import dataclasses

import pandas as pd
import pytest

from tilesweep.cluster.connect import ClusterError, connect
from tilesweep.cluster.run import run_plan
from tilesweep.jobs.results import load_results
from tilesweep.jobs.resume import saved_parts
from tilesweep.jobs.schema import TIMING_COLUMNS
from tilesweep.jobs.spec import build_spec
from tilesweep.jobs.sweep import prepare, run_local

pytestmark = pytest.mark.cluster

OPTIONS = dict(size=3, count=30, seed=3, algorithms=("astar", "idastar"), heuristics=("manhattan", "linear-conflict"),
               name="det")


def rows(folder) -> pd.DataFrame:
    return load_results(folder).drop(columns=list(TIMING_COLUMNS)).reset_index(drop=True)


def sweep(tmp_path, label, chunk, workers):
    spec, _ = build_spec({**OPTIONS, "out": str(tmp_path / label), "chunk_size": chunk})
    plan = prepare(spec)
    if workers == 0:
        run_local(plan)
    else:
        with connect(workers=workers) as client:
            run_plan(client, plan)
            assert len(client.scheduler_info()["workers"]) == workers
    return spec.folder


def test_same_rows_for_any_worker_count_and_chunk_size(tmp_path):
    reference = rows(sweep(tmp_path, "local", 30, 0))
    one = sweep(tmp_path, "one", 7, 1)
    two = sweep(tmp_path, "two", 4, 2)
    assert len(reference) == 30 * 4 and (reference["status"] == "solved").all()
    pd.testing.assert_frame_equal(rows(one), reference)
    pd.testing.assert_frame_equal(rows(two), reference)
    assert load_results(two)["worker"].nunique() == 2


def test_a_task_that_fails_outside_its_solves_ends_the_run_and_keeps_parts(tmp_path):
    """A chunk whose rows cannot become a table (here: a sweep name that is not text, as
    from a mismatched client) fails on the worker after its retries; the run stops with
    :class:`ClusterError`, the parts already written stay valid, and a rerun completes."""
    spec, _ = build_spec({**OPTIONS, "out": str(tmp_path), "chunk_size": 10})
    plan = prepare(spec)
    plan.jobs[2] = dataclasses.replace(plan.jobs[2], sweep=12345)
    with connect(workers=1) as client:
        with pytest.raises(ClusterError, match="a sweep task failed on the cluster .*ArrowTypeError"):
            run_plan(client, plan)
    plan.release()  # the run is over: another may start
    kept = set(saved_parts(spec))
    assert 2 not in kept
    retry = prepare(spec)
    assert retry.done == kept and len(retry.pending) == 3 - len(kept)
    with connect(workers=1) as client:
        run_plan(client, retry)
    pd.testing.assert_frame_equal(rows(spec.folder), rows(sweep(tmp_path, "local", 30, 0)))
