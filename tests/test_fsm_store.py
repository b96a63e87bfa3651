"""Pruning automata in the PDB store: built once, read back equal, recorded with a
checksum, refused when damaged, checked by `pdb verify`, and used by `solve --prune fsm`."""

import hashlib
import json
import os
import threading

import numpy as np
import pytest
from typer.testing import CliRunner

from tilesweep.cli import app
from tilesweep.cluster.plugin import SweepPlugin
from tilesweep.pdb_store import CorruptTableError, automata, open_store
from tilesweep.solver import fsm, goal_tiles

RUNNER = CliRunner()


@pytest.fixture
def fresh_process(monkeypatch):
    """Forget what this process built or read, and count the builds."""
    monkeypatch.setattr(fsm, "_KNOWN", {})
    builds = []

    def counted(size, depth):
        builds.append((size, depth))
        return fsm.build_automaton.__wrapped__(size, depth)
    monkeypatch.setattr(automata, "build_automaton", counted)
    return builds


def test_built_once_then_read_back_equal(tmp_path, fresh_process):
    with open_store(tmp_path) as store:
        first = store.automaton(3, 10)
        second = store.automaton(3, 10)
    assert fresh_process == [(3, 10)]
    path = tmp_path / "fsm_3x3_depth10.npy"
    entry = json.loads((tmp_path / "automata.json").read_text())["automata"][path.name]
    assert entry["sha256"] == hashlib.sha256(path.read_bytes()).hexdigest()
    assert (entry["size"], entry["depth"], entry["strings"]) == (3, 10, first.strings)
    built = fsm.build_automaton(3, 10)
    for table in (first, second):
        assert np.array_equal(table.full, built.full) and np.array_equal(table.strict, built.strict)
    assert fsm.automaton(3, 10) is second  # remembered for the process


def test_concurrent_callers_build_once(tmp_path, fresh_process):
    store = open_store(tmp_path)
    threads = [threading.Thread(target=store.automaton, args=(3, 8)) for _ in range(3)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert fresh_process == [(3, 8)]


def test_damaged_file_is_refused_and_verify_says_so(tmp_path, fresh_process):
    with open_store(tmp_path) as store:
        store.automaton(3, 8)
        assert all(c.ok for c in store.verify())
        path = tmp_path / "fsm_3x3_depth8.npy"
        os.chmod(path, 0o644)
        data = bytearray(path.read_bytes())
        data[-5] ^= 1
        path.write_bytes(bytes(data))
        with pytest.raises(CorruptTableError, match="fsm_3x3_depth8.npy.*sha256.*delete it"):
            store.automaton(3, 8)
        bad = [c for c in store.verify() if not c.ok]
        assert [c.file for c in bad] == [path.name]
        path.unlink()  # the fix the message names
        store.automaton(3, 8)
    assert fresh_process == [(3, 8), (3, 8)]


def test_solve_with_fsm_reads_the_store(tmp_path, fresh_process):
    result = RUNNER.invoke(app, ["solve", "867254301", "--prune", "fsm:9", "--store", str(tmp_path), "--json"])
    assert result.exit_code == 0, result.output
    assert json.loads(result.stdout)["pruning"] == "fsm:9"
    assert (tmp_path / "fsm_3x3_depth9.npy").is_file() and fresh_process == [(3, 9)]


def test_sweep_workers_read_the_store(tmp_path, fresh_process):
    """A sweep's worker plugin reads the automaton of the sweep's pruning from the store."""
    goal = goal_tiles("blank-last", 3)
    for _ in range(2):  # two workers: one builds, the other reads
        fsm._KNOWN.clear()
        plugin = SweepPlugin("s", str(tmp_path), 3, goal, (("idastar", "manhattan"),), prune="fsm:9")
        plugin.lock = threading.Lock()
        plugin.prepare()
        assert fsm._KNOWN[(3, 9)].strings == fsm.build_automaton(3, 9).strings
    assert fresh_process == [(3, 9)]
