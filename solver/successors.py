"""The successor lists the IDA* and packed A* kernels walk, and the helpers that read them.

For each blank cell and last move (:func:`list_start`), the moves still allowed, each coded
with its target cell (:func:`successor_lists`), so a kernel's inner loop has no off-board or
parent-pruning test; per list entry, the change of a per-tile sum (:func:`tile_deltas`).
"""

import numpy as np

from .jit import inline_kernel

LIST_END = np.uint64(255)
LIST_STRIDE = 8  # room for 4 moves and the end mark


@inline_kernel
def is_goal(tiles, goal_pos):
    """Whether every tile of ``tiles`` stands on its goal cell."""
    for c in range(tiles.shape[0]):
        if goal_pos[tiles[c]] != c:
            return False
    return True


@inline_kernel
def successor_lists(nbr):
    """Allowed moves per (blank, last move): uint64[N * 5 * LIST_STRIDE].

    The list for blank ``b`` after move ``last`` (-1 at the root) starts at
    :func:`list_start`; each entry is ``target << 8 | b * 4 + move`` and the list ends
    with ``LIST_END``. A move is left out when it leaves the board or undoes ``last``.
    """
    n = nbr.shape[0]
    lists = np.full(n * 5 * LIST_STRIDE, LIST_END, dtype=np.uint64)
    for b in range(n):
        for last in range(-1, 4):
            k = np.int64(list_start(b, last))
            for m in range(4):
                if m != 3 - last and nbr[b, m] >= 0:
                    lists[k] = (np.uint64(nbr[b, m]) << np.uint64(8)) | np.uint64(b * 4 + m)
                    k += 1
    return lists


@inline_kernel
def list_start(blank, last):
    """Where the successor list of ``blank`` after move ``last`` begins."""
    return (np.uint64(blank) * np.uint64(5) + np.uint64(np.int64(last) + 1)) * np.uint64(LIST_STRIDE)


@inline_kernel
def target_of(code):
    return code >> np.uint64(8)


@inline_kernel
def blank_of(code):
    return (code & np.uint64(255)) >> np.uint64(2)


@inline_kernel
def move_of(code):
    return np.int64(code & np.uint64(3))


@inline_kernel
def write_path(path, lists, st_pos, depth):
    """The moves on the stack, from the list entries its positions follow."""
    for j in range(depth):
        path[j] = move_of(lists[st_pos[j] - np.uint64(1)])


@inline_kernel
def tile_deltas(nbr8, tile_cost):
    """``delta[t * 4n + b * 4 + m]``: change of the per-tile sum when tile t slides by move m
    into blank b."""
    n = nbr8.shape[0]
    delta = np.zeros(n * n * 4, dtype=np.int64)
    for b in range(n):
        for m in range(4):
            if nbr8[b, m] >= 0:
                for t in range(1, n):
                    delta[t * n * 4 + b * 4 + m] = tile_cost[t, b] - tile_cost[t, nbr8[b, m]]
    return delta
