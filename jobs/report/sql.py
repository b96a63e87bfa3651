"""SQL over finished sweeps with DuckDB: views ``results`` and ``summary``, read-only by default.

``results`` reads every verified ``results/part-*.parquet`` of the given sweeps in place
(``read_parquet`` over the file list, ``union_by_name`` so sweeps written before a column
was added still read; a missing column is null, even when no part has it, but ``pruning``,
which reads ``parent`` as :data:`~..schema.ADDED_DEFAULTS` says). Each row already carries its ``sweep``
name. ``summary`` is every sweep's ``summary.parquet`` with a ``sweep`` column in front,
when the manifest says it summarises the parts present (else, e.g. for a sweep interrupted
before its summary was written or whose parts changed since, it is summarised in memory).

Read-only (the default): once the views exist, DuckDB may open only the files they read
(``allowed_paths``) with external access off and its configuration locked, and a query
must be exactly one ``SELECT`` (``WITH``, ``FROM``-first, ``DESCRIBE``, ``SUMMARIZE`` and
``SHOW`` are SELECTs to DuckDB): ``COPY``, ``ATTACH``, ``SET``, ``INSTALL``, file readers
such as ``read_csv('/etc/passwd')`` and a second statement are refused.
"""

from __future__ import annotations

import duckdb
import pyarrow as pa

from tilesweep.solver.errors import InvalidOptionError

from ..manifest import CorruptPartError
from ..schema import ADDED_COLUMNS, ADDED_DEFAULTS, RESULT_SCHEMA
from ..summary import summarize
from .sweeps import Sweep

ALLOW_WRITES = "--allow-writes runs any DuckDB statements with full file access"
SQL_TYPES = {pa.string(): "VARCHAR", pa.int64(): "BIGINT", pa.float64(): "DOUBLE"}


def _literal(text) -> str:
    return "'" + str(text).replace("'", "''") + "'"


def _summary_select(con, index: int, sweep: Sweep) -> tuple[str, list]:
    """The SELECT of one sweep's summary and the file it reads, if any."""
    current = sweep.verified.current_summary()
    if current is not None:
        return f"SELECT {_literal(sweep.name)} AS sweep, * FROM read_parquet({_literal(current)})", [current]
    name = f"_summary_{index}"
    record = sweep.verified.summary or {}
    frame = summarize(list(sweep.parts), record.get("baseline"))
    con.register(name, pa.Table.from_pandas(frame, preserve_index=False))
    return f"SELECT {_literal(sweep.name)} AS sweep, * FROM {name}", []


def _views(con, sweeps: list[Sweep], summary: bool) -> list:
    """Create the views; return the files they read."""
    paths = [p.resolve() for s in sweeps for p in s.parts]
    parts = f"read_parquet([{', '.join(_literal(p) for p in paths)}], union_by_name = true)"
    present = {row[0] for row in con.sql(f"DESCRIBE SELECT * FROM {parts}").fetchall()}
    parent = _literal(ADDED_DEFAULTS["pruning"])
    pruning = (f"* REPLACE (coalesce(pruning, {parent}) AS pruning)" if "pruning" in present
               else f"*, {parent} AS pruning")  # parts from before the column: parent pruning
    absent = [f"NULL::{SQL_TYPES[RESULT_SCHEMA.field(name).type]} AS {name}"
              for name in ADDED_COLUMNS if name not in present and name != "pruning"]
    con.execute(f"CREATE VIEW results AS SELECT {', '.join([pruning, *absent])} FROM {parts}")
    if summary:
        selects = [_summary_select(con, i, s) for i, s in enumerate(sweeps)]
        con.execute("CREATE VIEW summary AS " + " UNION ALL BY NAME ".join(sql for sql, _ in selects))
        paths += [p.resolve() for _, files in selects for p in files]
    return paths


def _read_only(con, paths: list) -> None:
    """Let DuckDB open only ``paths`` from now on, for good."""
    con.execute(f"SET allowed_paths = [{', '.join(_literal(p) for p in paths)}]")
    con.execute("SET enable_external_access = false")
    con.execute("SET lock_configuration = true")


def connect(sweeps: list[Sweep], summary: bool = True, allow_writes: bool = False) -> duckdb.DuckDBPyConnection:
    """An in-memory DuckDB connection with the views ``results`` and (unless told not to)
    ``summary``; without ``allow_writes`` it reads only the files of those views."""
    con = duckdb.connect()
    con.execute("SET enable_progress_bar = false")  # no bar drawn over the command's output
    try:
        paths = _views(con, sweeps, summary)
    except duckdb.Error as err:  # a part changed since it was verified
        raise CorruptPartError(f"results cannot be read: {_first_line(err)}; rerun the sweep, which moves "
                               "damaged parts aside and recomputes them") from None
    if not allow_writes:
        _read_only(con, paths)
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


def _first_line(err: BaseException) -> str:
    return str(err).strip().splitlines()[0] if str(err).strip() else type(err).__name__


def _statements(con, query: str, allow_writes: bool) -> list[str]:
    """The statements of ``query``; read-only, exactly one SELECT or a one-line refusal."""
    statements = con.extract_statements(query)
    if allow_writes:
        return [s.query for s in statements]
    if len(statements) != 1:
        raise InvalidOptionError(f"SQL {query!r} holds {len(statements)} statements; expected exactly one "
                                 f"SELECT ({ALLOW_WRITES})")
    kind = statements[0].type.name
    if kind != "SELECT":
        raise InvalidOptionError(f"SQL {query!r} is refused: tilesweep sql is read-only and runs one SELECT, "
                                 f"not {kind} ({ALLOW_WRITES})")
    return [statements[0].query]


def run_sql(con: duckdb.DuckDBPyConnection, query: str, allow_writes: bool = False) -> pa.Table | None:
    """The result of ``query`` as an Arrow table (None for a last statement without rows,
    with ``allow_writes``); a query DuckDB or the read-only rules refuse is one line."""
    try:
        result = None
        for statement in _statements(con, query, allow_writes):
            result = con.sql(statement)
        if result is None and not allow_writes:
            raise InvalidOptionError(f"SQL {query!r} returns no rows; expected a SELECT query")
        return None if result is None else _plain_numbers(result.to_arrow_table())
    except duckdb.PermissionException as err:
        raise InvalidOptionError(f"SQL {query!r} was refused: {_first_line(err)}; tilesweep sql reads only the "
                                 f"views results and summary of the sweeps given ({ALLOW_WRITES})") from None
    except duckdb.IOException as err:
        raise CorruptPartError(f"SQL {query!r} could not read its files: {_first_line(err)}") from None
    except duckdb.Error as err:
        raise InvalidOptionError(f"SQL {query!r} failed: {_first_line(err)}") from None
