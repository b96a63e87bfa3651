"""SQL over finished sweeps with DuckDB: views ``results`` and ``summary``.

``results`` reads every ``results/part-*.parquet`` of the given sweeps in place
(``read_parquet`` over the file list, ``union_by_name`` so sweeps written before a column
was added still read; a missing column is null, but ``pruning``, which reads ``parent``
as :data:`~..schema.ADDED_DEFAULTS` says). Each row already carries its ``sweep``
name. ``summary`` is every sweep's ``summary.parquet`` with a ``sweep`` column in front
(a sweep interrupted before its summary was written is summarised in memory).
"""

from __future__ import annotations

import duckdb
import pyarrow as pa

from tilesweep.solver.errors import InvalidOptionError

from ..results import load_results
from ..schema import ADDED_DEFAULTS
from ..summary import summarize
from .sweeps import Sweep


def _literal(text: str) -> str:
    return "'" + str(text).replace("'", "''") + "'"


def _summary_select(con, index: int, sweep: Sweep) -> str:
    if sweep.summary_path.is_file():
        return f"SELECT {_literal(sweep.name)} AS sweep, * FROM read_parquet({_literal(sweep.summary_path)})"
    name = f"_summary_{index}"
    frame = summarize(load_results(sweep.folder))
    con.register(name, pa.Table.from_pandas(frame, preserve_index=False))
    return f"SELECT {_literal(sweep.name)} AS sweep, * FROM {name}"


def connect(sweeps: list[Sweep], summary: bool = True) -> duckdb.DuckDBPyConnection:
    """An in-memory DuckDB connection with the views ``results`` and (unless told not to)
    ``summary``."""
    con = duckdb.connect()
    con.execute("SET enable_progress_bar = false")  # no bar drawn over the command's output
    files = ", ".join(_literal(p) for s in sweeps for p in s.parts)
    parts = f"read_parquet([{files}], union_by_name = true)"
    present = {row[0] for row in con.sql(f"DESCRIBE SELECT * FROM {parts}").fetchall()}
    parent = _literal(ADDED_DEFAULTS["pruning"])
    pruning = (f"* REPLACE (coalesce(pruning, {parent}) AS pruning)" if "pruning" in present
               else f"*, {parent} AS pruning")  # parts from before the column: parent pruning
    con.execute(f"CREATE VIEW results AS SELECT {pruning} FROM {parts}")
    if not summary:
        return con
    selects = [_summary_select(con, i, s) for i, s in enumerate(sweeps)]
    con.execute("CREATE VIEW summary AS " + " UNION ALL BY NAME ".join(selects))
    return con


def _plain_numbers(table: pa.Table) -> pa.Table:
    """DuckDB's exact decimals (``sum`` of BIGINT is a HUGEINT) as int64, else float64."""
    for i, field in enumerate(table.schema):
        if pa.types.is_decimal(field.type):
            column = table.column(i)
            try:
                column = column.cast(pa.int64()) if field.type.scale == 0 else column.cast(pa.float64())
            except pa.ArrowInvalid:  # beyond int64
                column = column.cast(pa.float64())
            table = table.set_column(i, field.name, column)
    return table


def run_sql(con: duckdb.DuckDBPyConnection, query: str) -> pa.Table:
    """The result of ``query`` as an Arrow table; a query DuckDB refuses is one line."""
    try:
        result = con.sql(query)
        if result is None:
            raise InvalidOptionError(f"SQL {query!r} returns no rows; expected a SELECT query")
        return _plain_numbers(result.to_arrow_table())
    except duckdb.Error as err:
        first = str(err).strip().splitlines()[0] if str(err).strip() else type(err).__name__
        raise InvalidOptionError(f"SQL {query!r} failed: {first}") from None
