"""Search conventions (solver/conventions.py, solver/convsearch.py): the course table of the
``pops-board-string`` preset exactly, the general kernel against the naive references of
tests/naive.py on random boards, korf's figures unchanged in the general kernel, parsing."""

from pathlib import Path

import numpy as np
import pytest

import naive
from tilesweep.solver import Board, InvalidOptionError, goal_tiles, solve
from tilesweep.solver.conventions import KORF, PRESETS, parse_conventions
from tilesweep.solver.generators import random_walk_instance, uniform_instance
from tilesweep.solver.kernels import KernelInputs, _conventions_call, pick
from tilesweep.solver.solve import prepare

# A course solver's published table: board, goal, and per algorithm (cost of path, nodes
# expanded, search depth). Its search depth is the path's length for BFS and A*, and the
# deepest depth a generated board reached for DFS.
COURSE_BOARD, COURSE_GOAL = "7 6 2 8 5 3 0 1 4", "0 1 2 3 4 5 6 7 8"
COURSE_TABLE = {("bfs", "manhattan"): (22, 83_130, 22), ("dfs", "manhattan"): (64_674, 107_462, 66_488),
                ("astar", "manhattan"): (22, 263, 22), ("astar", "euclidean"): (22, 816, 22)}


def counts(fast, slow):
    """Board counts: a few in the fast tier, 50 to 300 in the slow one (the naive
    references are plain Python)."""
    return pytest.mark.parametrize("count", [fast, pytest.param(slow, marks=pytest.mark.slow)])


def search_depth(algorithm, cost, max_depth):
    """The course's "search depth" column from a result."""
    return max_depth if algorithm == "dfs" else cost


@pytest.mark.parametrize("algorithm,heuristic", list(COURSE_TABLE))
def test_course_table_exactly(algorithm, heuristic):
    r = solve(Board.parse(COURSE_BOARD), tuple(map(int, COURSE_GOAL.split())), algorithm, heuristic,
              conventions="pops-board-string")
    assert r.status == "solved" and r.conventions == "pops-board-string"
    got = (r.cost, r.nodes_expanded, search_depth(algorithm, r.cost, r.max_depth))
    assert got == COURSE_TABLE[algorithm, heuristic]
    assert naive.replay(Board.parse(COURSE_BOARD).tiles, r.moves) == tuple(map(int, COURSE_GOAL.split()))


def uniform_boards(count, seed, goal, size=3):
    rng = np.random.default_rng(seed)
    return [b.tiles for b in (uniform_instance(size, goal, rng) for _ in range(count))]


@counts(30, 300)
@pytest.mark.parametrize("goal_name", ("blank-first", "blank-last"))
@pytest.mark.parametrize("heuristic,h", [("manhattan", naive.manhattan), ("euclidean", naive.euclidean_float)])
def test_course_astar_against_naive(goal_name, heuristic, h, count):
    goal = goal_tiles(goal_name, 3)
    for tiles in uniform_boards(count, 42, goal):
        r = solve(Board(tiles, 3), goal, "astar", heuristic, conventions="pops-board-string")
        ref = naive.course_astar(tiles, goal, h)
        assert (r.cost, r.nodes_expanded, r.nodes_generated, r.max_depth) == (
            ref["cost"], ref["expanded"], ref["generated"], ref["max_depth"]), tiles


@counts(2, 50)  # each naive BFS or DFS visits most of the 181,440 states in plain Python: ~0.45 s a board
@pytest.mark.parametrize("algorithm", ("bfs", "dfs"))
def test_course_queue_searches_against_naive(algorithm, count):
    goal = goal_tiles("blank-first", 3)
    for tiles in uniform_boards(count, 7, goal):
        r = solve(Board(tiles, 3), goal, algorithm, conventions="pops-board-string")
        ref = naive.course_queue_search(tiles, goal, lifo=algorithm == "dfs")
        assert (r.cost, r.nodes_expanded, r.max_depth) == (ref["cost"], ref["expanded"], ref["max_depth"]), tiles


@counts(8, 150)
@pytest.mark.parametrize("heuristic,h", [("manhattan", naive.manhattan), ("misplaced", naive.misplaced)])
def test_heap_best_g_against_naive(heuristic, h, count):
    goal = goal_tiles("blank-last", 3)
    for tiles in uniform_boards(count, 5, goal):
        r = solve(Board(tiles, 3), goal, "astar", heuristic, conventions="heap-best-g")
        ref = naive.heap_best_g(tiles, goal, h)
        assert (r.cost, r.nodes_expanded, r.nodes_generated) == (ref["cost"], ref["expanded"], ref["generated"])


def test_order_is_followed():
    """Another order changes the course BFS's counts as the naive search with that order does."""
    goal = goal_tiles("blank-first", 3)
    for tiles in uniform_boards(2, 9, goal):
        r = solve(Board(tiles, 3), goal, "bfs", conventions="pops-board-string,order=DURL")
        ref = naive.course_queue_search(tiles, goal, lifo=False, order="DURL")
        assert (r.cost, r.nodes_expanded) == (ref["cost"], ref["expanded"])


def korf_in_general_kernel(algorithm, size, goal, heuristic):
    """(today's kernel call, the general kernel's call under korf) for one request."""
    x = prepare(size, goal, algorithm, heuristic).inputs
    assert x.conventions == KORF
    return pick(x)[1], _conventions_call(x)[1]


@pytest.mark.parametrize("algorithm,size,heuristic,count", [
    ("astar", 3, "manhattan", 300), ("astar", 3, "euclidean", 100), ("astar", 4, "linear-conflict", 40),
    ("bfs", 3, "manhattan", 10), ("dfs", 3, "manhattan", 10), ("astar", 5, "manhattan", 10)])
def test_general_kernel_under_korf_counts_as_todays(algorithm, size, heuristic, count):
    """The general kernel, asked for korf's conventions, gives today's figures exactly."""
    goal = goal_tiles("blank-last", size)
    today, general = korf_in_general_kernel(algorithm, size, goal, heuristic)
    for i in range(count):
        rng = np.random.default_rng(np.random.SeedSequence([size, i]))
        board = uniform_instance(3, goal, rng) if size == 3 else random_walk_instance(size, goal, 30, rng)
        if board.tiles == goal:
            continue
        tiles = np.array(board.tiles, dtype=np.int8)
        a, b = today(tiles), general(tiles)
        assert a[0] == b[0] and a[1].tolist() == b[1].tolist() and a[2:] == b[2:], board.tiles


def test_board_string_order_on_larger_boards():
    """Ties by the board go to the board that comes first tile by tile on 4x4 and 5x5 too:
    a 5x5 search under ``ties=board-string`` matches the naive reference."""
    for size in (4, 5):
        goal = goal_tiles("blank-first", size)
        rng = np.random.default_rng(size)
        for _ in range(5):
            tiles = random_walk_instance(size, goal, 16, rng).tiles
            r = solve(Board(tiles, size), goal, "astar", "manhattan", conventions="pops-board-string,f=integer")
            ref = naive.course_astar(tiles, goal, naive.manhattan)
            assert (r.cost, r.nodes_expanded, r.nodes_generated) == (ref["cost"], ref["expanded"], ref["generated"])


def test_names_round_trip():
    for name, conventions in PRESETS.items():
        assert conventions.name == name and parse_conventions(name) == conventions
    c = parse_conventions("korf, ties=board-string ,order=lrud")
    assert c.name == "korf,order=LRUD,ties=board-string" and parse_conventions(c.name) == c
    assert parse_conventions("pops-board-string,f=integer").name == "pops-board-string,f=integer"


@pytest.mark.parametrize("text,quoted", [("course", "'course'"), ("korf,order=UUDD", "'UUDD'"),
                                         ("korf,ties=random", "'random'"), ("korf,speed=fast", "'speed'")])
def test_bad_conventions_are_named(text, quoted):
    with pytest.raises(InvalidOptionError) as err:
        parse_conventions(text)
    message = str(err.value)
    assert "\n" not in message and quoted in message and "pops-board-string" in message


def test_idastar_refused_under_other_conventions():
    with pytest.raises(InvalidOptionError, match="IDA"):
        solve(Board.parse(COURSE_BOARD), "blank-first", "idastar", conventions="pops-board-string")


def test_goal_at_start_counts_its_pop():
    goal = goal_tiles("blank-first", 3)
    r = solve(Board(goal, 3), goal, "astar", conventions="pops-board-string")
    assert (r.cost, r.nodes_expanded, r.nodes_generated) == (0, 1, 1)
    assert solve(Board(goal, 3), goal, "astar").nodes_expanded == 0


def test_kernel_inputs_default_to_korf():
    assert KernelInputs("astar", 3, goal_tiles("blank-last", 3), None, None).conventions == KORF


@pytest.mark.parametrize("ties", ("larger-g", "smaller-g", "fifo", "lifo", "board-string"))
@pytest.mark.parametrize("duplicates", ("best-g", "no-closed", "closed"))
def test_every_tie_break_and_duplicate_rule_stays_optimal(ties, duplicates):
    """With Manhattan distance (consistent) every A* of the general kernel finds a shortest
    path, tested when expanded, whatever its ties and duplicates; the moves reach the goal."""
    goal = goal_tiles("blank-last", 3)
    distances = naive.bfs_distances(goal)
    for tiles in uniform_boards(30, 3, goal):
        r = solve(Board(tiles, 3), goal, "astar", conventions=f"korf,ties={ties},duplicates={duplicates}")
        assert r.cost == distances[tiles] and naive.replay(tiles, r.moves) == goal, tiles


@pytest.mark.parametrize("algorithm", ("astar", "bfs", "dfs"))
def test_goal_tested_on_generation_or_expansion_finds_a_path(algorithm):
    """BFS finds a shortest path with either goal test, A* tested on generation may not."""
    goal = goal_tiles("blank-first", 3)
    distances = naive.bfs_distances(goal)
    for tiles in uniform_boards(5, 4, goal):
        for test in ("generate", "expand"):
            r = solve(Board(tiles, 3), goal, algorithm, conventions=f"heap-best-g,goal-test={test}")
            assert naive.replay(tiles, r.moves) == goal and r.cost >= distances[tiles]
            if algorithm == "bfs":
                assert r.cost == distances[tiles]


@pytest.mark.slow
def test_study_of_blank_ignoring_tables_under_heap_best_g(tmp_path):
    """The 8-puzzle study's comparison on 300 seeded boards: the study's means (2,516 for
    Manhattan, 1,473 for the blank-ignoring 4+4 tables) inside our 95 % intervals, and the
    tables never worse than Manhattan on a board, as it reports; tilesweep's blank-aware
    pdb:4-4 below both."""
    import importlib.util

    import pandas as pd

    from sweeps_local import local_sweep
    path = Path(__file__).parents[1] / "benchmarks" / "conventions_study.py"
    module_spec = importlib.util.spec_from_file_location("conventions_study", path)
    study = importlib.util.module_from_spec(module_spec)
    module_spec.loader.exec_module(study)
    folder = local_sweep(tmp_path, "study", store=str(tmp_path / "store"), size=3, goal="blank-first", count=300,
                         seed=0, algorithms=("astar",), conventions="heap-best-g",
                         heuristics=("manhattan", "pdb:4-4+blank-ignoring", "pdb:4-4"))
    table = study.study_table(pd.read_parquet(folder / "results"), "manhattan")
    for name, published in (("manhattan", 2516), ("pdb:4-4+blank-ignoring", 1473)):
        assert abs(table.loc[name, "mean"] - published) <= table.loc[name, "interval"], table
    assert table.loc["pdb:4-4+blank-ignoring", "worse"] == 0
    assert table.loc["pdb:4-4", "mean"] < table.loc["pdb:4-4+blank-ignoring", "mean"] < table.loc["manhattan", "mean"]
