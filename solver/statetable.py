"""Packed board keys, a growable node store and an open-addressing index over it.

The graph searches (A*, BFS, DFS) keep one node per distinct board: its packed key
(two uint64 words), its best g, its parent node and the move that reached it. Boards
pack 4 bits a cell up to 16 cells and 5 bits a cell above (a 5x5 board packs its first
24 cells; the last tile is the one missing).
"""

import numpy as np

from .jit import inline_kernel, kernel

EMPTY = -1
FIRST_CAP = 1024  # boards the store holds before its first doubling


@inline_kernel
def cell_bits(n):
    """Bits per packed cell for a board of ``n`` cells."""
    return 4 if n <= 16 else 5


@inline_kernel
def pack(tiles, in_order=False):
    """Pack ``tiles`` (int[N]) into two uint64 words, cell 0 in the first word's lowest bits;
    ``in_order``: in its highest, so that the words compare as the boards do tile by tile."""
    n = tiles.shape[0]
    bits = cell_bits(n)
    per_word = 64 // bits
    k1 = np.uint64(0)
    k2 = np.uint64(0)
    for c in range(min(n, per_word)):
        k1 |= np.uint64(tiles[c]) << np.uint64(bits * (per_word - 1 - c if in_order else c))
    for c in range(per_word, min(n, 2 * per_word)):
        k = c - per_word  # the cell's place in the second word
        k2 |= np.uint64(tiles[c]) << np.uint64(bits * (per_word - 1 - k if in_order else k))
    return k1, k2


@inline_kernel
def unpack(k1, k2, tiles, pos):
    """Write the board of key ``(k1, k2)`` into ``tiles`` and ``pos`` (int64[N])."""
    n = tiles.shape[0]
    bits = cell_bits(n)
    per_word = 64 // bits
    mask = np.uint64((1 << bits) - 1)
    remaining = n * (n - 1) // 2
    for c in range(min(n, 2 * per_word)):
        if c < per_word:
            t = np.int64((k1 >> np.uint64(bits * c)) & mask)
        else:
            t = np.int64((k2 >> np.uint64(bits * (c - per_word))) & mask)
        tiles[c] = t
        pos[t] = c
        remaining -= t
    if n > 2 * per_word:
        tiles[n - 1] = remaining
        pos[remaining] = n - 1


@inline_kernel
def mix(k1, k2):
    """splitmix64-style mix of a key."""
    x = k1 ^ (k2 * np.uint64(0x9E3779B97F4A7C15))
    x ^= x >> np.uint64(31)
    x *= np.uint64(0xBF58476D1CE4E5B9)
    x ^= x >> np.uint64(29)
    x *= np.uint64(0x94D049BB133111EB)
    x ^= x >> np.uint64(32)
    return x


@inline_kernel
def find_slot(slots, keys, k1, k2):
    """Slot of key ``(k1, k2)`` in ``slots`` (int64[2^m]), or of the empty slot it would take."""
    mask = np.uint64(slots.shape[0] - 1)
    i = mix(k1, k2) & mask
    while True:
        node = slots[i]
        if node == EMPTY or (keys[node, 0] == k1 and keys[node, 1] == k2):
            return i
        i = (i + np.uint64(1)) & mask


@inline_kernel
def find_board(slots, keys, tiles):
    """The board ``tiles``' key ``(k1, k2)``, its slot in ``slots`` and the node there
    (EMPTY: the board is not stored; the slot is the one it would take)."""
    k1, k2 = pack(tiles)
    slot = find_slot(slots, keys, k1, k2)
    return k1, k2, slot, slots[slot]


@kernel
def rebuild_index(keys, count, capacity):
    """A fresh index of ``capacity`` slots over the first ``count`` nodes."""
    slots = np.full(capacity, EMPTY, dtype=np.int64)
    for node in range(count):
        slots[find_slot(slots, keys, keys[node, 0], keys[node, 1])] = node
    return slots


@kernel
def grow_rows(a, count):
    """A copy of ``a`` with twice the rows, the first ``count`` kept."""
    shape = (2 * a.shape[0],) + a.shape[1:]
    out = np.empty(shape, dtype=a.dtype)
    # element by element through flat views: a slice copy's shape check compiles numba's
    # shape-mismatch message, seconds of a first run's compile
    per_row = a.size // a.shape[0] if a.shape[0] > 0 else 0
    src, dst = a.reshape(a.size), out.reshape(out.size)
    for i in range(count * per_row):
        dst[i] = src[i]
    return out


@inline_kernel
def node_store(tiles):
    """A store holding the board ``tiles`` as node 0 (the root: no parent, no move):
    ``keys, gs, parents, moves`` (FIRST_CAP rows each) and ``slots``, its index."""
    keys = np.zeros((FIRST_CAP, 2), dtype=np.uint64)
    gs = np.zeros(FIRST_CAP, dtype=np.int64)
    parents = np.zeros(FIRST_CAP, dtype=np.int64)
    moves = np.zeros(FIRST_CAP, dtype=np.int8)
    slots = np.full(2 * FIRST_CAP, EMPTY, dtype=np.int64)
    k1, k2 = pack(tiles)
    keys[0, 0], keys[0, 1] = k1, k2
    parents[0] = -1
    moves[0] = -1
    slots[find_slot(slots, keys, k1, k2)] = 0
    return keys, gs, parents, moves, slots


@inline_kernel
def with_room(count, a, b, c, d, e):
    """Five arrays of ``count`` rows (a store's, a heap's), each doubled. Called only when
    they are full: a tuple of arrays made for every new board (the board stored through one
    helper that returned the arrays) ran BFS on 30 8-puzzles about 15 % slower
    (benchmarks/heuristic_kernels.py --case graph-bfs, 2026-12-07)."""
    return grow_rows(a, count), grow_rows(b, count), grow_rows(c, count), grow_rows(d, count), grow_rows(e, count)


@kernel
def trace_path(parent, move, node, out):
    """Write the moves from the root to ``node`` into ``out``; return their number."""
    k = 0
    while parent[node] >= 0:
        out[k] = move[node]
        node = parent[node]
        k += 1
    out[:k] = out[:k][::-1].copy()
    return k
