"""``tilesweep warm``: compile the numba kernels ahead, for those who would rather pay at install."""

from __future__ import annotations

import time
from typing import Annotated, Optional

import typer

from tilesweep.commands.exits import run_guarded
from tilesweep.commands.options import HEURISTIC_NAMES, typed


def warm(
    size: Annotated[Optional[list[int]], typer.Option(
        "--size", parser=typed("size"), help="Board width 3, 4 or 5; repeat for several (default: all three).")] = None,
    algorithm: Annotated[Optional[list[str]], typer.Option(
        "--algorithm", "-a", help="astar, idastar, bfs, dfs; repeat for several (default: all).")] = None,
    heuristic: Annotated[Optional[list[str]], typer.Option(
        "--heuristic", "-H", help=f"{HEURISTIC_NAMES}; repeat for several (default: every one offered for the size)."
    )] = None,
) -> None:
    """Compile every kernel a sweep or a solve can call into numba's cache, so that no later
    run compiles (minutes of CPU when nothing is narrowed; a second call loads them in seconds).

    Kernels are cached under $NUMBA_CACHE_DIR when it is set, else beside the installed
    sources, else in numba's per-user cache. Options narrow what is compiled.

    Example: tilesweep warm --size 3 --algorithm astar
    """
    from tilesweep.jobs.kernels import cache_folder, warm_steps
    from tilesweep.solver.geometry import SIZES
    from tilesweep.solver.solve import ALGORITHMS, check_algorithm

    sizes = tuple(size or SIZES)
    algorithms = tuple(run_guarded(lambda: [check_algorithm(a) for a in algorithm]) if algorithm else ALGORITHMS)
    if heuristic:
        run_guarded(lambda: _check_heuristics(heuristic, sizes))
    for step in run_guarded(lambda: warm_steps(sizes, algorithms, heuristic)):
        typer.echo(_run(step))
    typer.echo(f"numba's cache: {cache_folder().parent}")


def _run(step) -> str:
    """Run one step of :func:`~tilesweep.jobs.kernels.warm_steps` under the compile lock;
    what it did, as a line (it says so first when it waits or compiles)."""
    from tilesweep.commands.progress import KERNEL_NOTICES
    from tilesweep.jobs.kernels import compile_lock
    from tilesweep.solver.jit import watch_compiles
    started = time.perf_counter()
    with compile_lock(lambda: typer.echo(f"{step.label}: {KERNEL_NOTICES['waiting']}"), step.family), \
            watch_compiles(lambda: typer.echo(f"{step.label}: compiling…")) as watch:
        step.run()
    took = time.perf_counter() - started
    if watch.compiled:
        return f"{step.label}: compiled {len(watch.compiled)} kernel(s) in {took:.1f} s"
    return f"{step.label}: ready from numba's cache ({took:.1f} s)"


def _check_heuristics(names, sizes) -> None:
    """Each name must be a heuristic of at least one of ``sizes`` (else its error for the first)."""
    from tilesweep.solver.board import goal_tiles
    from tilesweep.solver.errors import TilesweepError
    from tilesweep.solver.heuristics import parse_heuristic
    for name in names:
        errors = []
        for size in sizes:
            try:
                parse_heuristic(name, size, goal_tiles("blank-last", size))
            except TilesweepError as err:
                errors.append(err)
        if len(errors) == len(sizes):
            raise errors[0]
