"""Finished sweeps named on the command line: a sweep folder (``OUT/NAME`` with
``sweep.json`` and ``results/``), its ``results/`` folder, or a folder of sweep folders;
each sweep's parts verified against its manifest (:mod:`..verify`)."""

from __future__ import annotations

import json
from dataclasses import dataclass
from pathlib import Path

from tilesweep.solver.errors import InvalidOptionError

from ..verify import Verified, verify_sweep


@dataclass(frozen=True)
class Sweep:
    """One sweep folder: its spec (``sweep.json``), run record (``run.json``) and verified parts."""

    folder: Path
    spec: dict
    parts: tuple[Path, ...]
    run: dict
    verified: Verified

    @property
    def name(self) -> str:
        return self.spec.get("name") or self.folder.name

    @property
    def summary_path(self) -> Path:
        return self.folder / "summary.parquet"


def _read_json(path: Path, what: str) -> dict:
    try:
        data = json.loads(path.read_text())
    except (OSError, ValueError) as err:
        raise InvalidOptionError(f"{what} {str(path)!r} cannot be read as JSON ({err}); "
                                 "expected the file tilesweep sweep writes") from None
    if not isinstance(data, dict):
        raise InvalidOptionError(f"{what} {str(path)!r} is not a JSON object; expected a sweep spec")
    return data


def open_sweep(folder: Path) -> Sweep:
    """The sweep in ``folder`` (or in the sweep folder above a ``results/`` folder)."""
    if folder.name == "results" and (folder.parent / "sweep.json").is_file():
        folder = folder.parent
    spec = _read_json(folder / "sweep.json", "sweep spec")
    verified = verify_sweep(folder)
    parts = tuple(verified.paths)
    if not parts:
        raise InvalidOptionError(f"sweep {str(folder)!r} holds no results/part-*.parquet yet; "
                                 "run (or resume) the sweep first")
    run = _read_json(folder / "run.json", "run record") if (folder / "run.json").is_file() else {}
    return Sweep(folder, spec, parts, run, verified)


def open_sweeps(paths) -> list[Sweep]:
    """Every sweep the given paths name, in order; one line naming a bad path otherwise."""
    sweeps = []
    for text in paths:
        path = Path(text)
        if not path.exists():
            raise InvalidOptionError(f"sweep {text!r} does not exist; expected a sweep folder "
                                     "(OUT/NAME, written by tilesweep sweep)")
        if (path / "sweep.json").is_file() or (path.name == "results" and (path.parent / "sweep.json").is_file()):
            sweeps.append(open_sweep(path))
            continue
        inner = sorted(p.parent for p in path.glob("*/sweep.json")) if path.is_dir() else []
        if not inner:
            raise InvalidOptionError(f"{text!r} is not a sweep folder (no sweep.json); expected OUT/NAME "
                                     "as written by tilesweep sweep, or a folder of them")
        sweeps.extend(open_sweep(p) for p in inner)
    if not sweeps:
        raise InvalidOptionError("no sweep given; expected at least one sweep folder")
    return sweeps
