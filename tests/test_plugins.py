"""Plugin heuristics (``--plugin FILE``, ``plugin:NAME``): the same search as the built-ins,
the checks that refuse a plugin in one line, and the spec's identity of a plugin."""

import hashlib
import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from program import CLI
from tilesweep.jobs.plugins import load_files
from tilesweep.jobs.spec import build_spec
from tilesweep.solver import Board, parse_heuristic, solve
from tilesweep.solver.heuristics import kernel_heuristic
from tilesweep.solver.plugins import PluginError, register

EXAMPLE = Path(__file__).resolve().parents[1] / "examples" / "heuristics" / "manhattan.py"
NEAR_GOAL = "1 2 3 4 5 6 0 7 8"  # two moves from the goal
GOAL = (1, 2, 3, 4, 5, 6, 7, 8, 0)


def plugin_source(body: str, name: str = "custom") -> str:
    """A plugin file whose heuristic ``name`` runs ``body`` (indented) with tiles and goal."""
    return ("import numba\n\n@numba.njit\ndef h(tiles, goal):\n"
            + "".join(f"    {line}\n" for line in body.splitlines()) + f"\nHEURISTICS = {{{name!r}: h}}\n")


@pytest.fixture(scope="module", autouse=True)
def example():
    load_files([EXAMPLE])


def test_the_manhattan_plugin_generates_the_builtin_nodes():  # fast tier: two plugin kernels compile, about 10 s
    boards = ["8 6 7 2 5 4 3 0 1", "6 4 7 8 5 0 3 2 1", "1 2 3 4 5 6 7 8 0", NEAR_GOAL]
    for text in boards:
        board = Board.parse(text)
        builtin = solve(board, "blank-last", "idastar", "manhattan")
        for name in ("plugin:manhattan-plugin", "plugin:manhattan-incremental"):  # full-board, incremental
            plugin = solve(board, "blank-last", "idastar", name)
            assert plugin.status == "solved" and plugin.heuristic == name
            for field in ("cost", "moves", "nodes_generated", "nodes_expanded", "h0", "iterations"):
                assert getattr(plugin, field) == getattr(builtin, field), (text, name, field)
            assert plugin.extra["heuristic_version"] == hashlib.sha256(EXAMPLE.read_bytes()).hexdigest()


def test_two_plugins_of_one_file_have_kernels_of_their_own():
    """Kernels are compiled (outside the clock) per plugin function: the plugins of one file
    share a source hash, and a key of the hash alone left the second one compiling inside its
    first timed solve."""
    keys = {kernel_heuristic(parse_heuristic(name, 3, GOAL), 3, GOAL).key
            for name in ("plugin:manhattan-plugin", "plugin:manhattan-incremental", "plugin:twice-manhattan")}
    assert len(keys) == 3


SOLVE_AND_NAME_COMPILES = """
import sys
from tilesweep.jobs.plugins import load_files
from tilesweep.solver import Board, solve
from tilesweep.solver.jit import watch_compiles
load_files([sys.argv[1]])
with watch_compiles() as watch:
    for heuristic in sys.argv[2:]:
        print(solve(Board.parse("8 6 7 2 5 4 3 0 1"), "blank-last", "idastar", heuristic).nodes_generated)
print(*watch.compiled)
"""


@pytest.mark.slow  # starts a second Python
def test_a_second_process_loads_a_plugins_kernels_from_numbas_cache(tmp_path):
    """The kernels of a plugin are compiled once per machine: a process after the first
    compiles only the plugin's own functions (numba cannot cache those), no search kernel.
    The two processes have a cache of their own: numba's index of a kernel is read, added to
    and written back without a lock, so a test process compiling the same kernel meanwhile
    could drop the entry the first one wrote."""
    plugin_functions = {"manhattan", "manhattan_step", "cell_distances"}
    heuristics = ["plugin:manhattan-plugin", "plugin:manhattan-incremental"]
    env = {**os.environ, "NUMBA_CACHE_DIR": str(tmp_path)}
    runs = [subprocess.run([sys.executable, "-c", SOLVE_AND_NAME_COMPILES, str(EXAMPLE), *heuristics],
                           capture_output=True, text=True, timeout=600, check=True, env=env).stdout.splitlines()
            for _ in range(2)]
    builtin = solve(Board.parse("8 6 7 2 5 4 3 0 1"), "blank-last", "idastar", "manhattan").nodes_generated
    assert [run[:2] for run in runs] == [[str(builtin)] * 2] * 2
    second_compiled = runs[1][2].split() if len(runs[1]) > 2 else []
    assert set(second_compiled) <= plugin_functions, second_compiled


@pytest.mark.slow  # compiles a plugin's kernel (5-18 s at load 8)
def test_an_inadmissible_plugin_finds_a_longer_solution():
    board = Board.parse("8 6 7 2 5 4 3 0 1")
    twice = solve(board, "blank-last", "idastar", "plugin:twice-manhattan")
    assert twice.status == "solved" and twice.cost > 31  # 31 is optimal
    assert Board.parse("8 6 7 2 5 4 3 0 1").apply(twice.moves).tiles == (1, 2, 3, 4, 5, 6, 7, 8, 0)


@pytest.mark.parametrize("body, expected", [
    ("return 0.5", r"'plugin:custom' returns float 0.5; expected an integer"),
    ("return tiles.nothing", r"'plugin:custom' does not compile for int64 boards"),
    ("return 1", r"'plugin:custom' gives h = 1 at the goal; expected 0"),
])
def test_a_plugin_that_cannot_serve_is_refused_naming_it(body, expected):
    register(plugin_source(body), "custom.py")
    with pytest.raises(PluginError, match=expected):
        solve(Board.parse(NEAR_GOAL), "blank-last", "idastar", "plugin:custom")


@pytest.mark.slow  # compiles a plugin's kernel (5-18 s at load 8)
def test_a_plugin_that_raises_on_a_board_is_one_error_naming_it_and_the_board():
    register(plugin_source("if tiles[6] == 0:\n    raise ValueError('no blank there')\nreturn 0"), "custom.py")
    with pytest.raises(PluginError, match=r"'plugin:custom' raised ValueError on board '1 2 3 4 5 6 0 7 8': "
                                          "no blank there"):
        solve(Board.parse(NEAR_GOAL), "blank-last", "idastar", "plugin:custom")


@pytest.mark.parametrize("step, expected", [
    ("return h + 1", r"incremental form of heuristic 'plugin:custom' gives \d+ on board '[\d ]+' after tile \d+ "
                     r"moved from cell \d+ to \d+; its full-board form gives \d+"),
    ("return h + tiles.nothing", r"incremental form of heuristic 'plugin:custom' does not compile"),
])
def test_an_incremental_form_unlike_the_full_board_form_is_refused(step, expected):
    source = plugin_source("n = 0\nfor c in range(tiles.shape[0]):\n    n += tiles[c] != goal[c]\nreturn n")
    register(source + f"\ndef step(tiles, goal, h, tile, source, target):\n    {step}\n\n"
             "INCREMENTAL = {'custom': step}\n", "custom.py")
    with pytest.raises(PluginError, match=expected):
        solve(Board.parse(NEAR_GOAL), "blank-last", "idastar", "plugin:custom")


def test_a_plugin_file_without_heuristics_is_refused(tmp_path):
    (tmp_path / "empty.py").write_text("x = 1\n")
    with pytest.raises(PluginError, match="defines no HEURISTICS"):
        load_files([tmp_path / "empty.py"])
    with pytest.raises(PluginError, match="does not exist"):
        load_files([tmp_path / "missing.py"])


@pytest.mark.slow  # compiles a plugin's kernel (5-18 s at load 8)
def test_the_command_line_gives_one_line_and_exit_2_for_a_negative_h(tmp_path):
    path = tmp_path / "negative.py"
    path.write_text(plugin_source("for c in range(tiles.shape[0]):\n    if tiles[c] != goal[c]:\n"
                                  "        return -1\nreturn 0", "negative"))
    out = subprocess.run([*CLI, "solve", NEAR_GOAL, "--plugin", str(path), "-H", "plugin:negative"],
                         capture_output=True, text=True, timeout=300)
    assert out.returncode == 2, out.stderr
    assert out.stderr.strip().splitlines() == [
        "error: heuristic 'plugin:negative' returned a negative h on a board of this search; expected h >= 0"]
    solved = subprocess.run([*CLI, "solve", NEAR_GOAL, "--plugin", str(EXAMPLE), "-H", "plugin:manhattan-plugin",
                             "--json"], capture_output=True, text=True, timeout=300)
    assert json.loads(solved.stdout)["nodes_generated"] == solve(Board.parse(NEAR_GOAL)).nodes_generated


def test_the_spec_holds_the_plugin_name_and_hash(tmp_path):
    spec, _ = build_spec({"out": str(tmp_path), "heuristics": ("plugin:manhattan-plugin", "manhattan"),
                          "plugin_files": (str(EXAMPLE),), "count": 5})
    sha = hashlib.sha256(EXAMPLE.read_bytes()).hexdigest()
    assert spec.identity()["plugins"] == [["manhattan-plugin", sha]]
    assert f"--plugin {EXAMPLE}" in spec.command()
    changed = tmp_path / "manhattan.py"
    changed.write_text(EXAMPLE.read_text() + "\n# edited\n")
    edited, _ = build_spec({"out": str(tmp_path), "heuristics": ("plugin:manhattan-plugin", "manhattan"),
                            "plugin_files": (str(changed),), "count": 5})
    assert edited.fingerprint() != spec.fingerprint()


@pytest.mark.slow  # compiles the plugin's board kernel
def test_the_line_conflicts_example_lies_between_manhattan_and_linear_conflict_and_is_admissible():
    from tilesweep.jobs.check import check_heuristic, exact_distances
    from tilesweep.solver.board import goal_tiles
    from tilesweep.solver.heuristics import kernel_heuristic, parse_heuristic
    from tilesweep.solver.search import heuristic_values

    load_files([EXAMPLE.parent / "line_conflicts.py"])
    goal = goal_tiles("blank-last", 3)
    boards, _ = exact_distances(3, goal)
    h = {name: heuristic_values(boards, 3, kernel_heuristic(parse_heuristic(name, 3, goal), 3, goal))
         for name in ("manhattan", "plugin:line-conflicts", "linear-conflict")}
    assert (h["manhattan"] <= h["plugin:line-conflicts"]).all()
    assert (h["plugin:line-conflicts"] <= h["linear-conflict"]).all()
    assert (h["manhattan"] < h["plugin:line-conflicts"]).any()
    found = check_heuristic("plugin:line-conflicts", 3, goal)
    assert found.admissible and found.consistent


def korf_taylor_values(boards, size: int, goal) -> dict:
    """h of each row of ``boards`` under plugin:korf-taylor and the heuristics it builds on."""
    from tilesweep.solver.heuristics import kernel_heuristic, parse_heuristic
    from tilesweep.solver.search import heuristic_values
    load_files([EXAMPLE.parent / "line_conflicts.py", EXAMPLE.parent / "korf_taylor.py"])
    return {name: heuristic_values(boards, size, kernel_heuristic(parse_heuristic(name, size, goal), size, goal))
            for name in ("manhattan", "plugin:line-conflicts", "plugin:korf-taylor")}


@pytest.mark.slow  # h of Korf's 100 by a Python plugin
def test_the_korf_taylor_example_is_below_korf100s_optimal_lengths_and_above_line_conflicts():
    import numpy as np

    from tilesweep.jobs.published import published_figures
    from tilesweep.jobs.sources import BUNDLED
    from tilesweep.solver.board import goal_tiles
    published = published_figures(BUNDLED["korf100"].file)
    boards = np.array([p.tiles for p in published.values()], dtype=np.int8)
    h = korf_taylor_values(boards, 4, goal_tiles("blank-first", 4))
    lengths = np.array([p.length for p in published.values()])
    assert len(boards) == 100 and (h["plugin:korf-taylor"] <= lengths).all()
    assert (h["plugin:line-conflicts"] <= h["plugin:korf-taylor"]).all()
    assert (h["plugin:line-conflicts"] < h["plugin:korf-taylor"]).sum() > 10


@pytest.mark.slow  # every 8-puzzle board, for each goal
@pytest.mark.parametrize("goal_name", ["blank-last", "blank-first"])
def test_the_korf_taylor_example_is_admissible_on_every_8_puzzle(goal_name):
    from tilesweep.jobs.check import check_heuristic, exact_distances
    from tilesweep.solver.board import goal_tiles
    goal = goal_tiles(goal_name, 3)
    boards, _ = exact_distances(3, goal)
    h = korf_taylor_values(boards, 3, goal)
    assert (h["plugin:line-conflicts"] <= h["plugin:korf-taylor"]).all()
    assert h["plugin:korf-taylor"].mean() > h["plugin:line-conflicts"].mean() + 0.5
    found = check_heuristic("plugin:korf-taylor", 3, goal)
    assert found.admissible and not found.consistent  # the corner and last-move terms may jump by 3


@pytest.mark.parametrize("size", [3, 4, 5])
def test_the_conflict_table_example_is_the_builtin_linear_conflict_on_random_boards(size):
    """The table-driven example reads Manhattan distance and each line's conflicts from tables
    built at import; it is the built-in linear-conflict's definition, so h is equal board for board
    (solvable or not: h reads only the tiles' places)."""
    import numpy as np

    from tilesweep.solver.board import goal_tiles
    from tilesweep.solver.search import heuristic_values

    load_files([EXAMPLE.parent / "conflict_table.py"])
    rng = np.random.default_rng(size)
    for goal_name in ("blank-last", "blank-first"):
        goal = goal_tiles(goal_name, size)
        boards = np.array([rng.permutation(size * size) for _ in range(5000)], dtype=np.int8)
        h = {name: heuristic_values(boards, size, kernel_heuristic(parse_heuristic(name, size, goal), size, goal))
             for name in ("linear-conflict", "plugin:conflict-table")}
        assert (h["plugin:conflict-table"] == h["linear-conflict"]).all(), goal_name
        assert h["linear-conflict"].min() > 0
