"""Limits a kernel checks while it searches: nodes generated and a deadline on a clock.

Kernels take ``limits``, an ``int64[LIMITS_LEN]`` array: the node budget, the time limit
in nanoseconds (0: none), the number of boards a graph search may store (its memory
budget) and the clock the time limit is on: wall time (``CLOCK_MONOTONIC``) or the CPU
time of the searching thread (``CLOCK_THREAD_CPUTIME_ID``, ``--cpu-time-limit``), which a
busy machine does not use up. The hot loops compare ``generated`` with one number,
``check_at``; only when it is reached does :func:`limit_hit` look at the budget and read
the clock (~80 ns through the vDSO), and :func:`next_check` sets the next stop at most
:data:`CHECK_EVERY` nodes on.
A solve that finishes is never touched by the checks, so its node counts do not change;
a timed-out one overshoots its deadline by at most one interval of nodes. A solve that
finds its goal after the deadline but before the next check is not reported as solved:
:func:`finished_late` makes it a timeout (reason ``late``).
"""

import numpy as np
from llvmlite import ir
from numba import types
from numba.core import cgutils
from numba.extending import intrinsic

from .jit import inline_kernel, kernel
from .status import BUDGET_NODES, LATE, RUNNING, SOLVED, TIMEOUT

LIMIT_NODES, LIMIT_NS, LIMIT_STATES, LIMIT_CLOCK = 0, 1, 2, 3
LIMITS_LEN = 4
WALL_CLOCK, CPU_CLOCK = 0, 1  # values of limits[LIMIT_CLOCK]
UNLIMITED = 1 << 62
# Nodes between two clock reads: 2**16 nodes take ~1 ms of IDA* + Manhattan and a few ms
# with heavier heuristics, so a timeout overshoots by milliseconds.
CHECK_EVERY = 1 << 16
# Under a time limit of T ns the clock is read at least every T / SLOWEST_NODE_NS nodes: a
# node costs far less than 1 us with every heuristic, so a timeout overshoots by less than
# its own limit, and a clock read (~80 ns) every 100+ nodes costs a few per cent at most.
SLOWEST_NODE_NS = 1000
# Linux clock ids: the same clocks as Python's time.monotonic_ns() and time.thread_time_ns()
CLOCK_MONOTONIC, CLOCK_THREAD_CPUTIME_ID = 1, 3


def _clock_codegen(clock_id: int):
    """Code reading ``clock_gettime(clock_id)`` in nanoseconds: a direct call to libc (no
    Python object, no ctypes pointer), so kernels that use it still compile with ``cache=True``."""
    def codegen(context, builder, signature, args):
        i32, i64 = ir.IntType(32), ir.IntType(64)
        timespec = ir.LiteralStructType([i64, i64])
        fnty = ir.FunctionType(i32, [i32, timespec.as_pointer()])
        fn = cgutils.get_or_insert_function(builder.module, fnty, "clock_gettime")
        ts = cgutils.alloca_once(builder, timespec)
        builder.call(fn, [ir.Constant(i32, clock_id), ts])
        sec = builder.load(cgutils.gep_inbounds(builder, ts, 0, 0))
        nsec = builder.load(cgutils.gep_inbounds(builder, ts, 0, 1))
        return builder.add(builder.mul(sec, ir.Constant(i64, 1_000_000_000)), nsec)
    return codegen


@intrinsic
def monotonic_ns(typingctx):
    """``clock_gettime(CLOCK_MONOTONIC)`` in nanoseconds (wall time), callable from nopython code."""
    return types.int64(), _clock_codegen(CLOCK_MONOTONIC)


@intrinsic
def thread_cpu_ns(typingctx):
    """``clock_gettime(CLOCK_THREAD_CPUTIME_ID)`` in nanoseconds, callable from nopython code:
    the CPU time of the calling thread, which a busy machine's other processes do not add to."""
    return types.int64(), _clock_codegen(CLOCK_THREAD_CPUTIME_ID)


def make_limits(max_nodes: int = UNLIMITED, time_limit: float | None = None,
                max_states: int = UNLIMITED, cpu_clock: bool = False) -> np.ndarray:
    """The ``limits`` array kernels take; ``time_limit`` seconds of CPU time with ``cpu_clock``."""
    limits = np.zeros(LIMITS_LEN, dtype=np.int64)
    limits[LIMIT_NODES] = max_nodes
    limits[LIMIT_NS] = 0 if time_limit is None else max(1, int(time_limit * 1e9))
    limits[LIMIT_STATES] = max_states
    limits[LIMIT_CLOCK] = CPU_CLOCK if cpu_clock else WALL_CLOCK
    return limits


@inline_kernel
def clock_ns(limits):
    """The time limit's clock now: this thread's CPU time or the monotonic clock."""
    if limits[LIMIT_CLOCK] == CPU_CLOCK:
        return thread_cpu_ns()
    return monotonic_ns()


@inline_kernel
def deadline_of(limits):
    """The clock reading at which the search times out (0: never); read at the start."""
    if limits[LIMIT_NS] <= 0:
        return np.int64(0)
    return clock_ns(limits) + limits[LIMIT_NS]


@inline_kernel
def start_counts(limits, generated=1):
    """A search's ``generated`` (1: the root), ``expanded`` (0), deadline
    (:func:`deadline_of`) and first limit check, at its start."""
    generated = np.int64(generated)
    return generated, np.int64(0), deadline_of(limits), next_check(generated, limits)


@inline_kernel
def limit_hit(generated, limits, deadline):
    """BUDGET_NODES, TIMEOUT, or RUNNING when the search may go on."""
    if generated >= limits[LIMIT_NODES]:
        return BUDGET_NODES
    if deadline > 0 and clock_ns(limits) >= deadline:
        return TIMEOUT
    return RUNNING


@kernel
def limits_checked(generated, limits, deadline):
    """:func:`limit_hit` and :func:`next_check` in a call of its own (not inlined): the
    per-tile IDA* contour's hot loop stays smaller, and Korf #1 ran 3-9 % faster in it."""
    return limit_hit(generated, limits, deadline), next_check(generated, limits)


@inline_kernel
def finished_late(code, wall_ns, cpu_ns, limits):
    """``code``, but LATE for a solve that was SOLVED after its time limit (``wall_ns`` and
    ``cpu_ns`` measured): found between two checks of the clock, past the deadline."""
    spent = cpu_ns if limits[LIMIT_CLOCK] == CPU_CLOCK else wall_ns
    if code == SOLVED and limits[LIMIT_NS] > 0 and spent > limits[LIMIT_NS]:
        return LATE
    return code


@inline_kernel
def next_check(generated, limits):
    """The node count at which the limits are checked next."""
    every = CHECK_EVERY
    if limits[LIMIT_NS] > 0:
        every = max(1, min(CHECK_EVERY, limits[LIMIT_NS] // SLOWEST_NODE_NS))
    return min(limits[LIMIT_NODES], generated + every)
