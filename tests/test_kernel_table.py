"""The kernel table (solver/kernels.py): every row is reached, requests reach the row meant
for them, and ``solve()`` and the batch path take their kernel from it."""

from pathlib import Path

import numpy as np
import pytest

from tilesweep.jobs.plugins import load_files
from tilesweep.pdb_store import open_store, tables_for
from tilesweep.solver import goal_tiles, parse_heuristic
from tilesweep.solver.board import Board
from tilesweep.solver.kernels import KERNELS, kernel_for, pick
from tilesweep.solver.solve import prepare, solve

EXAMPLE = Path(__file__).resolve().parents[1] / "examples" / "heuristics" / "manhattan.py"
GOAL = goal_tiles("blank-last", 3)
# algorithm, heuristic, pruning (and conventions): the row that runs it
CASES = [("idastar", "plugin:manhattan-plugin", "parent", "idastar-plugin-only"),
         ("idastar", "max(plugin:manhattan-incremental,misplaced)", "parent", "idastar-plugin"),
         ("idastar", "manhattan", "parent", "idastar-tiles"),
         ("idastar", "misplaced", "fsm", "idastar-tiles"),
         ("idastar", "walking-distance+id", "parent", "idastar-walk"),
         ("idastar", "pdb:4-4+reflect", "parent", "idastar-pdb"),
         ("idastar", "max(pdb:4-4,pdb:5-3)", "parent", "idastar"),
         ("idastar", "linear-conflict", "parent", "idastar-lines"),
         ("idastar", "max(pdb:4-4,walking-distance)", "parent", "idastar-pdb-walk"),
         ("idastar", "max(linear-conflict,walking-distance)", "parent", "idastar"),
         ("astar", "plugin:manhattan-plugin", "parent", "graph-plugin"),
         ("astar", "pdb:5-3", "parent", "astar-packed"),
         ("astar", "manhattan", "fsm", "graph"),
         ("bfs", "manhattan", "parent", "graph"),
         ("dfs", "manhattan", "parent", "graph"),
         ("astar", "pdb:5-3", "parent/pops-board-string", "graph-conventions"),
         ("bfs", "manhattan", "parent/korf,order=LRUD", "graph-conventions")]


def prepared(algorithm, name, prune, tmp_path):
    load_files([EXAMPLE])
    spec = parse_heuristic(name, 3, GOAL)
    prune, _, conventions = prune.partition("/")
    with open_store(tmp_path) as store:
        tables = tables_for(spec, 3, GOAL, store) if spec.groups else ()
    return prepare(3, GOAL, algorithm, spec, tables, prune=prune, conventions=conventions or None)


@pytest.mark.parametrize("algorithm, name, prune, row", CASES)
def test_each_request_reaches_its_row(algorithm, name, prune, row, tmp_path):
    assert kernel_for(prepared(algorithm, name, prune, tmp_path).inputs).name == row


def test_every_row_is_reached_and_each_algorithm_ends_with_a_row_for_everything():
    assert {row for *_, row in CASES} == {k.name for k in KERNELS}
    for algorithm in ("idastar", "astar", "bfs", "dfs"):
        last = [k for k in KERNELS if algorithm in k.algorithms][-1]
        assert last.name in ("idastar", "graph")


def test_solve_runs_the_picked_kernel(monkeypatch):
    import tilesweep.solver.kernels as kernels

    picked = []
    real = kernels.kernel_for
    monkeypatch.setattr(kernels, "kernel_for", lambda inputs: picked.append(real(inputs).name) or real(inputs))
    board = Board(tuple(np.array([1, 2, 3, 4, 5, 6, 0, 7, 8])), 3)
    assert solve(board, GOAL, "idastar", "manhattan").cost == 2
    assert solve(board, GOAL, "astar", "manhattan").cost == 2
    assert picked == ["idastar-tiles", "astar-packed"]


# heuristic, pruning: the row whose split form runs parallel IDA* of it
SPLIT_CASES = [("manhattan", "parent", "idastar-tiles"),
               ("misplaced", "fsm", "idastar-tiles"),
               ("walking-distance+id", "parent", "idastar"),  # idastar-walk in serial search
               ("pdb:4-4+reflect", "parent", "idastar-pdb"),
               ("pdb:5-3", "fsm", "idastar-pdb"),
               ("max(pdb:4-4,pdb:5-3)", "parent", "idastar"),
               ("linear-conflict", "parent", "idastar")]


@pytest.mark.parametrize("name, prune, row", SPLIT_CASES)
def test_the_split_search_takes_its_kernel_from_the_table(name, prune, row, tmp_path, monkeypatch):
    import tilesweep.solver.subtrees as subtrees

    x = prepared("idastar", name, prune, tmp_path).inputs
    picked = []
    real = subtrees.split_row
    monkeypatch.setattr(subtrees, "split_row", lambda *args: picked.append(real(*args).name) or real(*args))
    subtrees.subtrees_call(3, GOAL, x.H, x.automaton)
    assert picked == [row]


def test_the_split_rows_are_idastar_rows_and_end_with_the_general_one():
    split = [k for k in KERNELS if k.split]
    assert {row for *_, row in SPLIT_CASES} == {k.name for k in split}
    assert all(k.algorithms == ("idastar",) for k in split) and split[-1].name == "idastar"


@pytest.mark.parametrize("algorithm, name, prune, row", [c for c in CASES if "/" not in c[2]])
def test_a_warm_up_family_is_the_tables_name_of_its_kernel(algorithm, name, prune, row, tmp_path):
    from tilesweep.solver.warmup import kernel_family

    family = kernel_family(3, GOAL, algorithm, name, prune)
    if prune == "parent" and "plugin" not in name:
        assert family == (pick(prepared(algorithm, name, prune, tmp_path).inputs)[0],)
        assert family[0].startswith(row)
    else:  # a plugin's, or under an automaton: a family of its own
        assert family == (algorithm, name)
