"""Blank-ignoring pattern databases: their values, their heuristics and their place in the store."""

import json

import numpy as np
import pytest

from naive import bfs_distances, manhattan
from naive_pdb import database_h, naive_ignoring_table, naive_table
from sweeps_local import local_sweep
from test_pdb_cli import _columns, invoke
from tilesweep.jobs.check import check_heuristic, exact_distances
from tilesweep.pdb_store import CorruptTableError, MissingTableError, open_store, tables_for
from tilesweep.pdb_store.ignoring import build_ignoring_table
from tilesweep.solver import Board, solve
from tilesweep.solver.board import goal_tiles
from tilesweep.solver.heuristics import BLANK_AWARE, BLANK_IGNORING, kernel_heuristic, parse_heuristic
from tilesweep.solver.ranking import placement_count
from tilesweep.solver.search import heuristic_values
from tilesweep.webui.solves import build_command

GOAL = goal_tiles("blank-last", 3)


@pytest.fixture
def store(tmp_path):
    with open_store(tmp_path / "store") as opened:
        yield opened


@pytest.fixture(scope="module")
def boards():
    """Every 3x3 board that reaches GOAL (the BFS's)."""
    return exact_distances(3, GOAL)[0]


@pytest.fixture(scope="module")
def store_44(tmp_path_factory):
    """A store with the blank-aware and the blank-ignoring tables of the 3x3 4-4 partition."""
    with open_store(tmp_path_factory.mktemp("both") / "store") as opened:
        for name in ("pdb:4-4", "pdb:4-4+blank-ignoring"):
            tables_for(parse_heuristic(name, 3, GOAL), 3, GOAL, opened)
        yield opened


@pytest.mark.parametrize("goal_name", ["blank-last", "blank-first"])
@pytest.mark.parametrize("partition", ["4-4", "5-3"])
def test_built_3x3_tables_equal_the_naive_bfs_entry_by_entry(store, partition, goal_name):
    goal = goal_tiles(goal_name, 3)
    spec = parse_heuristic(f"pdb:{partition}+blank-ignoring", 3, goal)
    tables = tables_for(spec, 3, goal, store)
    for (group, kind), table in zip(spec.tables, tables):
        assert kind == BLANK_IGNORING and table.shape == (placement_count(9, len(group)),)
        np.testing.assert_array_equal(table, naive_ignoring_table(3, goal, group))


@pytest.mark.parametrize("size,group", [(4, (1, 2, 3)), (4, (6, 11, 15)), (5, (1, 2, 13))])
def test_small_4x4_and_5x5_groups_equal_the_naive_bfs(size, group):
    goal = goal_tiles("blank-first", size)
    np.testing.assert_array_equal(build_ignoring_table(size, goal, group), naive_ignoring_table(size, goal, group))


def test_4_4_is_admissible_and_consistent_with_3024_entries_each(store_44):
    spec = parse_heuristic("pdb:4-4+blank-ignoring", 3, GOAL)
    tables = tables_for(spec, 3, GOAL, store_44, build=False)
    check = check_heuristic(spec.name, 3, GOAL, tables)
    assert check.admissible and check.consistent
    entries = {e.file: e for e in store_44.entries() if e.kind == BLANK_IGNORING}
    assert len(entries) == 2
    for entry, table in zip((entries[store_44.path_of(3, GOAL, g, BLANK_IGNORING).name] for g in spec.groups),
                            tables):
        assert entry.entries == 9 * 8 * 7 * 6 == table.size
        assert entry.max_value == int(table.max()) and entry.mean_value == pytest.approx(float(table.mean()))


def test_never_stronger_than_the_blank_aware_tables_nor_weaker_than_manhattan(store_44, boards):
    h = {}
    for name in ("pdb:4-4", "pdb:4-4+blank-ignoring", "manhattan",
                 "max(pdb:4-4,pdb:4-4+blank-ignoring)"):
        spec = parse_heuristic(name, 3, GOAL)
        tables = tables_for(spec, 3, GOAL, store_44, build=False)
        h[name] = heuristic_values(boards, 3, kernel_heuristic(spec, 3, GOAL, tables))
    ignoring, aware = h["pdb:4-4+blank-ignoring"], h["pdb:4-4"]
    assert (ignoring <= aware).all() and (ignoring < aware).any()
    assert (ignoring >= h["manhattan"]).all()  # tiles that block each other only add moves
    np.testing.assert_array_equal(h["max(pdb:4-4,pdb:4-4+blank-ignoring)"], aware)


@pytest.mark.parametrize("name", ["pdb:4-4+blank-ignoring+reflect", "pdb:4-4+reflect+blank-ignoring"])
def test_solves_are_optimal_and_read_the_placement_only(store_44, name):
    spec = parse_heuristic(name, 3, GOAL)
    assert spec.reflect and {kind for _, kind in spec.tables} == {BLANK_IGNORING}
    tables = tables_for(spec, 3, GOAL, store_44, build=False)
    reference = database_h(3, GOAL, spec.groups, [naive_ignoring_table(3, GOAL, g) for g in spec.groups], True)
    distances = bfs_distances(GOAL)
    for tiles in [(8, 6, 7, 2, 5, 4, 3, 0, 1), (0, 1, 2, 3, 4, 5, 6, 7, 8), (1, 2, 3, 4, 5, 6, 0, 7, 8)]:
        result = solve(Board(tiles, 3), GOAL, "idastar", name, tables)
        assert result.cost == distances[tiles] and result.h0 == reference(tiles, GOAL)
        assert result.h0 >= manhattan(tiles, GOAL)


def test_a_sweep_builds_the_tables_and_solves_optimally(tmp_path):
    import pandas as pd
    store = tmp_path / "store"
    folder = local_sweep(tmp_path / "sweeps", "ignoring", store=str(store), size=3, count=12, seed=3,
                         algorithms=("astar", "idastar"), heuristics=("pdb:5-3+blank-ignoring",))
    rows = pd.read_parquet(folder / "results")
    distances = bfs_distances(GOAL)
    assert len(rows) == 24 and (rows["status"] == "solved").all()
    assert all(cost == distances[tuple(map(int, tiles.split()))] for tiles, cost in zip(rows["tiles"], rows["cost"]))
    with open_store(store) as opened:
        assert {e.kind for e in opened.entries()} == {BLANK_IGNORING}


def test_the_web_uis_build_command_names_the_kind():
    goal = goal_tiles("blank-first", 4)
    assert build_command("pdb:7-8+blank-ignoring+reflect", 4, goal, None) == \
        "tilesweep pdb build --size 4 --partition 7-8 --blank-ignoring --goal blank-first"


# --- the store keeps the two kinds apart ------------------------------------------------

def test_the_two_kinds_of_one_group_are_two_files_and_two_entries(store_44):
    group = (1, 2, 3, 4)
    aware, ignoring = (store_44.table(3, GOAL, group, kind) for kind in (BLANK_AWARE, BLANK_IGNORING))
    np.testing.assert_array_equal(aware, naive_table(3, GOAL, group))
    np.testing.assert_array_equal(ignoring, naive_ignoring_table(3, GOAL, group))
    assert (aware != ignoring).any()
    assert store_44.path_of(3, GOAL, group, BLANK_IGNORING).name == "pdb_3x3_blank-last_1-2-3-4_blank-ignoring.npy"
    manifest = json.loads((store_44.root / "manifest.json").read_text())["tables"]
    kinds = {name: entry["kind"] for name, entry in manifest.items()}
    assert kinds == {"pdb_3x3_blank-last_1-2-3-4.npy": BLANK_AWARE, "pdb_3x3_blank-last_5-6-7-8.npy": BLANK_AWARE,
                     "pdb_3x3_blank-last_1-2-3-4_blank-ignoring.npy": BLANK_IGNORING,
                     "pdb_3x3_blank-last_5-6-7-8_blank-ignoring.npy": BLANK_IGNORING}


def test_a_missing_blank_ignoring_table_names_its_file_and_build_command(store):
    store.build(3, GOAL, (1, 2, 3, 4))  # the blank-aware one is never handed out instead
    with pytest.raises(MissingTableError) as info:
        store.table(3, GOAL, (1, 2, 3, 4), BLANK_IGNORING)
    assert "pdb_3x3_blank-last_1-2-3-4_blank-ignoring.npy" in str(info.value)
    assert "--partition 1,2,3,4 --blank-ignoring" in str(info.value)


def test_an_entry_recording_the_other_kind_is_refused(store):
    entry = store.build(3, GOAL, (1, 2, 3, 4), kind=BLANK_IGNORING)
    path = store.root / "manifest.json"
    data = json.loads(path.read_text())
    data["tables"][entry.file]["kind"] = BLANK_AWARE
    path.write_text(json.dumps(data))
    with pytest.raises(CorruptTableError, match="does not match") as info:
        store.table(3, GOAL, (1, 2, 3, 4), BLANK_IGNORING)
    assert entry.file in str(info.value)


def test_an_altered_blank_ignoring_table_is_refused_and_verify_names_it(store):
    entry = store.build(3, GOAL, (1, 2, 3, 4), kind=BLANK_IGNORING)
    path = store.root / entry.file
    data = bytearray(path.read_bytes())
    data[-7] ^= 0x01
    path.chmod(0o644)
    path.write_bytes(bytes(data))
    with pytest.raises(CorruptTableError, match="altered"):
        store.table(3, GOAL, (1, 2, 3, 4), BLANK_IGNORING)
    [check] = store.verify()
    assert not check.ok and entry.file in check.problem and "--blank-ignoring" in check.problem


def test_a_manifest_entry_without_a_kind_is_tilesweeps_own(store):
    entry = store.build(3, GOAL, (1, 2, 3, 4))
    path = store.root / "manifest.json"
    data = json.loads(path.read_text())
    del data["tables"][entry.file]["kind"]  # as written before there were two kinds
    path.write_text(json.dumps(data))
    np.testing.assert_array_equal(store.table(3, GOAL, (1, 2, 3, 4)), naive_table(3, GOAL, (1, 2, 3, 4)))


def test_an_image_under_a_symmetry_is_read_only_from_a_table_of_the_same_kind(store):
    """(1,4,5,7) is (1,2,3,5) mirrored about the main diagonal: a blank-ignoring build reads
    the stored blank-ignoring table, never the blank-aware one."""
    store.build(3, GOAL, (1, 2, 3, 5))
    store.build(3, GOAL, (1, 4, 5, 7), kind=BLANK_IGNORING)
    np.testing.assert_array_equal(store.table(3, GOAL, (1, 4, 5, 7), BLANK_IGNORING),
                                  naive_ignoring_table(3, GOAL, (1, 4, 5, 7)))
    store.build(3, GOAL, (1, 2, 3, 5), kind=BLANK_IGNORING)
    np.testing.assert_array_equal(store.table(3, GOAL, (1, 2, 3, 5), BLANK_IGNORING),
                                  naive_ignoring_table(3, GOAL, (1, 2, 3, 5)))


# --- the command line -----------------------------------------------------------------

def test_build_by_flag_or_suffix_makes_the_same_tables_and_list_shows_the_kind(tmp_path):
    root = tmp_path / "store"
    flag = invoke("pdb", "build", "--size", "3", "--partition", "4-4", "--blank-ignoring", "--store", str(root))
    assert flag.exit_code == 0, flag.output
    assert all(" blank-ignoring  tiles " in line and "(built in " in line for line in flag.stdout.splitlines())
    suffix = invoke("pdb", "build", "--size", "3", "--partition", "4-4+blank-ignoring", "--store", str(root))
    assert suffix.exit_code == 0 and all("(reused: " in line for line in suffix.stdout.splitlines())
    invoke("pdb", "build", "--size", "3", "--partition", "4-4", "--store", str(root))
    rows = _columns(invoke("pdb", "list", "--store", str(root)).stdout)
    assert sorted((row["tiles"], row["kind"]) for row in rows) == [
        ("1,2,3,4", BLANK_AWARE), ("1,2,3,4", BLANK_IGNORING), ("5,6,7,8", BLANK_AWARE), ("5,6,7,8", BLANK_IGNORING)]
    assert all(row["entries"] == f"{9 * 8 * 7 * 6:,}" for row in rows)


@pytest.mark.slow  # a second exhaustive check, through the command line
def test_check_heuristic_builds_the_tables_and_reports_the_mean(tmp_path, boards):
    result = invoke("check-heuristic", "pdb:4-4+blank-ignoring", "--store", str(tmp_path / "store"))
    assert result.exit_code == 0, result.output
    assert "admissible  yes" in result.stdout and "consistent  yes" in result.stdout
    with open_store(tmp_path / "store") as opened:
        tables = [opened.table(3, GOAL, g, BLANK_IGNORING) for g in parse_heuristic("pdb:4-4", 3, GOAL).groups]
    mean = sum(np.mean(t[_ranks(boards, g)]) for t, g in zip(tables, parse_heuristic("pdb:4-4", 3, GOAL).groups))
    assert f"mean h      {mean:.3f}" in result.stdout


def _ranks(boards, group):
    """Placement rank of ``group``'s tiles on each board."""
    from tilesweep.solver.ranking import rank_placements
    cells = np.stack([np.argmax(boards == t, axis=1) for t in group], axis=1).astype(np.int64)
    return rank_placements(cells, 9)


@pytest.mark.parametrize("name", ["pdb:4-4+blank-ignoring+blank-ignoring", "pdb:4-4+blank-ignoring+manhattan"])
def test_a_bad_suffix_is_refused_in_one_line(tmp_path, name):
    result = invoke("solve", "1 2 3 4 5 6 7 8 0", "--heuristic", name, "--store", str(tmp_path))
    assert result.exit_code == 2 and name in result.output


@pytest.mark.parametrize("size,group", [(3, (1, 2, 3, 4)), (3, (4, 5, 6, 7, 8)), (4, (1, 2, 3, 6, 7))])
def test_deep_verify_rules_hold_on_blank_ignoring_tables_and_catch_a_changed_entry(size, group):
    """Every neighbour of a blank-ignoring placement holds one more or one less, so the
    rules of ``pdb verify --deep`` hold; an entry changed by one breaks one of them."""
    from tilesweep.pdb_store.deep import first_bad_entry
    goal = goal_tiles("blank-first", size)
    table = build_ignoring_table(size, goal, group)
    assert first_bad_entry(table, size, goal, group) is None
    table[table.size // 2] += 1
    assert first_bad_entry(table, size, goal, group) is not None
