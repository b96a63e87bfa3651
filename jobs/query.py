"""``tilesweep query``: filter, group, aggregate, sort and limit result rows with pandas.

``--where`` is a :meth:`pandas.DataFrame.query` expression (``status == "solved" and
cost > 20``); ``--group-by`` a comma list of columns; ``--agg COL:FN`` with FN one of
:data:`AGGREGATES` (``p90`` / ``p50`` ... are quantiles); ``--sort COL`` ascending, or
``-COL`` descending.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

import pandas as pd

from tilesweep.solver.errors import InvalidOptionError

AGGREGATES = ("count", "sum", "mean", "median", "min", "max", "std", "nunique", "first", "last")
FORMATS = ("table", "csv", "json", "parquet")


@dataclass(frozen=True)
class Query:
    where: str | None = None
    group_by: tuple[str, ...] = ()
    aggs: tuple[tuple[str, str], ...] = ()
    sort: str | None = None
    limit: int | None = None

    def columns(self, known) -> list[str] | None:
        """The result columns an aggregating query reads (None: every column, for a query
        that lists rows or names a column not in ``known``)."""
        if not (self.group_by or self.aggs):
            return None
        named = [*self.group_by, *(c for c, _ in self.aggs or (("instance", "count"),))]
        if any(c not in known for c in named):
            return None
        in_where = set(re.findall(r"\w+", self.where or "")) & set(known)
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


def parse_query(where=None, group_by=None, aggs=(), sort=None, limit=None) -> Query:
    """Validate the options of ``tilesweep query`` that do not need the data."""
    groups = tuple(c.strip() for c in group_by.split(",") if c.strip()) if group_by else ()
    if limit is not None and limit < 0:
        raise InvalidOptionError(f"limit {limit!r} is negative; expected a row count >= 0")
    return Query(where, groups, tuple(parse_agg(a) for a in aggs), sort, limit)


def _filter(df: pd.DataFrame, where: str) -> pd.DataFrame:
    try:
        out = df.query(where, engine="python")
    # The boundary with the user's expression, which is code: whatever it raises
    # (SyntaxError, pandas' UndefinedVariableError, TypeError, ZeroDivisionError, ...) is bad input.
    except Exception as err:  # noqa: BLE001
        message = str(err).splitlines()[0] if str(err) else type(err).__name__
        raise InvalidOptionError(f"where {where!r} is not a valid pandas query on the result "
                                 f"columns: {message}") from None
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


def run_query(df: pd.DataFrame, q: Query) -> pd.DataFrame:
    """Apply ``q`` to the rows ``df``."""
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
    return df.reset_index(drop=True)
