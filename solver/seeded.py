"""NumPy's seeded random boards, compiled: many instances in one call, the same boards.

A sweep's instance ``i`` is drawn from ``numpy.random.default_rng(SeedSequence([seed, i]))``
(:func:`tilesweep.solver.generators.uniform_instance` and ``random_walk_instance``). Making
one such generator costs tens of microseconds in Python, so a million instances took the
better part of a minute. These kernels reproduce, bit for bit, the steps NumPy takes for
those calls (numpy/random/bit_generator.pyx: SeedSequence's pool mixing and
``generate_state``; PCG64's seeding and XSL-RR output; ``random_interval`` behind
``Generator.permutation`` and Lemire's bounded integers behind ``Generator.integers``),
so a range of instances costs well under a microsecond each. ``tests/test_instances.py``
checks them against NumPy itself on thousands of indices and pins golden boards.
"""

from __future__ import annotations

import numpy as np

from .jit import inline_kernel, kernel

U = np.uint64
M32 = U(0xFFFFFFFF)
S16, S32, S58, S64 = U(16), U(32), U(58), U(64)
INIT_A, MULT_A = U(0x43B0D7E5), U(0x931E8875)
INIT_B, MULT_B = U(0x8B51F9DD), U(0x58F38DED)
MIX_L, MIX_R = U(0xCA01F9DD), U(0x4973F715)
PCG_MULT_HI, PCG_MULT_LO = U(2549297995355413924), U(4865540595714422341)
POOL = 4
# rng state layout: state (hi, lo), increment (hi, lo), has a buffered uint32, the uint32
RNG_LEN = 6


def seed_words(seed: int) -> np.ndarray:
    """``seed`` as NumPy's SeedSequence sees it: 32-bit words, least significant first."""
    words = [seed & 0xFFFFFFFF] if seed == 0 else []
    while seed > 0:
        words.append(seed & 0xFFFFFFFF)
        seed >>= 32
    return np.array(words, dtype=np.uint64)


@inline_kernel
def _hashmix(value, hash_const):
    value = (value ^ hash_const) & M32
    hash_const = (hash_const * MULT_A) & M32
    value = (value * hash_const) & M32
    return value ^ (value >> S16), hash_const


@inline_kernel
def _mix(x, y):
    result = (MIX_L * x - MIX_R * y) & M32
    return result ^ (result >> S16)


@inline_kernel
def _mul128(ah, al, bh, bl):
    """(ah:al) * (bh:bl) mod 2**128, in 64-bit halves."""
    a0, a1, b0, b1 = al & M32, al >> S32, bl & M32, bl >> S32
    p00, p01, p10, p11 = a0 * b0, a0 * b1, a1 * b0, a1 * b1
    mid = (p00 >> S32) + (p01 & M32) + (p10 & M32)
    lo = (p00 & M32) | (mid << S32)
    hi = p11 + (p01 >> S32) + (p10 >> S32) + (mid >> S32)
    return hi + ah * bl + al * bh, lo


@inline_kernel
def _step(rng):
    hi, lo = _mul128(rng[0], rng[1], PCG_MULT_HI, PCG_MULT_LO)
    new_lo = lo + rng[3]
    rng[0] = hi + rng[2] + (U(1) if new_lo < lo else U(0))
    rng[1] = new_lo


@inline_kernel
def _next64(rng):
    _step(rng)
    value = rng[0] ^ rng[1]
    rot = rng[0] >> S58
    return (value >> rot) | (value << ((S64 - rot) & U(63)))


@inline_kernel
def _next32(rng):
    if rng[4] != 0:
        rng[4] = 0
        return rng[5]
    value = _next64(rng)
    rng[4] = 1
    rng[5] = value >> S32
    return value & M32


@inline_kernel
def _seed_rng(rng, words, index, pool, entropy, state):
    """Seed ``rng`` as ``PCG64(SeedSequence([seed, index]))`` (``words``: the seed's words;
    ``pool``, ``entropy`` and ``state``: scratch arrays of 4, len(words) + 2 and 4)."""
    n = len(words)
    for i in range(n):  # a loop, not a slice copy: that compiles numba's shape-mismatch error (~3 CPU s)
        entropy[i] = words[i]
    entropy[n] = U(index) & M32
    n += 1
    if index >> 32 > 0:
        entropy[n] = U(index) >> S32
        n += 1
    hash_const = INIT_A
    for i in range(POOL):
        pool[i], hash_const = _hashmix(entropy[i] if i < n else U(0), hash_const)
    for src in range(POOL):
        for dst in range(POOL):
            if src != dst:
                mixed, hash_const = _hashmix(pool[src], hash_const)
                pool[dst] = _mix(pool[dst], mixed)
    for src in range(POOL, n):
        for dst in range(POOL):
            mixed, hash_const = _hashmix(entropy[src], hash_const)
            pool[dst] = _mix(pool[dst], mixed)
    # generate_state(4, uint64): 8 words from the pool, paired little-endian
    hash_const = INIT_B
    for i in range(8):
        value = (pool[i % POOL] ^ hash_const) & M32
        hash_const = (hash_const * MULT_B) & M32
        value = (value * hash_const) & M32
        value ^= value >> S16
        if i % 2 == 0:
            state[i // 2] = value
        else:
            state[i // 2] |= value << S32
    # pcg64_set_seed: state = seed[0]:seed[1], increment = (inc[0]:inc[1]) << 1 | 1
    rng[0], rng[1] = U(0), U(0)
    rng[2] = (state[2] << U(1)) | (state[3] >> U(63))
    rng[3] = (state[3] << U(1)) | U(1)
    _step(rng)
    lo = rng[1] + state[1]
    rng[0] = rng[0] + state[0] + (U(1) if lo < rng[1] else U(0))
    rng[1] = lo
    _step(rng)
    rng[4], rng[5] = U(0), U(0)


@inline_kernel
def _scratch(words):
    """The generator's state and the scratch arrays :func:`_seed_rng` fills."""
    return (np.empty(RNG_LEN, dtype=np.uint64), np.empty(POOL, dtype=np.uint64),
            np.empty(len(words) + 2, dtype=np.uint64), np.empty(4, dtype=np.uint64))


@inline_kernel
def _interval(rng, top):
    """``random_interval(top)``: uniform in 0..top by masked rejection (top < 2**32)."""
    if top == 0:
        return 0
    mask = U(top)
    for shift in (1, 2, 4, 8, 16):
        mask |= mask >> U(shift)
    while True:
        value = _next32(rng) & mask
        if value <= U(top):
            return np.int64(value)


@inline_kernel
def _bounded(rng, n):
    """``Generator.integers(n)``: Lemire's method on 32-bit draws (1 <= n < 2**32)."""
    top = U(n - 1)
    if top == 0:
        return 0
    excl = top + U(1)
    m = _next32(rng) * excl
    leftover = m & M32
    if leftover < excl:
        threshold = (M32 - top) % excl
        while leftover < threshold:
            m = _next32(rng) * excl
            leftover = m & M32
    return np.int64(m >> S32)


@inline_kernel
def _odd_permutation(tiles, goal_pos, seen):
    """Parity of the permutation taking the goal to ``tiles`` (1 when odd)."""
    n = len(tiles)
    seen[:] = False
    cycles = 0
    for start in range(n):
        if not seen[start]:
            cycles += 1
            i = start
            while not seen[i]:
                seen[i] = True
                i = goal_pos[tiles[i]]
    return (n - cycles) % 2


@inline_kernel
def make_solvable(tiles, goal_pos, size, seen):
    """Make the permutation ``tiles`` reach the goal whose cells are ``goal_pos``, in place:
    when its parity and the blank's distance to its goal cell disagree, swap its first two
    tiles (not the blank). ``seen``: scratch of ``len(tiles)``."""
    blank = 0
    while tiles[blank] != 0:
        blank += 1
    gb = goal_pos[0]
    distance = abs(blank // size - gb // size) + abs(blank % size - gb % size)
    if _odd_permutation(tiles, goal_pos, seen) != distance % 2:
        a = 0 if tiles[0] != 0 else 1
        b = a + 1 if tiles[a + 1] != 0 else a + 2
        tiles[a], tiles[b] = tiles[b], tiles[a]


@kernel
def uniform_boards(words, first, count, size, goal):
    """``int8[count, size*size]``: instances ``first ..`` of the ``uniform`` source."""
    n = size * size
    goal_pos = np.empty(n, dtype=np.int64)
    for cell in range(n):
        goal_pos[goal[cell]] = cell
    out = np.empty((count, n), dtype=np.int8)
    rng, pool, entropy, state = _scratch(words)
    tiles = np.empty(n, dtype=np.int64)
    seen = np.empty(n, dtype=np.bool_)
    for k in range(count):
        _seed_rng(rng, words, first + k, pool, entropy, state)
        for cell in range(n):
            tiles[cell] = cell
        for i in range(n - 1, 0, -1):
            j = _interval(rng, i)
            tiles[i], tiles[j] = tiles[j], tiles[i]
        make_solvable(tiles, goal_pos, size, seen)
        for cell in range(n):
            out[k, cell] = tiles[cell]
    return out


@kernel
def walk_boards(words, first, count, goal, nbr, steps):
    """``int8[count, N]``: instances ``first ..`` of the ``walk:steps`` source
    (``nbr``: :func:`tilesweep.solver.geometry.neighbours`)."""
    n = len(goal)
    out = np.empty((count, n), dtype=np.int8)
    rng, pool, entropy, state = _scratch(words)
    options = np.empty(4, dtype=np.int64)
    start = 0
    while goal[start] != 0:
        start += 1
    for k in range(count):
        _seed_rng(rng, words, first + k, pool, entropy, state)
        for cell in range(n):
            out[k, cell] = goal[cell]
        blank, last = start, -1
        for _ in range(steps):
            n_options = 0
            for m in range(4):
                if nbr[blank, m] >= 0 and (last < 0 or m != 3 - last):
                    options[n_options] = m
                    n_options += 1
            move = options[_bounded(rng, n_options)]
            target = nbr[blank, move]
            out[k, blank] = out[k, target]
            out[k, target] = 0
            blank, last = target, move
    return out
