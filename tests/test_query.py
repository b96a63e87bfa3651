"""``tilesweep query`` semantics on known rows."""

import pandas as pd
import pytest

from tilesweep.jobs.query import TABLE_COLUMNS, parse_query, run_query
from tilesweep.solver.errors import InvalidOptionError

ROWS = pd.DataFrame({"heuristic": ["m", "m", "lc", "lc"], "status": ["solved"] * 3 + ["error"],
                     "cost": [10, 20, 10, None], "nodes_generated": [100, 300, 50, 0],
                     "instance": [0, 1, 0, 1]})


def test_where_group_agg_sort_limit():
    q = parse_query('status == "solved"', "heuristic", ("nodes_generated:mean", "cost:max", "nodes_generated:p50"),
                    "-nodes_generated_mean", 5)
    out = run_query(ROWS, q)
    assert out.to_dict("records") == [
        {"heuristic": "m", "nodes_generated_mean": 200.0, "cost_max": 20.0, "nodes_generated_p50": 200.0},
        {"heuristic": "lc", "nodes_generated_mean": 50.0, "cost_max": 10.0, "nodes_generated_p50": 50.0}]
    assert len(run_query(ROWS, parse_query(limit=1))) == 1
    assert run_query(ROWS, parse_query(aggs=("instance:count",))).iloc[0, 0] == 4


@pytest.mark.parametrize("kwargs, fragment", [
    (dict(where="cost >"), "'cost >'"),
    (dict(where="cost > > 2"), "'cost > > 2'"),
    (dict(where="colour == 3"), "'colour == 3'"),
    (dict(group_by="colour"), "'colour'"),
    (dict(aggs=("cost:avg",)), "'avg'"),
    (dict(aggs=("cost",)), "'cost'"),
    (dict(sort="colour"), "'colour'"),
])
def test_bad_queries_are_one_line_errors(kwargs, fragment):
    with pytest.raises(InvalidOptionError) as err:
        run_query(ROWS, parse_query(**kwargs))
    assert fragment in str(err.value) and "\n" not in str(err.value)


def test_an_aggregating_query_reads_only_its_columns():
    from tilesweep.jobs.schema import COLUMNS

    q = parse_query('status == "solved" and cost > 20', "heuristic", ("nodes_generated:mean",))
    assert q.columns(COLUMNS) == ["heuristic", "status", "cost", "nodes_generated"]
    assert parse_query(aggs=("cost:max",)).columns(COLUMNS) == ["cost"]
    assert parse_query('status == "solved"').columns(COLUMNS) is None  # rows are listed whole
    assert parse_query(group_by="colour").columns(COLUMNS) is None  # refused with every column named
    assert parse_query("colour == 3", "heuristic").columns(COLUMNS) is None  # the same for --where


@pytest.mark.parametrize("where, says", [
    ("cost >", "is not an expression (invalid syntax at the end)"),
    ("cost > > 2", "is not an expression (invalid syntax at character 8)"),
    ("status = 'solved'", "is not an expression"),
    ("cost > @limit", "is not an expression"),
])
def test_a_malformed_where_is_told_in_tilesweeps_words(where, says):
    with pytest.raises(InvalidOptionError) as err:
        run_query(ROWS, parse_query(where=where))
    message = str(err.value)
    assert message.startswith(f"where {where!r} {says}") and "\n" not in message
    assert "such as 'status == \"solved\" and cost > 20'" in message and "<unknown>" not in message


def test_a_where_naming_an_unknown_column_lists_the_columns():
    with pytest.raises(InvalidOptionError) as err:
        run_query(ROWS, parse_query(where='colour == "red" and cost > 3'))
    assert str(err.value) == ("where 'colour == \"red\" and cost > 3' names 'colour', not a result column; "
                              "expected one of: heuristic, status, cost, nodes_generated, instance")


def test_a_where_evaluation_error_is_one_line():
    with pytest.raises(InvalidOptionError) as err:
        run_query(ROWS, parse_query(where="status > 5"))
    assert str(err.value).startswith("where 'status > 5' cannot be evaluated on the result rows (")
    assert "\n" not in str(err.value)


def test_where_may_call_functions_and_quote_names():
    query = parse_query(where="abs(cost - 15) < 6 and `status` == 'solved'")
    assert list(run_query(ROWS, query)["cost"]) == [10, 20, 10]


def test_columns_choose_and_order_what_is_shown():
    q = parse_query(where='status == "solved"', columns="cost, heuristic")
    assert list(run_query(ROWS, q, "table").columns) == ["cost", "heuristic"]
    assert list(run_query(ROWS, q, "csv").columns) == ["cost", "heuristic"]
    aggregated = parse_query(group_by="heuristic", aggs=("cost:max", "nodes_generated:sum"),
                             columns="heuristic,cost_max")
    assert list(run_query(ROWS, aggregated, "table").columns) == ["heuristic", "cost_max"]


def test_default_columns_a_table_of_rows_leaves_out_the_long_ones():
    rows = ROWS.assign(iterations='[{"bound":1,"nodes_generated":1}]', moves="UDLR", tiles="1 2 3")
    table = list(run_query(rows, parse_query(), "table").columns)
    assert table == [c for c in TABLE_COLUMNS if c in rows.columns]
    assert {"iterations", "moves", "tiles"}.isdisjoint(table)
    for fmt in ("csv", "json", "parquet"):
        assert list(run_query(rows, parse_query(), fmt).columns) == list(rows.columns)
    assert list(run_query(rows, parse_query(columns="all"), "table").columns) == list(rows.columns)
    grouped = run_query(rows, parse_query(group_by="heuristic", aggs=("cost:max",)), "table")
    assert list(grouped.columns) == ["heuristic", "cost_max"]


@pytest.mark.parametrize("columns, quoted", [("cost,colour", "'colour'"), (" , ", "' , '")])
def test_unknown_or_empty_columns_are_refused(columns, quoted):
    with pytest.raises(InvalidOptionError) as err:
        run_query(ROWS, parse_query(columns=columns), "table")
    assert quoted in str(err.value) and "\n" not in str(err.value)
    if columns.startswith("cost"):
        assert str(err.value).endswith("expected one of: heuristic, status, cost, nodes_generated, instance")
