"""Split IDA* in one process (no cluster): the frontier's accounting and the subtree kernels
give serial IDA*'s node count for every iteration that ends without a goal."""

import numpy as np
import pytest

from tilesweep.pdb_store import open_store, tables_for
from tilesweep.solver import Board, solve
from tilesweep.solver.board import goal_tiles
from tilesweep.solver.errors import InvalidOptionError
from tilesweep.solver.frontier import expand
from tilesweep.solver.generators import random_walk_instance, uniform_instance
from tilesweep.solver.heuristics import kernel_heuristic, parse_heuristic
from tilesweep.solver.options import DEFAULT_SPLIT_DEPTH, check_split_depth
from tilesweep.solver.splitsearch import local_runner


def completed(result) -> int:
    """Serial IDA*'s nodes in every iteration but the last."""
    return sum(it["nodes_generated"] for it in result.iterations[:-1])


def check_split(board, goal, heuristic="manhattan", depth=3, workers=2, tables=(), prune="parent"):
    serial = solve(board, goal, "idastar", heuristic, tables, prune=prune)
    split = solve(board, goal, "idastar", heuristic, tables, prune=prune, split=local_runner(depth, workers))
    assert (split.status, split.cost) == (serial.status, serial.cost)
    assert split.extra["nodes_completed_iterations"] == completed(serial)
    assert split.iterations[:-1] == serial.iterations[:-1]
    assert split.nodes_generated == split.extra["nodes_completed_iterations"] + split.extra["nodes_last_iteration"]
    assert board.apply(split.moves) == Board(goal_tiles(goal, board.size) if isinstance(goal, str) else goal,
                                             board.size)
    return serial, split


@pytest.mark.parametrize("number", [79, 12, 42, 55])
@pytest.mark.parametrize("depth", [1, 6, 11])
def test_korf_manhattan_completed_iterations_equal_serial(korf100, number, depth):
    check_split(Board(korf100[number], 4), "blank-first", depth=depth)


def test_korf_linear_conflict_and_fsm(korf100):
    """The general kernel (linear conflicts) and automaton pruning (roots carry its state)."""
    board = Board(korf100[79], 4)
    check_split(board, "blank-first", "linear-conflict", depth=8)
    check_split(board, "blank-first", "manhattan", depth=8, prune="fsm")


@pytest.mark.parametrize("goal", ["blank-last", "blank-first"])
def test_eight_puzzles_every_split_depth(goal):
    """Uniform 8-puzzles (costs above and below the split depth) and short walks, whose goal
    lies inside the frontier: depths from 1 past the cost."""
    goal_t = goal_tiles(goal, 3)
    rng = np.random.default_rng(16)
    boards = [uniform_instance(3, goal_t, rng) for _ in range(4)]
    boards += [random_walk_instance(3, goal_t, k, rng) for k in (1, 2, 5, 9)]
    for board in boards:
        for depth in (1, 4, 14, 20):
            check_split(board, goal, depth=depth)


def test_eight_puzzle_pdb_and_walking_distance(tmp_path):
    goal = goal_tiles("blank-last", 3)
    board = uniform_instance(3, goal, np.random.default_rng(7))
    with open_store(tmp_path) as store:
        tables = tables_for(parse_heuristic("pdb:5-3+reflect", 3, goal), 3, goal, store, build=True)
    check_split(board, "blank-last", "pdb:5-3+reflect", depth=6, tables=tables)
    check_split(board, "blank-last", "walking-distance", depth=6)


def test_goal_and_unsolvable_boards_need_no_search():
    goal = goal_tiles("blank-last", 3)
    at_goal = solve(Board(goal, 3), "blank-last", split=local_runner(5))
    assert (at_goal.status, at_goal.cost, at_goal.nodes_generated) == ("solved", 0, 1)
    swapped = Board((2, 1) + goal[2:], 3)
    assert solve(swapped, "blank-last", split=local_runner(5)).status == "unsolvable"


def test_complete_last_iteration_is_the_same_for_any_chunks(korf100):
    """Every root searched to its first goal: one count whatever the chunks, and the moves
    are serial IDA*'s (the goal it meets first in depth-first order)."""
    board = Board(korf100[12], 4)
    serial = solve(board, "blank-first")
    runs = [solve(board, "blank-first", split=local_runner(7, workers, complete_last_iteration=True))
            for workers in (1, 3)]
    assert runs[0].extra["nodes_last_iteration"] == runs[1].extra["nodes_last_iteration"]
    assert runs[0].extra["nodes_last_iteration"] >= serial.iterations[-1]["nodes_generated"]
    assert runs[0].moves == runs[1].moves == serial.moves


def test_frontier_counts_equal_a_full_iteration_at_its_own_depth(korf100):
    """With the split depth past every node the bound keeps, the frontier alone counts a
    whole iteration: serial IDA*'s first iteration, with the root."""
    board = Board(korf100[79], 4)
    goal = goal_tiles("blank-first", 4)
    H = kernel_heuristic(parse_heuristic("manhattan", 4, goal), 4, goal)
    frontier = expand(board.tiles, 4, goal, H, 12)
    serial = solve(board, "blank-first")
    top = frontier.at(serial.h0, 1 << 40)
    assert len(top.roots) == 0 and len(top.goals) == 0
    assert 1 + top.generated == serial.iterations[0]["nodes_generated"]
    assert top.next_bound == serial.iterations[1]["bound"]


def test_frontier_order_is_depth_first(korf100):
    frontier = expand(korf100[1], 4, goal_tiles("blank-first", 4),
                      kernel_heuristic(parse_heuristic("manhattan", 4, goal_tiles("blank-first", 4)), 4,
                                       goal_tiles("blank-first", 4)), 4)
    paths = [frontier.path(i) for i in np.argsort(frontier.rank)]
    order = "ULRD"
    assert paths == sorted(paths, key=lambda p: [order.index(m) for m in p])
    assert frontier.n_roots == np.count_nonzero(frontier.depth == 4)


def test_split_depth_values():
    assert check_split_depth(None, 4) == DEFAULT_SPLIT_DEPTH[4]
    assert check_split_depth("7", 3) == 7
    for bad in (0, "x", 25, -1):
        with pytest.raises(InvalidOptionError, match="split-depth"):
            check_split_depth(bad, 4)


def test_split_refuses_other_algorithms():
    with pytest.raises(InvalidOptionError, match="IDA\\* only"):
        solve(Board.goal(3, "blank-last").apply("U"), "blank-last", "astar", split=local_runner(3))


@pytest.mark.parametrize("number", [79, 12, 55])
@pytest.mark.parametrize("depth", [1, 6, 11])
def test_stopping_at_the_goal_counts_as_serial(korf100, number, depth):
    """The default last iteration stops where serial IDA* stops: every iteration's count,
    the nodes expanded and the moves are serial IDA*'s, for any chunks."""
    board = Board(korf100[number], 4)
    serial = solve(board, "blank-first")
    for workers in (1, 3):
        split = solve(board, "blank-first", split=local_runner(depth, workers))
        assert split.iterations == serial.iterations
        assert (split.nodes_generated, split.nodes_expanded, split.moves) == (
            serial.nodes_generated, serial.nodes_expanded, serial.moves)


def test_stopping_at_the_goal_counts_as_serial_with_goals_in_the_frontier():
    """8-puzzles whose goal lies above the roots, at the roots or below them."""
    goal_t = goal_tiles("blank-last", 3)
    rng = np.random.default_rng(61)
    boards = [random_walk_instance(3, goal_t, k, rng) for k in (1, 3, 6, 9, 12)]
    boards += [uniform_instance(3, goal_t, rng) for _ in range(3)]
    for board in boards:
        serial = solve(board, "blank-last")
        for depth in (1, 4, 9, 14):
            split = solve(board, "blank-last", split=local_runner(depth, 2))
            assert (split.iterations, split.nodes_expanded, split.moves) == (
                serial.iterations, serial.nodes_expanded, serial.moves)


def test_chunks_are_runs_of_roots_of_equal_weight(korf100):
    goal = goal_tiles("blank-first", 4)
    frontier = expand(korf100[1], 4, goal, kernel_heuristic(parse_heuristic("manhattan", 4, goal), 4, goal), 6)
    roots = np.flatnonzero(frontier.depth == 6)
    weights = np.random.default_rng(3).pareto(1.5, len(roots)) + 1
    weights[100] = weights.sum()  # a root heavier than all others together: a run of its own
    chunks = frontier.chunks(roots, weights, 8)
    assert np.array_equal(np.concatenate([c.ids for c in chunks]), roots) and len(chunks) <= 9
    assert any(np.array_equal(c.ids, [roots[100]]) for c in chunks)
    others = [weights[np.searchsorted(roots, c.ids)].sum() for c in chunks if roots[100] not in c.ids]
    assert max(others) <= weights.sum() / 8 + np.sort(weights)[-2]
    assert frontier.chunks(roots[:0], weights[:0], 8) == []


@pytest.fixture(scope="module")
def pdb555(tmp_path_factory) -> dict[str, tuple]:
    """The tables of pdb:5-5-5 and pdb:5-5-5+reflect for the 15-puzzle's blank-first goal."""
    goal = goal_tiles("blank-first", 4)
    with open_store(tmp_path_factory.mktemp("store")) as store:
        return {name: tables_for(parse_heuristic(name, 4, goal), 4, goal, store, build=True)
                for name in ("pdb:5-5-5", "pdb:5-5-5+reflect")}


@pytest.mark.parametrize("heuristic", ["pdb:5-5-5", "pdb:5-5-5+reflect"])
@pytest.mark.parametrize("prune", ["parent", "fsm"])
@pytest.mark.parametrize("depth", [2, 6])
def test_pdb_subtrees_count_as_serial(korf100, pdb555, heuristic, prune, depth):
    """The PDB contour below each root (solver.subtrees._subtrees_pdb): every iteration's
    count, the nodes expanded and the moves are serial IDA*'s, stopping at the goal, for any
    chunks; searching every root of the last iteration gives serial IDA*'s moves too."""
    for number in (79, 12):
        board = Board(korf100[number], 4)
        serial = solve(board, "blank-first", "idastar", heuristic, pdb555[heuristic], prune=prune)
        for workers in (1, 3):
            split = solve(board, "blank-first", "idastar", heuristic, pdb555[heuristic], prune=prune,
                          split=local_runner(depth, workers))
            assert split.iterations == serial.iterations
            assert (split.status, split.cost, split.nodes_generated, split.nodes_expanded, split.moves) == (
                serial.status, serial.cost, serial.nodes_generated, serial.nodes_expanded, serial.moves)
        whole = solve(board, "blank-first", "idastar", heuristic, pdb555[heuristic], prune=prune,
                      split=local_runner(depth, 2, complete_last_iteration=True))
        assert whole.iterations[:-1] == serial.iterations[:-1] and whole.moves == serial.moves
