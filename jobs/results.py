"""Reading results back: a sweep folder, its ``results/`` folder, one part, or a folder of sweeps."""

from __future__ import annotations

from pathlib import Path

import pandas as pd
import pyarrow as pa

from tilesweep.solver.errors import InvalidOptionError

from .parts import read_part
from .schema import RESULT_SCHEMA


def part_paths(path: str | Path) -> list[Path]:
    """Every results part under ``path``, in name order (sweep, then chunk)."""
    path = Path(path)
    if path.is_file():
        return [path]
    if not path.is_dir():
        raise InvalidOptionError(f"results {str(path)!r} do not exist; expected a sweep folder "
                                 "(OUT/NAME), its results/ folder or a .parquet part")
    if path.name == "results" or any(path.glob("part-*.parquet")):
        parts = sorted(path.glob("part-*.parquet"))
    elif (path / "results").is_dir():
        parts = sorted((path / "results").glob("part-*.parquet"))
    else:
        parts = sorted(path.glob("*/results/part-*.parquet"))
    if not parts:
        raise InvalidOptionError(f"results {str(path)!r} hold no part-*.parquet files; run a sweep first")
    return parts


def load_table(path: str | Path, columns: list[str] | None = None) -> pa.Table:
    """All rows under ``path`` as one Arrow table (only ``columns``, when given, in the
    order of the schema); a part that fails to read is named."""
    tables = [read_part(p, columns).replace_schema_metadata(None) for p in part_paths(path)]
    if tables:
        return pa.concat_tables(tables)
    return RESULT_SCHEMA.empty_table().select([c for c in RESULT_SCHEMA.names if columns is None or c in columns])


def load_results(path: str | Path, columns: list[str] | None = None) -> pd.DataFrame:
    """All rows under ``path`` as a DataFrame (nullable integer columns stay nullable);
    with ``columns``, only those are read."""
    return load_table(path, columns).to_pandas(types_mapper={pa.int64(): pd.Int64Dtype()}.get)
