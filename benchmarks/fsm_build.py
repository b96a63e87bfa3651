"""Building a pruning automaton against reading it from a file, per width and depth.

    python benchmarks/fsm_build.py

The figures behind keeping automata in the PDB store (docs/heuristics.md): wall and CPU
seconds of :func:`solver.fsm.build_automaton` (the string search compiled beforehand),
and of reading the same tables back from an ``.npy`` file and hashing it, as
:mod:`pdb_store.automata` does.
"""

from __future__ import annotations

import sys
import tempfile
import time
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from tilesweep.jobs.runrecord import machine_line  # noqa: E402
from tilesweep.pdb_store.files import sha256_file  # noqa: E402
from tilesweep.solver.fsm import build_automaton, duplicate_strings  # noqa: E402


def clocks(fn):
    """(result, wall seconds, CPU seconds) of ``fn()``."""
    wall, cpu = time.perf_counter(), time.process_time()
    out = fn()
    return out, time.perf_counter() - wall, time.process_time() - cpu


def main() -> None:
    print(machine_line())
    duplicate_strings(3, 4)  # compile the search
    with tempfile.TemporaryDirectory() as folder:
        for size, depth in ((3, 14), (4, 12), (4, 14)):
            table, build_wall, build_cpu = clocks(lambda s=size, d=depth: build_automaton(s, d))
            path = Path(folder) / f"fsm_{size}x{size}_depth{depth}.npy"
            np.save(path, np.stack([table.full, table.strict]))
            _, load_wall, load_cpu = clocks(lambda p=path: (sha256_file(p), np.load(p)))
            print(f"{size}x{size} depth {depth}: {table.strings:,} strings, {table.full.size // 4:,} states; "
                  f"build {build_wall:.3f} s wall, {build_cpu:.3f} s CPU; read and hash "
                  f"{load_wall * 1e3:.2f} ms wall, {load_cpu * 1e3:.2f} ms CPU ({path.stat().st_size:,} bytes)")


if __name__ == "__main__":
    main()
