"""``tilesweep query``: filter, group, aggregate, sort and limit result rows with pandas.

``--where`` is a :meth:`pandas.DataFrame.query` expression (``status == "solved" and
cost > 20``), checked first for its syntax and its column names; ``--group-by`` a comma
list of columns; ``--agg COL:FN`` with FN one of :data:`AGGREGATES` (``p90`` / ``p50`` ...
are quantiles); ``--sort COL`` ascending, or ``-COL`` descending; ``--columns`` the columns
shown, ``all``, or by default :data:`TABLE_COLUMNS` when rows are listed as a text table
(every column in csv, json and parquet, and every column of an aggregation).
"""

from __future__ import annotations

import ast
import re
from dataclasses import dataclass

import pandas as pd

from tilesweep.solver.errors import InvalidOptionError

AGGREGATES = ("count", "sum", "mean", "median", "min", "max", "std", "nunique", "first", "last")
FORMATS = ("table", "csv", "json", "parquet")
# The columns a text table of rows shows by default: the JSON list (iterations), the long
# strings (tiles, moves, error, worker) and the limits are left out; --columns names others.
TABLE_COLUMNS = ("sweep", "instance", "size", "algorithm", "heuristic", "pruning", "status", "cost",
                 "nodes_generated", "nodes_expanded", "ebf", "h0", "cpu_seconds", "seconds")
ALL = ("all",)
EXAMPLE = "a condition such as 'status == \"solved\" and cost > 20'"


@dataclass(frozen=True)
class Query:
    where: str | None = None
    group_by: tuple[str, ...] = ()
    aggs: tuple[tuple[str, str], ...] = ()
    sort: str | None = None
    limit: int | None = None
    select: tuple[str, ...] | None = None  # --columns: None for the default, ALL for every one

    def columns(self, known) -> list[str] | None:
        """The result columns an aggregating query reads (None: every column, for a query
        that lists rows or names a column not in ``known``)."""
        if not (self.group_by or self.aggs):
            return None
        named = [*self.group_by, *(c for c, _ in self.aggs or (("instance", "count"),))]
        in_where = where_names(self.where) if self.where else set()
        if any(c not in known for c in [*named, *in_where]):
            return None
        return [c for c in known if c in in_where or c in named]


def _check_columns(df: pd.DataFrame, columns, what: str) -> None:
    for column in columns:
        if column not in df.columns:
            raise InvalidOptionError(f"{what} column {column!r} is not a result column; expected one "
                                     f"of: {', '.join(df.columns)}")


def parse_agg(text: str) -> tuple[str, str]:
    """``"nodes_generated:mean"`` into (column, function), checking the function."""
    column, sep, fn = text.rpartition(":")
    if not sep or not column:
        raise InvalidOptionError(f"agg {text!r} is not COL:FN, e.g. nodes_generated:mean")
    if fn not in AGGREGATES and not re.fullmatch(r"p\d{1,2}", fn):
        raise InvalidOptionError(f"agg function {fn!r} in {text!r} is not known; expected one of: "
                                 f"{', '.join(AGGREGATES)}, or pNN (a percentile, e.g. p90)")
    return column, fn


def _names(text: str | None) -> tuple[str, ...]:
    """A comma list of column names."""
    return tuple(c.strip() for c in text.split(",") if c.strip()) if text else ()


def parse_query(where=None, group_by=None, aggs=(), sort=None, limit=None, columns=None) -> Query:
    """Validate the options of ``tilesweep query`` that do not need the data."""
    if limit is not None and limit < 0:
        raise InvalidOptionError(f"limit {limit!r} is negative; expected a row count >= 0")
    if columns is not None and not _names(columns):
        raise InvalidOptionError(f"columns {columns!r} names no column; expected a comma list such as "
                                 "instance,heuristic,cost, or all")
    select = None if columns is None else ALL if columns.strip() == "all" else _names(columns)
    return Query(where, _names(group_by), tuple(parse_agg(a) for a in aggs), sort, limit, select)


def where_names(where: str) -> set[str]:
    """The column names ``where`` uses; an expression that is not one is refused in one line
    (pandas would say ``invalid syntax`` from deep inside)."""
    try:
        tree = ast.parse(where.replace("`", " "), mode="eval")  # `name` quotes a column in pandas
    except SyntaxError as err:
        at = f"at character {err.offset}" if 0 < (err.offset or 0) <= len(where) else "at the end"
        raise InvalidOptionError(f"where {where!r} is not an expression ({err.msg} {at}); expected {EXAMPLE}") from None
    called = {id(n.func) for n in ast.walk(tree) if isinstance(n, ast.Call)}  # abs(x), sqrt(x), ...
    return {n.id for n in ast.walk(tree) if isinstance(n, ast.Name) and id(n) not in called} - {"index"}


def check_where(where: str, columns) -> None:
    """Refuse ``where`` naming a column the rows lack, listing those they have (pandas would
    say ``name 'x' is not defined``)."""
    unknown = sorted(where_names(where) - set(columns))
    if unknown:
        raise InvalidOptionError(f"where {where!r} names {', '.join(map(repr, unknown))}, not a result "
                                 f"column; expected one of: {', '.join(columns)}")


def _filter(df: pd.DataFrame, where: str) -> pd.DataFrame:
    check_where(where, df.columns)
    try:
        out = df.query(where, engine="python")
    # The boundary with the user's expression, which is code: whatever it raises
    # (TypeError, ZeroDivisionError, an unknown function, ...) is bad input.
    except Exception as err:  # noqa: BLE001
        message = str(err).splitlines()[0] if str(err) else type(err).__name__
        raise InvalidOptionError(f"where {where!r} cannot be evaluated on the result rows ({message}); "
                                 f"expected {EXAMPLE}") from None
    if not isinstance(out, pd.DataFrame):
        raise InvalidOptionError(f"where {where!r} does not select rows; expected a condition")
    return out


def _aggregate(df: pd.DataFrame, q: Query) -> pd.DataFrame:
    _check_columns(df, q.group_by, "group-by")
    _check_columns(df, [c for c, _ in q.aggs], "agg")
    aggs = q.aggs or (("instance", "count"),)
    named = {}
    for column, fn in aggs:
        func = (lambda s, p=int(fn[1:]) / 100: s.quantile(p)) if re.fullmatch(r"p\d+", fn) else fn
        named[f"{column}_{fn}"] = pd.NamedAgg(column=column, aggfunc=func)
    if q.group_by:
        return df.groupby(list(q.group_by), sort=True, dropna=False).agg(**named).reset_index()
    return df.assign(_all=0).groupby("_all").agg(**named).reset_index(drop=True)


def _select(df: pd.DataFrame, q: Query, fmt: str) -> pd.DataFrame:
    """The columns ``--columns`` names, or the default of :data:`TABLE_COLUMNS` (see the module doc)."""
    if q.select == ALL or (q.select is None and (fmt != "table" or q.group_by or q.aggs)):
        return df
    wanted = q.select or [c for c in TABLE_COLUMNS if c in df.columns]
    _check_columns(df, wanted, "shown")
    return df[list(wanted)]


def run_query(df: pd.DataFrame, q: Query, fmt: str = "csv") -> pd.DataFrame:
    """Apply ``q`` to the rows ``df``, for output in ``fmt`` (the default columns depend on it)."""
    if q.where:
        df = _filter(df, q.where)
    if q.group_by or q.aggs:
        df = _aggregate(df, q)
    if q.sort:
        column, descending = (q.sort[1:], True) if q.sort.startswith("-") else (q.sort, False)
        _check_columns(df, [column], "sort")
        df = df.sort_values(column, ascending=not descending, kind="stable")
    if q.limit is not None:
        df = df.head(q.limit)
    return _select(df, q, fmt).reset_index(drop=True)
