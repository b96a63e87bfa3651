"""The one fixed schema of result rows, and the conversion of row dicts to Arrow.

``iterations`` is JSON text (a list of ``{"bound", "nodes_generated"}`` for IDA*, null
otherwise): it reads the same in pandas, pyarrow, DuckDB (``json_extract``) and CSV.
``error`` holds the message of a solve that raised (status ``error``), else null.
"""

from __future__ import annotations

import json

import pyarrow as pa

STATUSES = ("solved", "unsolvable", "budget_exceeded", "depth_limit", "error")
SPEC_KEY = b"tilesweep.spec"
CHUNK_KEY = b"tilesweep.chunk"

RESULT_SCHEMA = pa.schema([
    ("sweep", pa.string()),
    ("instance", pa.int64()),
    ("size", pa.int64()),
    ("goal", pa.string()),
    ("tiles", pa.string()),
    ("algorithm", pa.string()),
    ("heuristic", pa.string()),
    ("status", pa.string()),
    ("cost", pa.int64()),
    ("moves", pa.string()),
    ("nodes_generated", pa.int64()),
    ("nodes_expanded", pa.int64()),
    ("ebf", pa.float64()),
    ("h0", pa.int64()),
    ("max_depth", pa.int64()),
    ("iterations", pa.string()),
    ("seconds", pa.float64()),
    ("worker", pa.string()),
    ("error", pa.string()),
])
COLUMNS = tuple(RESULT_SCHEMA.names)
TIMING_COLUMNS = ("seconds", "worker")


def normalise_row(row: dict) -> dict:
    """A row with exactly the schema's columns; ``iterations`` as JSON text."""
    out = {name: row.get(name) for name in COLUMNS}
    if out["iterations"] is not None and not isinstance(out["iterations"], str):
        out["iterations"] = json.dumps(out["iterations"], separators=(",", ":"))
    return out


def rows_to_table(rows: list[dict], metadata: dict[bytes, bytes] | None = None) -> pa.Table:
    """Arrow table of ``rows`` in :data:`RESULT_SCHEMA`, with key-value ``metadata``."""
    schema = RESULT_SCHEMA.with_metadata(metadata) if metadata else RESULT_SCHEMA
    columns = {name: [r[name] for r in rows] for name in COLUMNS}
    return pa.Table.from_pydict(columns, schema=schema)
