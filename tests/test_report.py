"""``tilesweep report``: the page's numbers against ``summarize`` and an independent DuckDB
query, self-containment, thinning of large sweeps, the comparison section, bad input."""

import json
import re
from html.parser import HTMLParser
from pathlib import Path

import duckdb
import numpy as np
import pyarrow as pa
import pytest
from typer.testing import CliRunner

from sweeps_local import report_sweep
from tilesweep.cli import app
from tilesweep.jobs.report import page, plots
from tilesweep.jobs.report.build import build_report
from tilesweep.jobs.results import load_results
from tilesweep.jobs.summary import summarize

RUNNER = CliRunner()


class Tables(HTMLParser):
    """Every ``<table id=...>``: its headers and rows of ``data-value`` strings."""

    def __init__(self, html):
        super().__init__()
        self.tables, self.current, self.row = {}, None, None
        self.feed(html)

    def handle_starttag(self, tag, attrs):
        attrs = dict(attrs)
        if tag == "table" and "id" in attrs:
            self.current = self.tables.setdefault(attrs["id"], {"headers": [], "rows": []})
        elif self.current is not None and tag == "tr":
            self.row = []
        elif self.current is not None and tag == "td" and self.row is not None:
            self.row.append(attrs.get("data-value"))
        elif self.current is not None and tag == "th":
            self.th = []

    def handle_data(self, data):
        if self.current is not None and getattr(self, "th", None) is not None:
            self.th.append(data)  # a heading's text comes in pieces around its <wbr> breaks

    def handle_endtag(self, tag):
        if tag == "th" and getattr(self, "th", None) is not None:
            self.current["headers"].append("".join(self.th))
            self.th = None
        elif tag == "tr" and self.row:
            self.current["rows"].append(self.row)
            self.row = None
        elif tag == "table":
            self.current = None

    def frame(self, table_id):
        import pandas as pd
        t = self.tables[table_id]
        return pd.DataFrame(t["rows"], columns=t["headers"])


@pytest.fixture(scope="module")
def swept(tmp_path_factory):
    out = tmp_path_factory.mktemp("sweeps")
    folder = report_sweep(out)
    built = build_report([str(folder)])
    return folder, built, built.path.read_text()


def number(text):
    return float("nan") if text in ("", None) else float(text)


def test_report_is_written_beside_the_sweep_and_is_self_contained(swept):
    folder, built, html = swept
    assert built.path == folder / "report.html"
    assert not re.search(r"<script[^>]+src=|<link[^>]+href=|@import|cdn\.bokeh\.org", html, re.I)
    assert "Bokeh.embed.embed_items" in html or "embed_items" in html
    for section in ("coverage-section", "scatter-section", "length-section", "curves-section", "ebf-section",
                    "iterations-section", "instances-section"):
        assert f'id="{section}"' in html


def test_header_shows_each_sweeps_spec_and_run_record(swept):
    from tilesweep import __version__
    from tilesweep.jobs.runrecord import machine
    folder, _, html = swept
    header = Tables(html).frame("sweeps")
    assert header["sweep"].tolist() == ["rep"] and header["rows"].tolist() == ["360"]
    assert header["heuristics"].iloc[0] == "manhattan, linear-conflict, pdb:4-4" and header["seed"].iloc[0] == "11"
    assert header["tilesweep"].iloc[0] == __version__
    assert header["machine"].iloc[0] == f"{machine()['cpu']}, {machine()['cores']} cores"
    assert header["scheduler"].iloc[0] == "in-process (tests)"


def test_coverage_table_equals_summary_and_an_independent_duckdb_query(swept):
    folder, _, html = swept
    shown = Tables(html).frame("coverage").set_index(["algorithm", "heuristic"])
    summary = summarize(load_results(folder)).set_index(["algorithm", "heuristic"])
    assert len(shown) == len(summary) == 6
    for column in ("instances", "solved", "budget_exceeded", "nodes_mean", "nodes_median", "ebf_mean", "cost_mean",
                   "cpu_seconds_mean", "nodes_per_cpu_second",  # the report's clock: CPU time by default
                   "seconds_mean"):  # and the wall clock beside it
        got = shown[column].map(number).to_numpy()
        assert got == pytest.approx(summary.loc[shown.index, column].to_numpy(float)), column
    assert shown["budget_exceeded"].map(number).sum() > 0  # the budget leaves some runs unsolved
    parts = f"read_parquet('{folder}/results/*.parquet')"
    duck = duckdb.sql(f"""
        WITH runs AS (SELECT * FROM {parts}),
             common AS (SELECT instance FROM runs GROUP BY instance
                        HAVING count(*) FILTER (status = 'solved')
                               = (SELECT count(DISTINCT heuristic || algorithm) FROM runs))
        SELECT algorithm, heuristic, count(*) AS instances,
               count(*) FILTER (status = 'solved') AS solved,
               avg(nodes_generated) FILTER (status = 'solved') AS nodes_mean,
               median(nodes_generated) FILTER (status = 'solved') AS nodes_median,
               sum(nodes_generated) FILTER (status = 'solved') / sum(cpu_seconds) FILTER (status = 'solved')
                 AS nodes_per_cpu_second,
               count(*) FILTER (instance IN (SELECT instance FROM common)) AS common_instances,
               avg(nodes_generated) FILTER (instance IN (SELECT instance FROM common)) AS common_nodes_mean,
               exp(avg(ln(nodes_generated)) FILTER (instance IN (SELECT instance FROM common))) AS common_nodes_geomean,
               median(nodes_generated) FILTER (instance IN (SELECT instance FROM common)) AS common_nodes_median
        FROM runs GROUP BY algorithm, heuristic""").df().set_index(["algorithm", "heuristic"]).loc[shown.index]
    assert 0 < duck["common_instances"].iloc[0] < 60
    for column in duck.columns:
        assert shown[column].map(number).to_numpy() == pytest.approx(duck[column].to_numpy(float)), column


def test_the_main_table_carries_the_paired_node_ratio_against_the_baseline(swept):
    """Whenever a baseline is given: the geometric mean of the per-instance node ratios with its
    interval and p, as ``summary`` computes them; none for the baseline itself."""
    folder, _, html = swept
    shown = Tables(html).frame("coverage").set_index(["algorithm", "heuristic"])
    summary = summarize(load_results(folder), "manhattan").set_index(["algorithm", "heuristic"])
    ratio = shown["node_ratio_vs_manhattan"].map(number)
    for key, line in shown.iterrows():
        if key[1] == "manhattan":
            assert np.isnan(ratio[key]) and line["node_ratio_95%"] == "–"
            continue
        assert ratio[key] == pytest.approx(summary.loc[key, "nodes_ratio"])
        low, high = map(float, line["node_ratio_95%"].split("–"))
        assert low <= ratio[key] * 1.01 and ratio[key] <= high * 1.01  # the interval shown to 3 figures
        assert 0 <= number(line["node_ratio_p"]) <= 1


@pytest.mark.slow
def test_plugin_rows_show_their_name_and_heuristic_version(tmp_path):
    from sweeps_local import local_sweep
    from tilesweep.solver.plugins import source_sha256
    plugin = Path(__file__).resolve().parents[1] / "examples" / "heuristics" / "manhattan.py"
    folder = local_sweep(tmp_path, "plug", size=3, count=6, heuristics=("manhattan", "plugin:manhattan-plugin"),
                         plugin_files=(str(plugin),))
    shown = Tables(build_report([str(folder)]).path.read_text()).frame("coverage").set_index("heuristic")
    assert shown.loc["plugin:manhattan-plugin", "heuristic_version"] == source_sha256(plugin.read_text())[:12]
    assert shown.loc["manhattan", "heuristic_version"] == ""  # a built-in has none
    assert shown.loc["plugin:manhattan-plugin", "nodes_mean"] == shown.loc["manhattan", "nodes_mean"]


def test_a_report_without_plugins_has_no_version_column(swept):
    assert "heuristic_version" not in Tables(swept[2]).frame("coverage").columns


def test_every_status_in_the_data_gets_a_column(swept):
    folder, _, html = swept
    headers = Tables(html).tables["coverage"]["headers"]
    statuses = set(load_results(folder)["status"])
    assert statuses <= set(headers) and "budget_exceeded" in statuses


def test_instance_data_carries_every_row_with_tiles_and_moves(swept):
    folder, _, html = swept
    blob = re.search(r'<script type="application/json" id="instance-data">(.*?)</script>', html, re.S).group(1)
    data = json.loads(blob)
    columns = dict(zip(data["columns"], data["data"], strict=True))
    for name, values in data["lookups"].items():
        columns[name] = [values[k] for k in columns[name]]
    rows = load_results(folder)
    assert len(columns["sweep"]) == len(rows) == 360 and data["note"] == ""
    index = {(s, i, a, h): k for k, (s, i, a, h) in enumerate(zip(columns["sweep"], columns["instance"],
                                                                    columns["algorithm"], columns["heuristic"]))}
    for row in rows.itertuples():
        k = index[(row.sweep, row.instance, row.algorithm, row.heuristic)]
        assert data["boards"][columns["board"][k]] == row.tiles
        assert columns["moves"][k] == (row.moves if isinstance(row.moves, str) else "")
        assert columns["status"][k] == row.status
    assert data["goals"] == {"3|blank-last": [1, 2, 3, 4, 5, 6, 7, 8, 0]} and set(columns["goal"]) == {"3|blank-last"}


@pytest.mark.slow
def test_large_sweeps_are_thinned_and_say_so(swept, monkeypatch, tmp_path):
    folder, _, _ = swept
    monkeypatch.setattr(plots, "MAX_POINTS", 25)
    monkeypatch.setattr(page, "MAX_TABLE_ROWS", 60)
    built = build_report([str(folder)], str(tmp_path / "thin.html"))
    scatter = built.figures["scatter-nodes_generated-astar linear-conflict"]
    assert sum(len(r.data_source.data["x"]) for r in scatter.renderers[1:]) == 25
    assert "25 of 60 shown: a uniform random sample" in [t.text for t in scatter.above]
    html = built.path.read_text()
    assert "The table holds every run of 10 of the 60 instances" in html
    blob = re.search(r'id="instance-data">(.*?)</script>', html, re.S).group(1)
    assert len(json.loads(blob)["data"][0]) == 60


def test_scatter_draws_unsolved_runs_on_the_edge(swept):
    _, built, _ = swept
    fig = built.figures["scatter-nodes_generated-idastar linear-conflict"]
    kinds = {r.name: r.data_source.data for r in fig.renderers[1:]}  # a renderer (and marker) per kind of point
    solved = kinds.pop("both solved")
    unsolved = {key: np.concatenate([np.asarray(k[key]) for k in kinds.values()]) for key in solved}
    assert set(kinds) <= {"not solved", "baseline not solved", "neither solved"} and kinds
    for kind, data in kinds.items():  # the tooltip's side says its status, not the budget as a value
        side = data["base_text"] if kind == "baseline not solved" else data["text"]
        assert all(text == "not solved (budget_exceeded)" for text in side), kind
    rows = load_results(swept[0])
    lc = rows[(rows["algorithm"] == "idastar") & (rows["heuristic"] == "linear-conflict")].set_index("instance")
    base = rows[(rows["algorithm"] == "idastar") & (rows["heuristic"] == "manhattan")].set_index("instance")
    not_both = (lc["status"] != "solved") | (base["status"] != "solved")
    assert sorted(unsolved["instance"]) == sorted(not_both.index[not_both]) and len(unsolved["instance"]) > 0
    edge = max(np.max(unsolved["x"]), np.max(unsolved["y"]))
    assert sorted(solved["instance"]) == sorted(not_both.index[~not_both])
    assert solved["x"] == pytest.approx(base.loc[solved["instance"], "nodes_generated"].to_numpy(float))
    assert max(np.max(solved["x"]), np.max(solved["y"])) < edge
    lc_unsolved = lc.loc[unsolved["instance"], "status"].ne("solved").to_numpy()
    assert (np.asarray(unsolved["y"])[lc_unsolved] == edge).all()


def test_nodes_by_length_counts_the_unsolved_runs_it_cannot_draw(swept):
    _, built, _ = swept
    rows = load_results(swept[0])
    legend = built.figures["by-length"].legend[0]
    labels = {item.label["value"] for item in legend.items}
    over = rows[rows["status"] == "budget_exceeded"].groupby(["algorithm", "heuristic"]).size()
    assert len(over) > 0
    expected = {f"{a} {h}" + (f" ({over[a, h]:,} budget_exceeded)" if (a, h) in over.index else "")
                for a, h in rows[["algorithm", "heuristic"]].drop_duplicates().itertuples(index=False)}
    assert labels == expected


@pytest.mark.slow  # a second sweep and a two-sweep report: ~15 s on a busy machine
def test_compare_section_when_asked(swept, tmp_path):
    folder, _, _ = swept
    again = report_sweep(tmp_path, name="again")
    result = RUNNER.invoke(app, ["report", str(folder), str(again), "--compare", "--out", str(tmp_path / "c.html")])
    assert result.exit_code == 0, result.output
    html = (tmp_path / "c.html").read_text()
    table = Tables(html).frame("compare")
    assert len(table) == 6 and set(table["cost_diff"]) == {"0"} and set(table["nodes_diff"]) == {"0"}
    assert "No cost, node or status differences." in html and 'id="changes-data"' not in html
    # one row altered (its part re-recorded): the before/after plot of its configuration marks it
    from tilesweep.jobs.parts import read_part, results_dir, write_part
    from tilesweep.jobs.spec import SweepSpec
    table = read_part(results_dir(again) / "part-00000.parquet")
    rows = table.to_pandas()
    row = rows.index[rows["status"] == "solved"][0]
    nodes = table.column("nodes_generated").to_pylist()
    nodes[row] *= 2
    write_part(SweepSpec.from_json((again / "sweep.json").read_text()), 0,
               table.set_column(table.schema.get_field_index("nodes_generated"), "nodes_generated",
                                pa.array(nodes, pa.int64())))
    report = build_report([str(folder), str(again)], str(tmp_path / "c2.html"), with_compare=True)
    blob = json.loads(re.search(r'id="changes-data">(.*?)</script>', report.path.read_text(), re.S).group(1))
    assert blob["columns"][:2] == ["kind", "size"] and [len(c) for c in blob["data"]] == [1] * len(blob["columns"])
    config = f"{rows.loc[row, 'algorithm']} {rows.loc[row, 'heuristic']}"
    names = [n for n in report.figures if n.startswith("before-after-")]
    assert len(names) == 12  # nodes and seconds of each of the 6 configurations
    for name in names:
        changed = report.figures[name].select(name="both solved, changed")
        points = sum(r.data_source.data["x"].size for r in changed)
        assert points == (1 if name == f"before-after-nodes_generated-again: {config}" else 0), name


@pytest.mark.parametrize("args, quoted", [
    (["{missing}"], "does not exist"),
    (["{plain}"], "is not a sweep folder"),
    (["{sweep}", "--baseline", "euclid"], "'euclid'"),
    (["{sweep}", "--compare"], "--compare needs exactly two sweeps"),
    (["{sweep}", "--figure-format", "gif"], "'gif'"),
    (["{sweep}", "--threshold", "lots"], "'lots'"),
])
def test_bad_input_is_one_line_exit_2(swept, tmp_path, args, quoted):
    (tmp_path / "plain").mkdir()
    paths = {"missing": tmp_path / "missing", "plain": tmp_path / "plain", "sweep": swept[0]}
    result = RUNNER.invoke(app, ["report", *[a.format(**paths) for a in args], "--out", str(tmp_path / "r.html")])
    assert result.exit_code == 2, result.output
    assert len(result.stderr.strip().splitlines()) == 1 and quoted in result.stderr
    assert not (tmp_path / "r.html").exists()
