"""FSM move pruning: every forbidden string is a true duplicate, the automaton matches
exactly the strings that end in one, node counts equal a naive IDA* that checks suffixes,
and costs never change."""

import random

import numpy as np
import pytest

import naive
import naive_walking
from tilesweep.pdb_store import open_store, tables_for
from tilesweep.solver import Board, InvalidOptionError, goal_tiles, parse_heuristic, solve
from tilesweep.solver.batch import solve_boards
from tilesweep.solver.fsm import DEFAULT_DEPTH, FORBIDDEN, automaton, duplicate_strings, parse_pruning
from tilesweep.solver.generators import random_walk_instance
from tilesweep.solver.geometry import neighbours64
from tilesweep.solver.heuristics import kernel_heuristic
from tilesweep.solver.idastar import _idastar
from tilesweep.solver.kernels import goal_positions
from tilesweep.solver.limits import UNLIMITED, make_limits
from tilesweep.solver.search import idastar_call

ORDER = {m: i for i, m in enumerate("ULRD")}


def legal_from(cell, moves, size):
    """Whether the blank can walk ``moves`` from ``cell`` without leaving the board."""
    r, c = divmod(cell, size)
    for m in moves:
        dr, dc = naive.DELTAS[m]
        r, c = r + dr, c + dc
        if not (0 <= r < size and 0 <= c < size):
            return False
    return True


@pytest.mark.parametrize("size, depth", [(3, 14), (4, 12)])
def test_forbidden_strings_are_true_duplicates(size, depth):
    dups = duplicate_strings(size, depth)
    assert dups and {d.forbidden for d in dups} >= {"UD", "DU", "LR", "RL"}
    rng = random.Random(size)
    for d in dups:
        a, b = d.forbidden, d.replacement
        assert (len(b), [ORDER[m] for m in b]) < (len(a), [ORDER[m] for m in a]), d
        starts = [c for c in range(size * size) if legal_from(c, a, size)]
        assert starts, d
        for cell in starts:
            tiles = list(range(1, size * size))
            rng.shuffle(tiles)
            tiles.insert(cell, 0)
            assert legal_from(cell, b, size), d
            assert naive.replay(tiles, a) == naive.replay(tiles, b), (d, cell)
    forbidden = [d.forbidden for d in dups]
    for x in forbidden:  # minimal: no forbidden string inside another
        assert not any(y != x and y in x for y in forbidden), x


def test_automaton_flags_exactly_the_strings_that_end_in_a_forbidden_one():
    dups = duplicate_strings(4, 12)
    forbidden = {d.forbidden for d in dups}
    strict = {d.forbidden for d in dups if d.strict}
    fsm = automaton(4, 12)
    rng = random.Random(0)
    checked = 0
    for _ in range(4000):
        q_full = q_strict = 0
        text = ""
        for _ in range(30):
            m = rng.choice("ULRD")
            text += m
            ends = [text[i:] for i in range(len(text))]
            nxt = int(fsm.full[q_full * 4 + ORDER[m]])
            assert (nxt == FORBIDDEN) == any(e in forbidden for e in ends), text
            nxt_strict = int(fsm.strict[q_strict * 4 + ORDER[m]])
            assert (nxt_strict == FORBIDDEN) == any(e in strict for e in ends), text
            checked += 1
            if nxt == FORBIDDEN:
                break
            q_full = nxt
            if nxt_strict == FORBIDDEN:
                break
            q_strict = nxt_strict
    assert checked > 10_000


def ends_in(forbidden):
    """A naive.idastar pruning: a child whose move path ends in a ``forbidden`` string."""
    longest = max(map(len, forbidden))

    def pruned(path, move):
        text = path + move
        return any(text[i:] in forbidden for i in range(max(0, len(text) - longest), len(text)))

    return pruned


@pytest.mark.parametrize("size, goal_name, seed, steps, name", [
    (3, "blank-last", 1, 40, "manhattan"), (3, "blank-first", 2, 50, "linear-conflict"),
    (4, "blank-first", 3, 34, "manhattan"), (4, "blank-last", 4, 40, "walking-distance")])
def test_idastar_counts_equal_naive_suffix_pruning(size, goal_name, seed, steps, name):
    goal = goal_tiles(goal_name, size)
    board = random_walk_instance(size, goal, steps, np.random.default_rng(seed))
    depth = 10
    forbidden = {d.forbidden for d in duplicate_strings(size, depth)}
    h = {"manhattan": naive.manhattan, "linear-conflict": naive.linear_conflict,
         "walking-distance": naive_walking.walking_distance_by_table}[name]
    expected = naive.idastar(board.tiles, goal, h, ends_in(forbidden))
    got = solve(board, goal_name, "idastar", name, prune=f"fsm:{depth}")
    assert got.pruning == f"fsm:{depth}"
    assert (got.cost, got.moves, got.nodes_generated, got.nodes_expanded) == (
        expected["cost"], expected["moves"], expected["generated"], expected["expanded"])


def costs_with_fsm(goal_name, states, algorithm, name):
    for s in states:
        yield s, solve(Board(s, 3), goal_name, algorithm, name, prune="fsm")


@pytest.mark.parametrize("goal_name", ["blank-last", "blank-first"])
def test_fsm_keeps_costs_on_sampled_8_puzzle_states(goal_name):
    goal = goal_tiles(goal_name, 3)
    dist = naive.bfs_distances(goal)
    states = random.Random(goal_name).sample(sorted(dist), 600)
    fewer = 0
    for algorithm, name in (("idastar", "manhattan"), ("idastar", "walking-distance"), ("astar", "linear-conflict")):
        for s, result in costs_with_fsm(goal_name, states, algorithm, name):
            assert result.cost == dist[s], (algorithm, name, s)
            assert Board(s, 3).apply(result.moves) == Board(goal, 3)
            parent = solve(Board(s, 3), goal_name, algorithm, name)
            assert result.nodes_generated <= parent.nodes_generated or algorithm == "astar"
            fewer += result.nodes_generated < parent.nodes_generated
    assert fewer > 600


# Boards of the seeded sample CI checks, of the 181,439 8-puzzles that are not the goal.
SAMPLE = 12_000


def boards_to_check(dist: dict, goal: tuple, sample: int | None) -> list[tuple]:
    """Every board but the goal, or a seeded sample of them that holds every board at the
    greatest distance (the longest searches, where pruning acts the most)."""
    boards = sorted(s for s in dist if s != goal)
    if sample is None:
        return boards
    deepest = max(dist.values())
    rest = [s for s in boards if dist[s] != deepest]
    return sorted(random.Random(1).sample(rest, sample) + [s for s in boards if dist[s] == deepest])


@pytest.mark.slow
@pytest.mark.parametrize("sample", [pytest.param(SAMPLE, id="sampled"),
                                    pytest.param(None, id="every-board", marks=pytest.mark.exhaustive)])
@pytest.mark.parametrize("algorithm, name", [("idastar", "manhattan"), ("idastar", "walking-distance"),
                                             ("astar", "manhattan"), ("idastar", "max(pdb:5-3,walking-distance)"),
                                             ("idastar", "walking-distance+id")])
def test_fsm_keeps_costs_on_8_puzzle_states(algorithm, name, sample, tmp_path):
    """Boards through the batch path (the kernels of ``solve``, called from one loop:
    tests/test_batch.py), the goal through ``solve``. Every board with ``--exhaustive``."""
    goal = goal_tiles("blank-last", 3)
    dist = naive.bfs_distances(goal)
    states = boards_to_check(dist, goal, sample)
    heuristic = parse_heuristic(name, 3, goal)
    with open_store(tmp_path) as store:
        tables = tables_for(heuristic, 3, goal, store)
        got = solve_boards(np.array(states, dtype=np.int8), 3, goal, algorithm, heuristic, tables, prune="fsm")
        assert solve(Board(goal, 3), "blank-last", algorithm, name, tables, prune="fsm").cost == 0
    assert got.request.pruning == f"fsm:{DEFAULT_DEPTH[3]}" and len(got.cost) == len(states)
    assert len(states) == (181_439 if sample is None else sample + 2)  # two boards at 31 moves
    wrong = [(s, c) for s, c in zip(states, got.cost.to_pylist(), strict=True) if c != dist[s]]
    assert not wrong, f"{len(wrong)} boards off their true distance, e.g. {wrong[:3]}"


def test_fsm_on_korf_instances(korf100):
    for number, cost in {79: 42, 9: 46, 55: 41}.items():
        board = Board(korf100[number], 4)
        parent = solve(board, "blank-first", "idastar", "walking-distance")
        fsm = solve(board, "blank-first", "idastar", "walking-distance", prune="fsm")
        assert parent.cost == fsm.cost == cost
        assert fsm.nodes_generated < parent.nodes_generated
        assert board.apply(fsm.moves) == Board.goal(4, "blank-first")


@pytest.mark.parametrize("text, size, expected", [("parent", 4, "parent"), ("fsm", 4, "fsm:14"),
                                                  ("fsm:8", 3, "fsm:8")])
def test_parse_pruning(text, size, expected):
    assert str(parse_pruning(text, size)) == expected


@pytest.mark.parametrize("bad", ["fsm:1", "fsm:x", "fsm:99", "child", "parent:3", ""])
def test_bad_pruning_refused(bad):
    with pytest.raises(InvalidOptionError, match=repr(bad)):
        parse_pruning(bad, 4)


@pytest.mark.parametrize("size, goal_name, seed, steps, name", [
    (3, "blank-last", 5, 40, "manhattan"), (3, "blank-first", 6, 40, "misplaced"),
    (4, "blank-first", 7, 40, "manhattan"), (4, "blank-last", 8, 44, "manhattan"),
    (4, "blank-first", 9, 36, "euclidean")])
def test_per_tile_kernel_prunes_as_the_general_kernel(size, goal_name, seed, steps, name):
    """The per-tile kernel with the automaton gives the general kernel's search, node for node."""
    goal = goal_tiles(goal_name, size)
    board = random_walk_instance(size, goal, steps, np.random.default_rng(seed))
    fsm = automaton(size, DEFAULT_DEPTH[size])
    H = kernel_heuristic(parse_heuristic(name, size, goal), size, goal)
    limits = make_limits(UNLIMITED, None, UNLIMITED)
    kernel, fast = idastar_call(size, goal, H, limits, fsm)
    assert kernel == "idastar-tiles"
    general = _idastar(board.array(), size, goal_positions(goal), neighbours64(size), H, limits,
                       fsm.full, True)
    got = fast(board.array())
    status, path, cost, generated, expanded, bounds, iter_nodes, n_iter, h0 = got
    assert (int(status), int(cost), int(generated), int(expanded), int(n_iter), int(h0)) == (
        int(general[0]), int(general[2]), int(general[3]), int(general[4]), int(general[7]), int(general[8]))
    assert path[:cost].tolist() == general[1][:cost].tolist()
    assert iter_nodes[:n_iter].tolist() == general[6][:n_iter].tolist()
    parent = solve(board, goal_name, "idastar", name)
    assert parent.cost == cost and generated < parent.nodes_generated


def test_per_tile_kernel_with_fsm_on_korf_79(korf100):
    board = Board(korf100[79], 4)
    fsm = solve(board, "blank-first", "idastar", "manhattan", prune="fsm")
    parent = solve(board, "blank-first", "idastar", "manhattan")
    assert fsm.cost == parent.cost == 42 and board.apply(fsm.moves) == Board.goal(4, "blank-first")
    assert fsm.nodes_generated < parent.nodes_generated
