"""A plugin heuristic in sweeps: its source reaches Dask workers that never saw the file,
its rows are those of an in-process run, carry its hash, and an edited plugin refuses to resume."""

import hashlib
import shutil

import pandas as pd
import pytest

from test_plugins import EXAMPLE, plugin_source
from tilesweep.cluster.connect import connect
from tilesweep.cluster.run import run_plan
from tilesweep.jobs.parts import SpecMismatchError
from tilesweep.jobs.results import load_results
from tilesweep.jobs.schema import TIMING_COLUMNS
from tilesweep.jobs.spec import build_spec
from tilesweep.jobs.sweep import prepare, run_local
from tilesweep.solver import plugins

pytestmark = pytest.mark.cluster

OPTIONS = dict(size=3, count=12, seed=5, heuristics=("plugin:manhattan-plugin", "manhattan"), chunk_size=4)


def rows(folder) -> pd.DataFrame:
    return load_results(folder).drop(columns=list(TIMING_COLUMNS)).reset_index(drop=True)


def sweep(out, plugin_file, workers, name="plug"):
    spec, _ = build_spec({**OPTIONS, "out": str(out), "name": name, "plugin_files": (str(plugin_file),)})
    plan = prepare(spec)
    if workers == 0:
        run_local(plan)
    else:
        with connect(workers=workers) as client:
            run_plan(client, plan)
    return spec.folder


def test_plugin_rows_on_two_workers_equal_the_in_process_rows_and_the_builtin(tmp_path):
    plugin_file = tmp_path / "h.py"  # a file the workers are never told of
    shutil.copy(EXAMPLE, plugin_file)
    local = rows(sweep(tmp_path / "local", plugin_file, 0))
    plugins._PLUGINS.clear()  # the client process forgets it too: only the spec holds it now
    cluster = rows(sweep(tmp_path / "two", plugin_file, 2))
    pd.testing.assert_frame_equal(cluster, local)
    mine = cluster[cluster["heuristic"] == "plugin:manhattan-plugin"].reset_index(drop=True)
    builtin = cluster[cluster["heuristic"] == "manhattan"].reset_index(drop=True)
    assert (mine["status"] == "solved").all() and len(mine) == 12
    assert mine["nodes_generated"].tolist() == builtin["nodes_generated"].tolist()
    assert set(mine["heuristic_version"]) == {hashlib.sha256(plugin_file.read_bytes()).hexdigest()}
    assert builtin["heuristic_version"].isna().all()


def test_an_edited_plugin_refuses_to_resume(tmp_path):
    plugin_file = tmp_path / "h.py"
    shutil.copy(EXAMPLE, plugin_file)
    sweep(tmp_path, plugin_file, 0)
    plugin_file.write_text(EXAMPLE.read_text() + "\n# edited\n")
    spec, _ = build_spec({**OPTIONS, "out": str(tmp_path), "name": "plug", "plugin_files": (str(plugin_file),)})
    with pytest.raises(SpecMismatchError, match=r"^heuristic 'plugin:manhattan-plugin' changed since sweep 'plug' "
                                                r"ran \(source sha256 [0-9a-f]{12}, now [0-9a-f]{12}\); .* new --name"):
        prepare(spec)


def test_a_negative_h_on_a_board_is_that_rows_error(tmp_path):
    plugin_file = tmp_path / "neg.py"
    plugin_file.write_text(plugin_source("for c in range(tiles.shape[0]):\n    if tiles[c] != goal[c]:\n"
                                         "        return -1\nreturn 0", "negative"))
    spec, _ = build_spec({**OPTIONS, "heuristics": ("plugin:negative", "manhattan"), "out": str(tmp_path),
                          "name": "neg", "plugin_files": (str(plugin_file),)})
    run_local(prepare(spec))
    table = load_results(spec.folder)
    mine = table[table["heuristic"] == "plugin:negative"]
    assert set(mine["status"]) == {"error"} and set(mine["status_reason"]) == {"heuristic"}
    assert set(table[table["heuristic"] == "manhattan"]["status"]) == {"solved"}
