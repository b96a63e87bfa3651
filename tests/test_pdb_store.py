"""The verified pattern-database store: paths, manifest, refusal of bad files, locking."""

import json
import os
import pickle
import signal
import subprocess
import sys
import textwrap
import time
from pathlib import Path

import numpy as np
import pytest

from polling import wait_for
from tilesweep.pdb_store import (
    CorruptTableError,
    MissingTableError,
    StoreError,
    build_table,
    open_store,
    resolve_store,
    tables_for,
)
from tilesweep.solver.board import goal_tiles
from tilesweep.solver.errors import TilesweepError
from tilesweep.solver.heuristics import parse_heuristic

ROOT = Path(__file__).resolve().parents[1]
GOAL = goal_tiles("blank-last", 3)
GROUP = (1, 2, 3, 4)
SLOW_GROUP = (1, 2, 3, 4, 5, 6)  # a 4x4 table that takes a few seconds to build


@pytest.fixture
def store(tmp_path):
    with open_store(tmp_path / "store") as opened:
        yield opened


@pytest.fixture
def built(store):
    entry = store.build(3, GOAL, GROUP)
    return store, entry, store.root / entry.file


def _writable(path: Path) -> Path:
    path.chmod(0o644)
    return path


def _edit_manifest(root: Path, **changes) -> None:
    path = root / "manifest.json"
    data = json.loads(path.read_text())
    for entry in data["tables"].values():
        entry.update(changes)
    path.write_text(json.dumps(data))


# --- where the store is -------------------------------------------------------------

def test_resolve_store_precedence(monkeypatch, tmp_path):
    monkeypatch.setenv("TILESWEEP_STORE", str(tmp_path / "env"))
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "xdg"))
    assert resolve_store(str(tmp_path / "opt")) == tmp_path / "opt"
    assert resolve_store(None) == tmp_path / "env"
    monkeypatch.delenv("TILESWEEP_STORE")
    assert resolve_store(None) == tmp_path / "xdg" / "tilesweep" / "pdb"
    monkeypatch.delenv("XDG_CACHE_HOME")
    monkeypatch.setenv("HOME", str(tmp_path / "home"))
    assert resolve_store("") == tmp_path / "home" / ".cache" / "tilesweep" / "pdb"


def test_store_on_a_file_is_refused(tmp_path):
    (tmp_path / "file").write_text("x")
    with pytest.raises(StoreError, match="not a directory"):
        open_store(tmp_path / "file")


# --- build, manifest, load ----------------------------------------------------------

def test_build_records_manifest_and_loads_verified_mmap(built):
    store, entry, path = built
    assert path.name == "pdb_3x3_blank-last_1-2-3-4.npy"
    manifest = json.loads((store.root / "manifest.json").read_text())
    recorded = manifest["tables"][path.name]
    assert recorded["sha256"] == entry.sha256 and recorded["entries"] == 3024
    assert recorded["goal"] == list(GOAL) and recorded["group"] == list(GROUP)
    assert recorded["format_version"] == 1 and recorded["max_value"] == 15
    for key in ("built_at", "build_seconds", "mean_value", "size", "file"):
        assert key in recorded
    table = store.table(3, "blank-last", GROUP)
    assert isinstance(table, np.memmap) and not table.flags.writeable
    assert table.dtype == np.uint8 and table.shape == (3024,)
    np.testing.assert_array_equal(table, build_table(3, GOAL, GROUP))
    assert store.table(3, GOAL, list(GROUP)) is table  # verified once, then cached
    assert store.entries() == [entry]


def test_build_of_a_built_table_does_not_rebuild(built):
    store, entry, _ = built
    assert store.build(3, GOAL, GROUP) == entry
    assert store.build(3, GOAL, GROUP, force=True).built_at != entry.built_at


def test_ensure_builds_only_missing_and_keeps_order(store):
    store.build(3, GOAL, (5, 6, 7, 8))
    announced = []
    tables = store.ensure(3, GOAL, [(1, 2, 3, 4), (5, 6, 7, 8)], on_build=announced.append)
    assert announced == [(1, 2, 3, 4)]
    assert [t.shape for t in tables] == [(3024,), (3024,)]
    assert len(store.entries()) == 2 and all(c.ok for c in store.verify())


def test_tables_for_a_heuristic_spec(store):
    spec = parse_heuristic("pdb:5-3", 3, GOAL)
    with pytest.raises(MissingTableError):
        tables_for(spec, 3, GOAL, store, build=False)
    tables = tables_for(spec, 3, GOAL, store)
    assert [t.shape for t in tables] == [(15120,), (504,)]
    assert tables_for(spec, 3, GOAL, store, build=False)[0] is tables[0]
    assert tables_for(parse_heuristic("manhattan", 3, GOAL), 3, GOAL, store) == ()


def test_store_pickles_and_closes(built):
    store, _, _ = built
    clone = pickle.loads(pickle.dumps(store))
    assert clone.root == store.root and clone.table(3, GOAL, GROUP).shape == (3024,)
    clone.close()
    with pytest.raises(StoreError, match="closed"):
        clone.table(3, GOAL, GROUP)


# --- refusing bad tables ------------------------------------------------------------

def test_missing_table_names_file_and_fix(store):
    with pytest.raises(MissingTableError) as info:
        store.table(3, GOAL, GROUP)
    assert isinstance(info.value, KeyError) and isinstance(info.value, TilesweepError)
    message = str(info.value)
    assert "pdb_3x3_blank-last_1-2-3-4.npy" in message and "tilesweep pdb build" in message


def test_deleted_file_is_missing(built):
    store, _, path = built
    path.unlink()
    with pytest.raises(MissingTableError, match=path.name):
        store.table(3, GOAL, GROUP)


def test_file_without_manifest_entry_is_missing_and_reported(built):
    store, _, path = built
    (store.root / "manifest.json").unlink()
    with pytest.raises(MissingTableError, match="not recorded in the manifest"):
        store.table(3, GOAL, GROUP)
    assert [(c.file, c.ok) for c in store.verify()] == [(path.name, False)]


def _truncate(path):
    data = path.read_bytes()
    _writable(path).write_bytes(data[: len(data) - 100])


def _flip_byte(path):
    data = bytearray(path.read_bytes())
    data[-7] ^= 0x01
    _writable(path).write_bytes(bytes(data))


def _wrong_shape(path):
    _writable(path)
    np.save(path, np.zeros(3000, dtype=np.uint8))


def _wrong_dtype(path):
    _writable(path)
    np.save(path, np.zeros(3024 // 2, dtype=np.uint16))


def _not_npy(path):
    _writable(path).write_bytes(b"not a numpy file at all" * 200)


@pytest.mark.parametrize("damage,match", [
    (_truncate, "truncated"), (_flip_byte, "altered"), (_wrong_shape, "expected uint8"),
    (_wrong_dtype, "expected uint8"), (_not_npy, "not a readable .npy"),
])
def test_damaged_table_is_refused_naming_file_and_fix(built, damage, match):
    store, _, path = built
    assert store.table(3, GOAL, GROUP) is not None  # verified and cached first
    time.sleep(0.01)
    damage(path)
    with pytest.raises(CorruptTableError, match=match) as info:
        store.table(3, GOAL, GROUP)
    assert isinstance(info.value, ValueError) and isinstance(info.value, TilesweepError)
    assert str(path) in str(info.value)
    assert "tilesweep pdb build" in str(info.value) and "tilesweep pdb verify" in str(info.value)
    [check] = store.verify()
    assert not check.ok and str(path) in check.problem


@pytest.mark.parametrize("changes,match", [
    ({"sha256": "0" * 64}, "altered"),
    ({"entries": 3000}, "does not match"),
    ({"group": [1, 2, 3, 5]}, "does not match"),
    ({"format_version": 99}, "format version"),
])
def test_manifest_not_matching_file_is_refused(built, changes, match):
    store, _, path = built
    _edit_manifest(store.root, **changes)
    with pytest.raises(CorruptTableError, match=match) as info:
        store.table(3, GOAL, GROUP)
    assert str(path) in str(info.value)


def test_unreadable_manifest_is_refused(built):
    store, _, _ = built
    (store.root / "manifest.json").write_text("{not json")
    with pytest.raises(CorruptTableError, match="manifest.json"):
        store.table(3, GOAL, GROUP)


def test_build_replaces_a_corrupt_table(built):
    store, entry, path = built
    _flip_byte(path)
    assert store.build(3, GOAL, GROUP).sha256 == entry.sha256
    assert all(check.ok for check in store.verify())


# --- concurrency and interruption ----------------------------------------------------

_BUILDER = textwrap.dedent("""
    import sys, time
    import tilesweep.pdb_store.store as store_module
    from tilesweep.pdb_store import open_store

    root, log, mode = sys.argv[1], sys.argv[2], sys.argv[3]
    real_build, real_save = store_module.build_table, store_module.save_npy

    def counted_build(*args, **kwargs):
        with open(log, "a") as handle:
            handle.write("build\\n")
        time.sleep(1.0)  # keep the lock long enough for the other builder to queue up
        return real_build(*args, **kwargs)

    def stalled_save(handle, array):
        handle.write(b"partial" * 1000)
        handle.flush()
        open(log, "a").write("writing\\n")
        time.sleep(600)

    if mode in ("counted", "stall"):
        store_module.build_table = counted_build
    if mode == "stall":
        store_module.save_npy = stalled_save
    size, group = int(sys.argv[4]), tuple(int(t) for t in sys.argv[5].split(","))
    entry = open_store(root).build(size, "blank-first", group)
    print(entry.built_at)
""")


def _builder(tmp_path, root, mode, size=3, group=GROUP):
    script = tmp_path / "builder.py"
    script.write_text(_BUILDER)
    env = dict(os.environ, PYTHONPATH=str(ROOT))
    return subprocess.Popen([sys.executable, str(script), str(root), str(tmp_path / "log"), mode,
                             str(size), ",".join(map(str, group))],
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, env=env)


@pytest.mark.slow  # builds in several processes
def test_concurrent_builders_build_once(tmp_path):
    root = tmp_path / "store"
    first = _builder(tmp_path, root, "counted")
    wait_for(lambda: (tmp_path / "log").exists())  # the first holds the lock and builds
    second = _builder(tmp_path, root, "counted")
    outputs = [proc.communicate(timeout=300) for proc in (first, second)]
    assert [proc.returncode for proc in (first, second)] == [0, 0], outputs
    assert outputs[0][0] == outputs[1][0]  # the same build time: one build, found by both
    assert (tmp_path / "log").read_text() == "build\n"
    with open_store(root) as store:
        assert len(store.entries()) == 1 and all(c.ok for c in store.verify())
    assert not list(root.glob(".*tmp-*"))


@pytest.mark.slow  # builds in a process and kills it
def test_killed_build_while_writing_leaves_nothing_final(tmp_path):
    root = tmp_path / "store"
    proc = _builder(tmp_path, root, "stall")
    wait_for(lambda: "writing" in (tmp_path / "log").read_text()
              if (tmp_path / "log").exists() else False)
    proc.send_signal(signal.SIGKILL)
    proc.wait(timeout=30)
    final = root / "pdb_3x3_blank-first_1-2-3-4.npy"
    assert not final.exists() and list(root.glob(".*tmp-*"))  # only a temporary part
    with open_store(root) as store:
        with pytest.raises(MissingTableError):
            store.table(3, "blank-first", GROUP)
        store.build(3, "blank-first", GROUP)
        assert store.table(3, "blank-first", GROUP).shape == (3024,)
        assert all(c.ok for c in store.verify())
    assert not list(root.glob(".*tmp-*"))


def _lock_held(path: Path) -> bool:
    import fcntl
    if not path.exists():
        return False
    with open(path, "a") as handle:
        try:
            fcntl.flock(handle, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except BlockingIOError:
            return True
        fcntl.flock(handle, fcntl.LOCK_UN)
        return False


def test_killed_build_during_search_leaves_nothing_final(tmp_path):
    root = tmp_path / "store"
    name = "pdb_4x4_blank-first_1-2-3-4-5-6.npy"
    proc = _builder(tmp_path, root, "real", size=4, group=SLOW_GROUP)
    wait_for(lambda: _lock_held(root / (name + ".lock")))
    time.sleep(0.3)
    proc.send_signal(signal.SIGKILL)
    assert proc.wait(timeout=30) == -signal.SIGKILL
    assert not (root / name).exists()
    with open_store(root) as store:
        assert store.entries() == []
        with pytest.raises(MissingTableError):
            store.table(4, "blank-first", SLOW_GROUP)
