"""The pieces of IDA*'s node prediction against exact counts: the brute-force tree's nodes
per depth against an explicit enumeration, the 8-puzzle's h distribution against every
state, the conditional distributions and both predictions on cases counted by hand."""

from collections import Counter

import numpy as np
import pytest

import naive
from tilesweep.solver.board import goal_tiles
from tilesweep.solver.bruteforce import NO_MOVE, Tree, tree
from tilesweep.solver.cdp import _cdp, conditionals
from tilesweep.solver.fsm import Pruning, duplicate_strings
from tilesweep.solver.hdist import all_states, distributions, exact_distributions, random_states
from tilesweep.solver.heuristics import kernel_heuristic, parse_heuristic
from tilesweep.solver.kre import kre


def enumerate_depths(size, cell, depth, forbidden=()):
    """Nodes at each depth of the tree of blank walks from ``cell``, by walking every path,
    never undoing the last move and never ending in a ``forbidden`` string; and by cell."""
    longest = max(map(len, forbidden), default=0)
    per_depth = [Counter() for _ in range(depth + 1)]

    def walk(c, path):
        per_depth[len(path)][c] += 1
        if len(path) == depth:
            return
        r, col = divmod(c, size)
        for m, (dr, dc) in naive.DELTAS.items():
            if not (0 <= r + dr < size and 0 <= col + dc < size) or naive.parent_pruning(path, m):
                continue
            text = path + m
            if any(text[i:] in forbidden for i in range(max(0, len(text) - longest), len(text))):
                continue
            walk((r + dr) * size + col + dc, text)

    walk(cell, "")
    return per_depth


@pytest.mark.parametrize("size, cell, depth", [(3, 0, 12), (3, 4, 12), (4, 5, 10), (4, 0, 10)])
def test_tree_counts_equal_an_enumeration_with_parent_pruning(size, cell, depth):
    expected = enumerate_depths(size, cell, depth)
    got = tree(size, cell, Pruning("parent")).by_cell(depth, np.int64)
    for i in range(depth + 1):
        assert {c: int(n) for c, n in enumerate(got[i]) if n} == dict(expected[i]), i


@pytest.mark.parametrize("size, fsm_depth, depth", [(3, 8, 11), (4, 6, 9)])
def test_tree_counts_equal_an_enumeration_with_the_fsm(size, fsm_depth, depth):
    forbidden = {d.forbidden for d in duplicate_strings(size, fsm_depth)}
    cell = size + 1
    expected = enumerate_depths(size, cell, depth, forbidden)
    got = tree(size, cell, Pruning("fsm", fsm_depth)).by_cell(depth, np.int64)
    assert sum(expected[depth].values()) < sum(enumerate_depths(size, cell, depth)[depth].values())
    for i in range(depth + 1):
        assert {c: int(n) for c, n in enumerate(got[i]) if n} == dict(expected[i]), i


@pytest.mark.slow
def test_eight_puzzle_distribution_equals_every_state():
    goal = goal_tiles("blank-last", 3)
    states = naive.bfs_distances(goal)
    expected = Counter((s.index(0), naive.manhattan(s, goal)) for s in states)
    H = kernel_heuristic(parse_heuristic("manhattan", 3, goal), 3, goal)
    dist = exact_distributions(3, goal, H)
    assert dist.states == len(states) == 181440
    assert {(c, v): int(n) for (c, v), n in np.ndenumerate(dist.cells) if n} == dict(expected)
    moves = Counter()
    for s in states:
        for m, child in naive.successors(s):
            moves[s.index(0), "ULRD".index(m), naive.manhattan(s, goal), naive.manhattan(child, goal)] += 1
    got = {(c, m, v, v + j - dist.spread): int(n) for (c, m, v, j), n in np.ndenumerate(dist.step) if n}
    assert got == dict(moves)


def test_random_states_are_solvable_and_seeded():
    goal = goal_tiles("blank-first", 4)
    boards = random_states(4, goal, 2000, 7)
    assert all(naive.solvable(tuple(int(t) for t in b), "blank-first") for b in boards[:300])
    assert (np.sort(boards, axis=1) == np.arange(16)).all()
    assert (random_states(4, goal, 2000, 7) == boards).all()
    assert not (random_states(4, goal, 2000, 8) == boards).all()
    assert set(np.argmax(boards == 0, axis=1)) == set(range(16))


def test_conditional_counts_on_two_boards_by_hand():
    goal = goal_tiles("blank-last", 3)
    H = kernel_heuristic(parse_heuristic("manhattan", 3, goal), 3, goal)
    # the goal (h 0, blank on 8): U and L each move a tile off its cell, h 1.
    # 1 2 3 / 4 5 6 / 7 0 8 (h 1, blank on 7): U (5 down) h 2, L (7 right) h 2, R (8 left) h 0.
    boards = np.array([goal, (1, 2, 3, 4, 5, 6, 7, 0, 8)], dtype=np.int8)
    dist = distributions(boards, 3, H, "exact")
    assert dist.spread == 1
    assert {(c, v): int(n) for (c, v), n in np.ndenumerate(dist.cells) if n} == {(8, 0): 1, (7, 1): 1}
    got = {(c, m, v, v + j - 1): int(n) for (c, m, v, j), n in np.ndenumerate(dist.step) if n}
    assert got == {(8, 0, 0, 1): 1, (8, 1, 0, 1): 1, (7, 0, 1, 2): 1, (7, 1, 1, 2): 1, (7, 2, 1, 0): 1}
    # two steps: the five moves' boards have 2 + 2 + 3 + 1 + 1 moves that do not undo them
    two = {(c, lm, jp - 1, v, m, j - 1): int(n) for (c, lm, jp, v, m, j), n in np.ndenumerate(dist.step2) if n}
    assert sum(two.values()) == 9
    # the goal by U (blank on 5, h 1, up 1), then L (tile 5 right, off its cell: up 1)
    assert two[5, 0, 1, 1, 1, 1] == 1
    # 1 2 3 / 4 5 6 / 7 0 8 by R (blank on 8, h 0, down 1), then U (tile 6 down: up 1)
    assert two[8, 2, -1, 0, 0, 1] == 1


def toy_tree():
    """A root (cell 0) with two children on cells 1 and 2, each with one child on cell 0,
    and so on: a path that branches only at the root, as kinds with the cells given."""
    cell = np.array([0, 1, 2, 0, 0], dtype=np.int64)
    last = np.array([NO_MOVE, 0, 1, 2, 3], dtype=np.int64)
    src = np.array([0, 0, 1, 2, 3, 4], dtype=np.int64)
    dst = np.array([1, 2, 3, 4, 1, 2], dtype=np.int64)
    return Tree(3, 0, cell, last, src, dst)


def test_kre_on_a_toy_tree_by_hand():
    t = toy_tree()
    assert t.counts(3).sum(axis=1).tolist() == [1, 2, 2, 2]
    cells = np.zeros((9, 4), dtype=np.int64)
    cells[0] = [0, 1, 1, 2]   # cell 0: P(h<=0)=0, P(<=1)=1/4, P(<=2)=1/2, P(<=3)=1
    cells[1] = [1, 1, 0, 0]   # cell 1: P(<=0)=1/2, then 1
    cells[2] = [0, 0, 0, 4]   # cell 2: P(<=2)=0, P(<=3)=1
    generated, expanded = kre(t, cells, [2])
    # depth 0 (cell 0): P(2)=1/2; depth 1 (cells 1, 2): P_1(1)+P_2(1) = 1 + 0;
    # depth 2 (cell 0 twice): 2 P(0) = 0
    assert expanded[0] == pytest.approx(0.5 + 1.0)
    # children: the root has 2, every other kind 1
    assert generated[0] == pytest.approx(1 + 0.5 * 2 + 1.0 * 1)


def test_cdp_on_a_toy_tree_by_hand():
    t = toy_tree()
    one = np.zeros((9, 4, 4, 3))   # [cell, move, h, offset+1]
    one[0, 0, 2] = [0.5, 0.5, 0]   # root (h 2) by U to cell 1: h 1 or 2 half and half
    one[0, 1, 2] = [0, 0, 1]       # root by L to cell 2: h 3
    one[1, 2, :] = [1, 0, 0]       # from cell 1 by R: h one less
    one[2, 3, :] = [1, 0, 0]
    one[0, :, 0:2] = [0, 1, 0]     # any other: h unchanged
    two = np.zeros((1, 4, 1, 1, 4, 1))
    # bound 3: root generated (1) and expanded; children: U child (h 1 or 2, 0.5 each), L child
    # (h 3): 2 generated. Depth 1, room 2: the U child expands either way (1 child each: h 0
    # or h 1), the L child (3 > 2) does not: 1 more. Depth 2, room 1: h 0 or 1, both expand:
    # 1 more (h unchanged, on cell 0). Depth 3, room 0: h 0 (0.5) expands: its child, 0.5.
    def below_root(bound):
        now = np.zeros((len(t.cell), 3, bound + 1))
        now[0, 1, 2] = 1.0
        return _cdp(t.cell, t.last, t.src, t.dst, now, 0, bound, one, two, False, 1)

    assert 1 + below_root(3) == pytest.approx(1 + 2 + 1 + 1 + 0.5)
    assert 1 + below_root(2) == pytest.approx(1 + 2 + 0.5 + 0.5)  # depth 1, room 1: only the U child with h 1


def test_conditionals_borrow_the_nearest_sampled_h():
    step = np.zeros((1, 1, 5, 3), dtype=np.int64)
    step[0, 0, 1] = [1, 0, 3]
    step[0, 0, 4] = [0, 2, 0]
    one, _, has_two = conditionals(step, np.zeros((0, 4, 3, 5, 4, 3), dtype=np.int64))
    assert not has_two
    assert one[0, 0, 0].tolist() == one[0, 0, 1].tolist() == one[0, 0, 2].tolist() == [0.25, 0, 0.75]
    assert one[0, 0, 3].tolist() == one[0, 0, 4].tolist() == [0, 1, 0]


def test_exact_distributions_count_every_state_and_move():
    goal = goal_tiles("blank-last", 3)
    boards = all_states(3, goal)
    H = kernel_heuristic(parse_heuristic("manhattan", 3, goal), 3, goal)
    dist = distributions(boards, 3, H, "exact")
    blank = np.argmax(boards == 0, axis=1)
    edges = sum({0: 2, 2: 2, 6: 2, 8: 2, 4: 4}.get(int(c), 3) for c in blank)
    assert dist.step.sum() == edges == 483840


@pytest.mark.parametrize("size, tiles", [(3, (8, 6, 7, 2, 5, 4, 3, 0, 1)),
                                         (4, (13, 5, 4, 10, 9, 12, 8, 14, 2, 3, 7, 1, 0, 15, 11, 6))])
def test_cdp_searched_for_real_to_the_threshold_is_the_measured_iteration(size, tiles):
    from tilesweep.solver import Board, solve
    from tilesweep.solver.cdp import cdp
    goal = goal_tiles("blank-first", size)
    result = solve(Board(tiles, size), goal, "idastar", "manhattan")
    completed = result.iterations[:-1][:3]  # Korf #2: 3, 794 and 12,111 nodes
    H = kernel_heuristic(parse_heuristic("manhattan", size, goal), size, goal)
    one, two = np.zeros((size * size, 4, 1, 3)), np.zeros((1, 4, 1, 1, 4, 1))
    t = tree(size, tiles.index(0), Pruning("parent"))
    for i, it in enumerate(completed):
        got = cdp(t, tiles, size, H, one, two, False, 1, [it["bound"]], depth=it["bound"])
        assert got[0] == it["nodes_generated"] + (1 if i else 0)


def test_tilted_states_are_solvable_keep_their_blank_and_reach_low_h():
    from tilesweep.solver.hdist import tilted_states
    from tilesweep.solver.search import heuristic_values
    goal = goal_tiles("blank-first", 4)
    H = kernel_heuristic(parse_heuristic("manhattan", 4, goal), 4, goal)
    boards = tilted_states(4, goal, H, 400, 3, tilts=(2.0,), steps=200)
    starts = random_states(4, goal, 400, 4)   # the chains' starts: seed + 1
    assert (np.argmax(boards == 0, axis=1) == np.argmax(starts == 0, axis=1)).all()
    assert all(naive.solvable(tuple(int(t) for t in b), "blank-first") for b in boards[:100])
    h, h_start = heuristic_values(boards, 4, H), heuristic_values(starts, 4, H)
    assert h.mean() < h_start.mean() - 15
    assert (tilted_states(4, goal, H, 400, 3, tilts=(2.0,), steps=200) == boards).all()
