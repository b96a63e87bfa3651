"""CPU seconds numba spends compiling the README main job's kernels, per kernel and signature.

Run: ``python benchmarks/compile_times.py [--other DIR] [--min 0.3] [--two-at-once]``, DIR a checkout of
tilesweep with its own venv in ``DIR/.venv``. For each checkout (this one, then the other), a
fresh process with an empty ``NUMBA_CACHE_DIR`` warms what a chunk of the main job calls
(``jobs.kernels.warm_sweep_kernels``: 3x3, A* with manhattan, linear-conflict, pdb:4-4 and
pdb:5-3, seeded uniform boards), as the embedded cluster's fork server does on a first run.

Printed: the process CPU seconds and the wall seconds of the whole warm-up, then every
compile (kernel, argument types) that took at least ``--min`` CPU seconds, nested under the
kernel whose compile called it (a kernel's figure includes those nested in it). Process CPU
time counts this process only, so other work on the machine changes it little (cache and
memory contention: some). With ``--two-at-once`` the warm-up is the fork server's (a second
process compiles the kernel families after the first meanwhile, and this one loads them):
its CPU seconds are then added to the line (children's CPU time) and its compiles are not
listed.
"""

from __future__ import annotations

import argparse
import os
import subprocess
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
COMBOS = [("astar", h) for h in ("manhattan", "linear-conflict", "pdb:4-4", "pdb:5-3")]


def worker(minimum: float, two_at_once: bool) -> None:
    """In a fresh process: warm the main job's kernels, timing every compile numba does."""
    import time

    from numba.core import event

    from tilesweep.jobs.kernels import warm_sweep_kernels
    from tilesweep.solver.board import goal_tiles

    rows, open_ = [], []

    class Compiles(event.Listener):
        def on_start(self, ev):
            open_.append((len(rows), ev.data["dispatcher"].py_func.__qualname__, ev.data["args"],
                          time.process_time()))
            rows.append(None)  # its place: a compile is listed before those nested in it

        def on_end(self, ev):
            at, name, args, began = open_.pop()
            rows[at] = (len(open_), name, args, time.process_time() - began)

    began, wall = time.process_time(), time.perf_counter()
    with event.install_listener("numba:compile", Compiles()):
        warm_sweep_kernels(3, goal_tiles("blank-last", 3), COMBOS, "parent", "uniform",
                           **({"two_at_once": True} if two_at_once else {}))  # an older checkout has no such option
    children = os.times().children_user + os.times().children_system
    print(f"  warm-up: {time.process_time() - began:.1f} CPU s here"
          + (f" + {children:.1f} CPU s in the second process" if two_at_once else "")
          + f", {time.perf_counter() - wall:.1f} s wall, load average {os.getloadavg()[0]:.1f}")
    for depth, name, args, seconds in rows:
        if seconds >= minimum:
            shown = ", ".join(str(a) for a in args)
            print(f"  {'  ' * depth}{name} {seconds:.1f} s  ({shown[:100]}{'...' if len(shown) > 100 else ''})")


def measure(checkout: Path, minimum: float, two_at_once: bool) -> None:
    python = checkout / ".venv" / "bin" / "python"
    with tempfile.TemporaryDirectory() as cache:
        env = {**os.environ, "NUMBA_CACHE_DIR": cache}
        subprocess.run([str(python if python.exists() else sys.executable), str(Path(__file__).resolve()),
                        "--worker", str(minimum)] + (["--two-at-once"] if two_at_once else []),
                       cwd=checkout, env=env, check=True)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--other", type=Path, help="another checkout with its own .venv")
    parser.add_argument("--min", type=float, default=0.3, help="CPU seconds below which a compile is not listed")
    parser.add_argument("--two-at-once", action="store_true", help="warm as the fork server does, on two cores")
    parser.add_argument("--worker", type=float, help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.worker is not None:
        worker(args.worker, args.two_at_once)
        return
    for name, checkout in [("this", ROOT)] + ([("other", args.other.resolve())] if args.other else []):
        print(f"{name} ({checkout}):", flush=True)
        measure(checkout, args.min, args.two_at_once)


if __name__ == "__main__":
    main()
