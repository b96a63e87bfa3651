"""The statuses a solve ends with: one vocabulary from the kernels to the result rows.

Kernels return one of the integer codes below; :data:`OUTCOMES` turns a code into the
``(status, status_reason)`` pair that ``SolveResult``, the Parquet rows and the summary
use. A status has a reason only where it has several causes:

========================  ==========================================================
status                    meaning (``status_reason``)
========================  ==========================================================
``solved``                a solution was found (optimal for A*, IDA*, BFS)
``unsolvable``            the parity test proved that no solution exists; no search
``budget_exceeded``       a limit on the search's size: ``nodes`` (``--max-nodes``) or
                          ``memory`` (the states A*/BFS/DFS may store, from the memory
                          limit)
``timeout``               ``--time-limit`` (or ``--cpu-time-limit``) seconds passed:
                          ``late`` when the goal was found, but after the limit
                          (between two checks of the clock), else no reason
``too_deep``              the solution would be longer than the kernel can hold
                          (IDA*: 256 moves; A*: 1,023)
``too_many_iterations``   IDA* ran 1,024 iterations without reaching the goal
``error``                 the solve did not finish: ``exception`` (it raised; the
                          ``error`` column has the message), ``worker_died`` (the
                          process running it died, again and again), ``exhausted`` (the
                          search ran out of nodes on a solvable board: a bug),
                          ``heuristic`` (a plugin heuristic returned a negative h),
                          ``repeat`` (a ``--repeat K`` sweep's timings of the solve
                          disagreed in status, cost, moves or node counts)
========================  ==========================================================
"""

SOLVED = 0
BUDGET_NODES = 1
BUDGET_MEMORY = 2
TIMEOUT = 3
TOO_DEEP = 4
TOO_MANY_ITERATIONS = 5
EXHAUSTED = 6
BAD_HEURISTIC = 7  # a plugin heuristic returned a negative h
LATE = 8  # solved, but after the time limit: not counted as solved
RUNNING = -1  # not a result: what the limit checks return while the search may go on

OUTCOMES = {
    SOLVED: ("solved", None),
    BUDGET_NODES: ("budget_exceeded", "nodes"),
    BUDGET_MEMORY: ("budget_exceeded", "memory"),
    TIMEOUT: ("timeout", None),
    TOO_DEEP: ("too_deep", None),
    TOO_MANY_ITERATIONS: ("too_many_iterations", None),
    EXHAUSTED: ("error", "exhausted"),
    BAD_HEURISTIC: ("error", "heuristic"),
    LATE: ("timeout", "late"),
}

STATUSES = ("solved", "unsolvable", "budget_exceeded", "timeout", "too_deep", "too_many_iterations", "error")
REASONS = {"budget_exceeded": ("nodes", "memory"), "timeout": ("late",),
           "error": ("exception", "worker_died", "exhausted", "heuristic", "repeat")}


def outcome(code: int) -> tuple[str, str | None]:
    """``(status, status_reason)`` of a kernel's return code."""
    return OUTCOMES[int(code)]
