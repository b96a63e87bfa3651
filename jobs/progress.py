"""What a sweep folder holds right now: its spec, parts written, rows and status counts.

Read-only: a sweep that is still running (on a local cluster or on any scheduler) records
each part in its manifest as it renames it into place, so the recorded parts present at
any moment are the chunks finished so far. The parts are checked against the manifest
(:func:`~.verify.verify_sweep`; by name and size only, unless ``hashing``), and a problem
is the state's ``problem``. Status counts read only the ``status`` column, once per part
version (a part never changes after its rename).
"""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass, field
from functools import lru_cache
from pathlib import Path

import pyarrow.parquet as pq

from tilesweep.solver.errors import InvalidOptionError, TilesweepError

from .parts import UNREADABLE, CorruptPartError
from .schema import STATUSES
from .spec import SweepSpec
from .verify import Verified, verify_sweep

SPEC_FILE = "sweep.json"


@dataclass
class SweepState:
    """One sweep folder as it is now; ``problem`` names what could not be read."""

    name: str
    folder: Path
    spec: SweepSpec | None = None
    parts: int = 0
    rows: int = 0
    statuses: dict[str, int] = field(default_factory=dict)
    updated: float = 0.0
    problem: str | None = None
    verified: Verified | None = field(default=None, repr=False)

    @property
    def chunks(self) -> int | None:
        return self.spec.n_chunks if self.spec else None

    @property
    def expected_rows(self) -> int | None:
        return self.spec.count * len(self.spec.combos) if self.spec else None

    @property
    def complete(self) -> bool:
        return self.spec is not None and self.problem is None and self.parts == self.spec.n_chunks


@lru_cache(maxsize=4096)
def _part_counts(path: str, mtime_ns: int, size: int) -> tuple[tuple[str, int], ...]:
    """Status counts of one part version (keyed by its mtime and size)."""
    try:
        column = pq.read_table(path, columns=["status"]).column("status").to_pylist()
    except (*UNREADABLE, KeyError) as err:
        raise CorruptPartError(f"results part {path!r} cannot be read ({err}); "
                               "rerun the sweep, which moves it aside and recomputes its chunk") from None
    return tuple(Counter(column).items())


def order_statuses(counts: Counter) -> dict[str, int]:
    """Counts in the library's status order, then any other status seen, zeros included."""
    ordered = {s: int(counts.get(s, 0)) for s in STATUSES}
    ordered.update({s: int(n) for s, n in counts.items() if s not in ordered})
    return ordered


def sweep_state(folder: str | Path, hashing: bool = False) -> SweepState:
    """The state of the sweep in ``folder`` (``OUT/NAME``); a folder without a spec is refused.
    With ``hashing``, every part's sha256 is checked too (``verified`` holds the parts then)."""
    folder = Path(folder)
    spec_path = folder / SPEC_FILE
    if not spec_path.is_file():
        raise InvalidOptionError(f"sweep {folder.name!r} does not exist in {str(folder.parent)!r}; "
                                 "expected a folder holding sweep.json")
    state = SweepState(folder.name, folder, updated=spec_path.stat().st_mtime)
    try:
        state.spec = SweepSpec.from_json(spec_path.read_text())
        state.verified = verify_sweep(folder, hashing)
        _count_parts(state)
    except (OSError, ValueError, TypeError, KeyError, TilesweepError) as err:
        state.problem = (str(err) if isinstance(err, TilesweepError)
                         else f"{str(spec_path)!r} is not a tilesweep spec ({err})")
    return state


def _count_parts(state: SweepState) -> None:
    counts: Counter = Counter()
    for path in state.verified.paths:
        stat = path.stat()
        part = dict(_part_counts(str(path), stat.st_mtime_ns, stat.st_size))
        counts.update(part)
        state.parts += 1
        state.rows += sum(part.values())
        state.updated = max(state.updated, stat.st_mtime)
    state.statuses = order_statuses(counts)


def list_sweeps(out: str | Path) -> list[SweepState]:
    """Every sweep under ``out`` (folders holding ``sweep.json``), newest first."""
    out = Path(out)
    if not out.is_dir():
        return []
    states = [sweep_state(p.parent) for p in out.glob(f"*/{SPEC_FILE}")]
    return sorted(states, key=lambda s: s.updated, reverse=True)
