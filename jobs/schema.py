"""The one fixed schema of result rows, and the conversion of row dicts to Arrow.

``iterations`` is JSON text (a list of ``{"bound", "nodes_generated"}`` for IDA*, null
otherwise): it reads the same in pandas, pyarrow, DuckDB (``json_extract``) and CSV.
``error`` holds the message of a solve that raised (status ``error``), else null.
``status`` and ``status_reason`` use the vocabulary of :mod:`solver.status`; ``max_nodes``,
``time_limit`` (seconds) and ``max_memory`` (bytes a graph search may store) are the
limits the row ran under (null: none). ``pruning`` is how the search pruned duplicate
paths: ``parent`` (never undo the last move) or ``fsm:DEPTH`` (:mod:`solver.fsm`).
``heuristic_version`` is the sha256 of a plugin heuristic's source (of each plugin of a
``max``, joined by ``+``), null for the built-in heuristics. ``seconds`` is a solve's wall
time, ``cpu_seconds`` the CPU time of the thread that solved it (null in parts written
before the column: unknown, never 0); ``cpu_time_limit`` the limit in seconds of that CPU
time the row ran under (null: none; a row has a ``time_limit`` or a ``cpu_time_limit``).
``conventions`` names what the search did and counted (:mod:`solver.conventions`: ``korf``,
tilesweep's own accounting, in every part written before the column).
``timings`` is how many times a solve of a ``--repeat K`` sweep was timed (K), with the
min and median of its wall (``seconds_min``, ``seconds_median``) and CPU seconds
(``cpu_seconds_min``, ``cpu_seconds_median``); ``seconds`` and ``cpu_seconds`` then hold
the medians. All five are null on a row timed once (no ``--repeat``, or not solved).

Columns are only ever added, at the end (:data:`ADDED_COLUMNS` lists each with the first
format that has it). A part written before a column existed still reads: the column
is filled with nulls (:func:`upgrade_table`).
"""

from __future__ import annotations

import json

import pyarrow as pa

from tilesweep.solver.status import STATUSES  # noqa: F401 - the vocabulary, re-exported

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
    ("status_reason", pa.string()),
    ("max_nodes", pa.int64()),
    ("time_limit", pa.float64()),
    ("max_memory", pa.int64()),
    ("pruning", pa.string()),
    ("heuristic_version", pa.string()),
    ("cpu_seconds", pa.float64()),
    ("cpu_time_limit", pa.float64()),
    ("timings", pa.int64()),
    ("seconds_min", pa.float64()),
    ("seconds_median", pa.float64()),
    ("cpu_seconds_min", pa.float64()),
    ("cpu_seconds_median", pa.float64()),
    ("conventions", pa.string()),
])
COLUMNS = tuple(RESULT_SCHEMA.names)
# Columns that depend on where and when a row ran, not on the spec: a resumed or
# re-run sweep matches its first run on every other column. ``max_memory`` is there
# because without --max-memory it is derived from the free memory of the worker.
TIMING_COLUMNS = ("seconds", "worker", "max_memory", "cpu_seconds", "seconds_min", "seconds_median",
                  "cpu_seconds_min", "cpu_seconds_median")
ADDED_COLUMNS = ("status_reason", "max_nodes", "time_limit", "max_memory",  # tilesweep 0.3
                 "pruning",  # tilesweep 0.4
                 "heuristic_version",
                 "cpu_seconds", "cpu_time_limit",
                 "timings", "seconds_min", "seconds_median", "cpu_seconds_min", "cpu_seconds_median",
                 "conventions")
# What an added column means in a part written before it: rows before ``pruning`` all
# used parent pruning, rows before ``conventions`` korf's; the other columns are unknown (null).
ADDED_DEFAULTS = {"pruning": "parent", "conventions": "korf"}


def upgrade_table(table: pa.Table) -> pa.Table | None:
    """``table`` in :data:`RESULT_SCHEMA` (missing added columns as nulls), or None when its
    columns are not a tilesweep result schema of any version."""
    schema = table.schema.remove_metadata()
    n_old = len(COLUMNS) - len(ADDED_COLUMNS)
    names = schema.names
    if names != list(COLUMNS[:len(names)]) or len(names) < n_old:
        return None
    if not all(schema.field(name).type == RESULT_SCHEMA.field(name).type for name in names):
        return None
    for name in COLUMNS[len(names):]:
        field = RESULT_SCHEMA.field(name)
        fill = ADDED_DEFAULTS.get(name)
        column = pa.nulls(table.num_rows, field.type) if fill is None else pa.array([fill] * table.num_rows, field.type)
        table = table.append_column(field, column)
    return table


def normalise_row(row: dict) -> dict:
    """A row with exactly the schema's columns; ``iterations`` as JSON text."""
    out = {name: row.get(name) for name in COLUMNS}
    if out["iterations"] is not None and not isinstance(out["iterations"], str):
        out["iterations"] = json.dumps(out["iterations"], separators=(",", ":"))
    return out


def columns_to_table(columns: dict) -> pa.Table:
    """Arrow table in :data:`RESULT_SCHEMA` of ``columns`` (name -> equal-length sequences;
    a column not given is null)."""
    length = len(next(iter(columns.values())))
    return pa.table([columns[f.name] if f.name in columns else pa.nulls(length, f.type) for f in RESULT_SCHEMA],
                    schema=RESULT_SCHEMA)


def rows_to_table(rows: list[dict], metadata: dict[bytes, bytes] | None = None) -> pa.Table:
    """Arrow table of ``rows`` in :data:`RESULT_SCHEMA`, with key-value ``metadata``."""
    schema = RESULT_SCHEMA.with_metadata(metadata) if metadata else RESULT_SCHEMA
    columns = {name: [r[name] for r in rows] for name in COLUMNS}
    return pa.Table.from_pydict(columns, schema=schema)
