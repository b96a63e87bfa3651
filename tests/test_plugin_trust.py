"""Plugin source stored in a sweep runs only as the version recorded: a received sweep whose
``sweep.json`` carries edited source (its sha256 left as recorded) is refused by a resume and
by a worker, and ``verify`` runs only the plugin files its user names, each the recorded version."""

import json
import shutil

import pytest
from typer.testing import CliRunner

from test_plugins import EXAMPLE
from tilesweep.api import open_sweep
from tilesweep.cli import app
from tilesweep.jobs.spec import SweepSpec, build_spec
from tilesweep.jobs.sweep import prepare, run_local
from tilesweep.solver import plugins
from tilesweep.solver.plugins import PluginError, source_sha256


@pytest.fixture(scope="module")
def received(tmp_path_factory):
    """A sweep of ``plugin:manhattan-plugin`` (12 8-puzzles, IDA*) whose stored plugin source
    was then edited to write a marker file, its recorded sha256 left as it was; and the marker's path."""
    root = tmp_path_factory.mktemp("received")
    spec, _ = build_spec({"size": 3, "count": 12, "seed": 5, "algorithms": ("idastar",), "chunk_size": 6,
                          "heuristics": ("plugin:manhattan-plugin",), "plugin_files": (str(EXAMPLE),),
                          "out": str(root), "name": "mine"})
    plan = prepare(spec)
    try:
        run_local(plan)
    finally:
        plan.lock.release()
    shutil.copytree(spec.folder, root / "pristine" / spec.name)  # as it was sent
    marker = root / "marker"
    stored = spec.folder / "sweep.json"
    data = json.loads(stored.read_text())
    name, sha, source, origin = data["plugins"][0]
    data["plugins"][0] = [name, sha, f"open({str(marker)!r}, 'w').write('ran')\n" + source, origin]
    stored.write_text(json.dumps(data, indent=2))
    return spec.folder, marker


@pytest.fixture
def unregistered():
    """This process as one that never saw the example plugin file (a reader's), restored after."""
    saved = dict(plugins._PLUGINS)
    sha = source_sha256(EXAMPLE.read_text())
    for name in [name for name, known in saved.items() if known.sha256 == sha]:
        del plugins._PLUGINS[name]
    yield
    plugins._PLUGINS.clear()
    plugins._PLUGINS.update(saved)


def verify(folder, *extra):
    return CliRunner().invoke(app, ["verify", str(folder), "--sample", "5", *extra])


def test_verify_refuses_a_sweep_of_plugins_without_their_files(received, unregistered):
    folder, marker = received
    done = verify(folder)
    assert done.exit_code == 2, done.output
    assert done.stderr.count("\n") == 1 and "Traceback" not in done.stderr, done.stderr
    assert "plugin:manhattan-plugin" in done.stderr and "--plugin FILE" in done.stderr
    assert not marker.exists()


def test_verify_refuses_a_plugin_file_of_another_version(received, unregistered, tmp_path):
    folder, marker = received
    other = tmp_path / "edited.py"
    other.write_text(f"open({str(marker)!r}, 'w').write('ran')\n" + EXAMPLE.read_text())
    done = verify(folder, "--plugin", str(other))
    assert done.exit_code == 2, done.output
    assert done.stderr.count("\n") == 1 and "is not a version this sweep recorded" in done.stderr, done.stderr
    assert repr(str(other)) in done.stderr
    assert not marker.exists()


def test_verify_runs_the_named_file_of_the_recorded_version(received, unregistered, tmp_path):
    folder, marker = received
    copy = tmp_path / "mine.py"  # the same text anywhere: the hash decides
    shutil.copy(EXAMPLE, copy)
    done = verify(folder, "--plugin", str(copy))
    assert done.exit_code == 0, done.output
    assert done.stdout.strip() == "solved 5 of 12 rows again (seed 0): 0 difference(s)"
    assert not marker.exists()


def test_a_resume_refuses_the_edited_source(received, unregistered):
    folder, marker = received
    with pytest.raises(PluginError, match="is not the version recorded"):
        open_sweep(folder).run()
    assert not marker.exists()


def test_a_resume_of_the_sweep_as_recorded_runs_its_stored_source(received, unregistered):
    folder, _ = received
    summary = open_sweep(folder.parent / "pristine" / folder.name).run()  # no file: the spec's source
    assert summary["solved"].tolist() == [12]


def test_a_worker_never_runs_stored_source_that_is_not_the_recorded_version(received, unregistered):
    folder, marker = received
    spec = SweepSpec.from_json((folder / "sweep.json").read_text())
    name, sha, source, _ = spec.plugins[0]
    assert source_sha256(source) != sha
    with pytest.raises(PluginError, match=f"'plugin:{name}' is not the version recorded"):
        plugins.ensure([(name, sha, source)])  # a fresh worker: the plugin not yet registered
    assert not marker.exists()
