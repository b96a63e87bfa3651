"""Reading results back: a sweep folder, its ``results/`` folder, one of its parts, or a
folder of sweeps; every part verified against its sweep's manifest first (:mod:`.verify`)."""

from __future__ import annotations

from pathlib import Path

import pandas as pd
import pyarrow as pa

from tilesweep.solver.errors import InvalidOptionError

from .parts import read_part
from .schema import RESULT_SCHEMA
from .verify import Verified, verify_sweep

EXPECTED = "expected a sweep folder (OUT/NAME), its results/ folder, one of its parts or a folder of sweeps"


def _is_sweep(folder: Path) -> bool:
    return (folder / "sweep.json").is_file()


def verify_results(path: str | Path) -> list[Verified]:
    """Each sweep ``path`` names, its parts verified (only the one part, for a part's path)."""
    path = Path(path)
    if path.is_file():
        if path.parent.name != "results" or not _is_sweep(path.parent.parent):
            raise InvalidOptionError(f"results {str(path)!r} are not a part of a sweep folder (no sweep.json "
                                     f"beside its results/ folder), so they cannot be verified; {EXPECTED}")
        return [verify_sweep(path.parent.parent, names={path.name})]
    if not path.is_dir():
        raise InvalidOptionError(f"results {str(path)!r} do not exist; {EXPECTED}")
    if path.name == "results" and _is_sweep(path.parent):
        path = path.parent
    folders = [path] if _is_sweep(path) else sorted(p.parent for p in path.glob("*/sweep.json"))
    if not folders:
        raise InvalidOptionError(f"results {str(path)!r} are not a sweep folder (no sweep.json); {EXPECTED}")
    return [verify_sweep(folder) for folder in folders]


def part_paths(path: str | Path) -> list[Path]:
    """Every verified results part under ``path``, in name order (sweep, then chunk)."""
    parts = [p for sweep in verify_results(path) for p in sweep.paths]
    if not parts:
        raise InvalidOptionError(f"results {str(path)!r} hold no parts yet; run (or resume) the sweep first")
    return parts


def load_table(path: str | Path | list[Path], columns: list[str] | None = None) -> pa.Table:
    """All rows under ``path`` (or of the verified parts listed) as one Arrow table (only
    ``columns``, when given, in the order of the schema); a part that fails to read is named."""
    paths = path if isinstance(path, list) else part_paths(path)
    tables = [read_part(p, columns).replace_schema_metadata(None) for p in paths]
    if tables:
        return pa.concat_tables(tables)
    return RESULT_SCHEMA.empty_table().select([c for c in RESULT_SCHEMA.names if columns is None or c in columns])


def load_results(path: str | Path, columns: list[str] | None = None) -> pd.DataFrame:
    """All rows under ``path`` as a DataFrame (nullable integer columns stay nullable);
    with ``columns``, only those are read."""
    return load_table(path, columns).to_pandas(types_mapper={pa.int64(): pd.Int64Dtype()}.get)
