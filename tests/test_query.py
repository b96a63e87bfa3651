"""``tilesweep query`` semantics on known rows."""

import pandas as pd
import pytest

from tilesweep.jobs.query import parse_query, run_query
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
