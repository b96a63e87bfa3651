"""epsilon-truncation of CDP's conditional distributions (solver/truncation.py): the
per-type cutoff on cases counted by hand, the truncated table, the groups counted on boards
and a real iteration by hand, and ``--epsilon`` on a real 8-puzzle sweep."""

import json
import subprocess

import numpy as np
import pytest

from program import CLI
from sweeps_local import local_sweep
from tilesweep.solver.board import goal_tiles
from tilesweep.solver.heuristics import kernel_heuristic, parse_heuristic
from tilesweep.solver.truncation import child_counts, state_groups, tree_groups, truncate, type_epsilon


def single_states(children_per_state: dict[int, list[int]], width: int = 3) -> tuple[np.ndarray, np.ndarray]:
    """Groups of one state each (``children_per_state``: offset index -> each state's number
    of neighbours at it, every offset the same number of states)."""
    states = len(next(iter(children_per_state.values())))
    children = np.zeros((states, width))
    for j, per_state in children_per_state.items():
        children[:, j] = per_state
    return np.ones(states), children


def test_a_rare_decrease_is_cut_when_the_sample_rarely_shows_it():
    # two moves, each lowering h with probability 0.2 (offset index 0) and raising it with 0.8 (index 2);
    # of 10 states, 7 have no child of lower h, 2 have one, 1 has two (mean 0.4 = 2 x 0.2)
    p = np.array([[0.2, 0.0, 0.8], [0.2, 0.0, 0.8]])
    lower = [0] * 7 + [1] * 2 + [2]
    groups = single_states({0: lower, 1: [0] * 10, 2: [2 - k for k in lower]})
    # untruncated, 0.4 and 1.6 children expected: |0.4 - k| summed is 7(0.4) + 2(0.6) + 1.6 = 5.6 per offset,
    # 11.2 in all; cut at 0.2: 0 and 2 expected, 2(1) + 1(2) = 4 per offset, 8 in all: the cut wins
    assert type_epsilon(p, *groups) == pytest.approx(0.2)


def test_a_rare_decrease_is_kept_at_a_level_of_many_such_nodes():
    # the same 10 nodes as one level of a tree: 4 children of lower h and 16 of higher among them,
    # exactly 10 x 0.4 and 10 x 1.6 expected untruncated (error 0); cut at 0.2: 0 and 20 (error 8)
    p = np.array([[0.2, 0.0, 0.8], [0.2, 0.0, 0.8]])
    assert type_epsilon(p, np.array([10.0]), np.array([[4.0, 0.0, 16.0]])) == 0.0


def test_a_common_decrease_is_kept():
    # the same moves lowering h with probability 0.4; 3 states with no such child, 6 with one, 1 with two:
    # untruncated 0.8 and 1.2 expected, error 3(0.8) + 6(0.2) + 1.2 = 4.8 per offset (9.6); cut at 0.4:
    # 0 and 2, error 6 + 2 = 8 per offset (16): no cut
    p = np.array([[0.4, 0.0, 0.6], [0.4, 0.0, 0.6]])
    lower = [0] * 3 + [1] * 6 + [2]
    assert type_epsilon(p, *single_states({0: lower, 1: [0] * 10, 2: [2 - k for k in lower]})) == 0.0


def test_a_cut_never_empties_a_move_and_an_unsampled_type_is_not_cut():
    # every state has two children of higher h; the cut 0.5 would empty the first move: 0.1 is the most
    # (untruncated 0.6 and 1.4 expected, error 12; cut at 0.1: 0.5 and 1.5, error 10)
    p = np.array([[0.5, 0.0, 0.5], [0.1, 0.0, 0.9]])
    assert type_epsilon(p, *single_states({0: [0] * 10, 1: [0] * 10, 2: [2] * 10})) == pytest.approx(0.1)
    assert type_epsilon(p, np.zeros(0), np.zeros((0, 3))) == 0.0


def test_truncate_zeroes_at_or_below_epsilon_and_renormalises():
    one = np.zeros((1, 4, 2, 3))
    one[0, 0, 0] = [0.2, 0.0, 0.8]
    one[0, 1, 0] = [0.3, 0.0, 0.7]
    one[0, 0, 1] = [0.2, 0.0, 0.8]
    eps = np.array([[0.2, 0.0]])  # h 0 cut at 0.2; h 1 not cut
    got = truncate(one, eps)
    assert got[0, 0, 0] == pytest.approx([0.0, 0.0, 1.0])
    assert got[0, 1, 0] == pytest.approx([0.3, 0.0, 0.7])
    assert got[0, 0, 1] == pytest.approx([0.2, 0.0, 0.8])
    assert (got[0, 2:] == 0).all()  # no move there: no distribution, none made up


def test_child_counts_on_two_boards_by_hand():
    goal = goal_tiles("blank-last", 3)
    H = kernel_heuristic(parse_heuristic("manhattan", 3, goal), 3, goal)
    # the goal (h 0, blank on 8): two children, both h 1. 1 2 3 / 4 5 6 / 7 0 8 (h 1, blank on 7):
    # U and L give h 2, R gives h 0
    boards = np.array([goal, (1, 2, 3, 4, 5, 6, 7, 0, 8)], dtype=np.int8)
    got = child_counts(boards, 3, H, 1, 3)
    expected = {(8, 0, 0, 0): 1, (8, 0, 1, 0): 1, (8, 0, 2, 2): 1,   # offsets -1, 0, +1 (index 0, 1, 2)
                (7, 1, 0, 1): 1, (7, 1, 1, 0): 1, (7, 1, 2, 2): 1}
    assert {k: int(n) for k, n in np.ndenumerate(got) if n} == expected


def test_state_groups_rebuild_each_state_from_child_counts():
    goal = goal_tiles("blank-last", 3)
    H = kernel_heuristic(parse_heuristic("manhattan", 3, goal), 3, goal)
    boards = np.array([goal, (1, 2, 3, 4, 5, 6, 7, 0, 8)], dtype=np.int8)
    groups = state_groups(child_counts(boards, 3, H, 1, 3))
    assert set(groups) == {(8, 0), (7, 1)}
    nodes, children = groups[7, 1]
    assert nodes.tolist() == [1.0] and children.tolist() == [[1.0, 0.0, 2.0]]


def test_tree_groups_count_each_level_of_a_real_iteration():
    goal = goal_tiles("blank-last", 3)
    H = kernel_heuristic(parse_heuristic("manhattan", 3, goal), 3, goal)
    # 1 2 3 / 4 5 6 / 7 0 8, h 1, threshold 1: level 0 the start (blank 7, h 1: neighbours h 2, 2, 0);
    # level 1 its children with h <= 0: the goal by R (blank 8, h 0: neighbours h 1, 1)
    start = np.array([[1, 2, 3, 4, 5, 6, 7, 0, 8]], dtype=np.int8)
    groups = tree_groups(start, 3, H, 1, (0,), 2)
    assert {k: (v[0].tolist(), v[1].tolist()) for k, v in groups.items()} == {
        (7, 1): ([1.0], [[1.0, 0.0, 2.0]]), (8, 0): ([1.0], [[0.0, 0.0, 2.0]])}
    # threshold 3 (slack 1): level 1 also keeps U's and L's children (h 2 <= 2); level 2 then holds the
    # nodes with h <= 1 below them and below the goal
    deeper = tree_groups(start, 3, H, 1, (1,), 2)
    assert deeper[7, 1][0].tolist() == [1.0] and sum(deeper[8, 0][0]) >= 1


@pytest.fixture(scope="module")
def swept(tmp_path_factory):
    out = tmp_path_factory.mktemp("eps")
    folder = local_sweep(out, "e8", size=3, count=40, seed=3, algorithms=("idastar",), heuristics=("manhattan",))
    return folder, out / "store"


@pytest.mark.slow  # both criteria sampled from the 8-puzzle's states and trees: about 11 s
def test_epsilon_adds_cdp_eps_and_says_how(swept):
    folder, store = swept
    runs = {}
    for flag in ("off", "states", "trees"):
        out = subprocess.run([*CLI, "predict", str(folder), "--store", str(store), "--format", "json",
                              "--epsilon", flag], capture_output=True, text=True, timeout=600)
        assert out.returncode == 0, out.stderr
        runs[flag] = {r["method"]: r for r in json.loads(out.stdout) if "instance" not in r}
    plain = runs["off"]
    assert set(plain) == {"kre", "cdp", "cdp2"}
    for flag, source in (("states", "from the same states"), ("trees", "from the levels of 500 random start")):
        eps = runs[flag]
        assert set(eps) == {"kre", "cdp", "cdp2", "cdp-eps"}
        for method in plain:  # nothing else changes
            assert eps[method]["predicted_nodes"] == plain[method]["predicted_nodes"]
        assert eps["cdp-eps"]["measured_nodes"] == plain["cdp"]["measured_nodes"]
        assert eps["cdp-eps"]["predicted_nodes"] != plain["cdp"]["predicted_nodes"]  # some type is cut
        assert f"cdp-eps: epsilon per blank cell and h {source}" in eps["cdp-eps"]["distributions"]
    assert "cdp-eps" not in plain["cdp"]["distributions"]


def test_epsilon_is_off_states_or_trees():
    out = subprocess.run([*CLI, "predict", "--instances", "korf100", "-H", "manhattan", "--epsilon", "0.1"],
                         capture_output=True, text=True, timeout=300)
    assert out.returncode == 2 and len(out.stderr.strip().splitlines()) == 1 and "'0.1'" in out.stderr
