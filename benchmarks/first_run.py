"""The README's main job on a machine that has never run it, then again: first and warm run,
and how far the progress line's ETA was from the truth.

Run: ``python benchmarks/first_run.py [--other DIR] [--burners N] [--count K]``, DIR a
checkout of tilesweep with its own venv in ``DIR/.venv``. For each checkout (this one, then
the other), in a fresh temporary folder:

* the first run: ``tilesweep sweep --size 3 --count K --algorithm astar --heuristic manhattan
  --heuristic linear-conflict --heuristic pdb:4-4 --heuristic pdb:5-3`` with an empty
  ``NUMBA_CACHE_DIR`` and ``PYTHONPYCACHEPREFIX`` (no compiled kernel, no bytecode), an
  empty ``--store`` and a new ``--out``: kernels compile, tables build;
* the warm run: the same command with that cache and store, a new ``--out``.

Each command's wall time is measured from outside, with the load average before and after.
Its stderr is a pseudo-terminal, so the progress line is redrawn after every part, as a
user sees it; every ETA it shows is compared with the time that was really left until the
last part (the ratio ETA / real remaining; 1 is exact, above 1 too long). ``--burners N``
runs N CPU-bound processes beside each command (the "under load" case).
"""

from __future__ import annotations

import argparse
import os
import pty
import re
import select
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
JOB = ["sweep", "--size", "3", "--algorithm", "astar", "--heuristic", "manhattan", "--heuristic", "linear-conflict",
       "--heuristic", "pdb:4-4", "--heuristic", "pdb:5-3", "--format", "csv"]
ETA = re.compile(r"(\d+)/(\d+) chunks .* ETA (\d+):(\d\d)")


def run(checkout: Path, args: list[str], env: dict) -> tuple[float, list[tuple[float, str]]]:
    """(wall seconds, [(seconds since start, stderr line)]) of ``tilesweep ARGS`` run from
    ``checkout`` with its stderr on a pseudo-terminal."""
    master, slave = pty.openpty()
    start = time.perf_counter()
    proc = subprocess.Popen([str(checkout / ".venv" / "bin" / "python"), str(checkout / "cli.py"), *args],
                            stdout=subprocess.DEVNULL, stderr=slave, env=env, cwd=checkout)
    os.close(slave)
    lines, pending = [], b""
    while True:
        ready, _, _ = select.select([master], [], [], 0.5)
        if ready:
            try:
                chunk = os.read(master, 65536)
            except OSError:  # the terminal closed: the command ended
                chunk = b""
            if not chunk and proc.poll() is not None:
                break
            now = time.perf_counter() - start
            pending += chunk
            *done, pending = re.split(rb"[\r\n]", pending)
            lines += [(now, d.decode(errors="replace").replace("\x1b[K", "")) for d in done if d.strip()]
        elif proc.poll() is not None:
            break
    wall = time.perf_counter() - start
    os.close(master)
    if proc.wait() != 0:
        sys.exit(f"{checkout}: {' '.join(args)} failed:\n" + "\n".join(text for _, text in lines[-20:]))
    return wall, lines


def eta_ratios(lines: list[tuple[float, str]]) -> list[tuple[float, float, float]]:
    """(time, ETA shown, real time left) of every progress line before the last part."""
    parts = [(t, int(m[1]), int(m[2]), 60 * int(m[3]) + int(m[4])) for t, text in lines if (m := ETA.search(text))]
    if not parts:
        return []
    end = next(t for t, done, total, _ in parts if done == total)
    return [(t, eta, end - t) for t, done, total, eta in parts if done < total]


def burn() -> subprocess.Popen:
    return subprocess.Popen([sys.executable, "-c", "while True: pass"])


def measure(name: str, checkout: Path, count: int, burners: int) -> None:
    with tempfile.TemporaryDirectory() as tmp:
        tmp = Path(tmp)
        # a fresh clone: numba's cache and Python's bytecode cache both empty
        env = {**os.environ, "NUMBA_CACHE_DIR": str(tmp / "numba"), "PYTHONPYCACHEPREFIX": str(tmp / "pycache")}
        for label, out in (("first", "first"), ("warm", "warm")):
            hogs = [burn() for _ in range(burners)]
            try:
                before = os.getloadavg()[0]
                wall, lines = run(checkout, [*JOB, "--count", str(count), "--out", str(tmp / out),
                                             "--store", str(tmp / "store")], env)
                after = os.getloadavg()[0]
            finally:
                for hog in hogs:
                    hog.kill()
                    hog.wait()
            ratios = eta_ratios(lines)
            worst = max(ratios, key=lambda r: r[1] / max(r[2], 1.0), default=None)
            shown = ", ".join(f"{eta}s@{t:.0f}s (left {left:.1f})" for t, eta, left in ratios[:4])
            print(f"{name:5s} {label:5s} run: {wall:6.1f} s  load {before:.1f} -> {after:.1f}  "
                  f"burners {burners}", flush=True)
            for t, text in lines:
                if "compil" in text or "wall time" in text or "waiting" in text:
                    print(f"      {t:6.1f} s  {text}")
            if worst is not None:
                print(f"      ETAs shown (first four): {shown}")
                print(f"      worst ETA / real remaining: {worst[1]} s / {worst[2]:.1f} s = "
                      f"{worst[1] / max(worst[2], 1.0):.2f} (remaining below 1 s counted as 1 s)")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--other", type=Path, help="another checkout with its own .venv")
    parser.add_argument("--count", type=int, default=10000)
    parser.add_argument("--burners", type=int, default=0, help="CPU-bound processes beside each command")
    args = parser.parse_args()
    print(f"load average at the start: {os.getloadavg()}")
    measure("this", ROOT, args.count, args.burners)
    if args.other:
        measure("other", args.other.resolve(), args.count, args.burners)


if __name__ == "__main__":
    main()
