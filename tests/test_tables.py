"""``tilesweep table``: the LaTeX tabular parsed (columns per row, booktabs rules), its figures
against ``summarize`` and the rows, the best marked, Korf's published figures beside ours."""

import io
import re
import subprocess

import numpy as np
import pandas as pd
import pytest
from typer.testing import CliRunner

from browser import require_tex
from sweeps_local import local_sweep, report_sweep
from tilesweep.cli import app
from tilesweep.jobs.report.method_looks import LOOKS, look, ratio_text
from tilesweep.jobs.report.prediction_section import COUNT_COLUMNS, RATIO_COLUMNS, TABLE_COLUMNS
from tilesweep.jobs.results import load_results
from tilesweep.jobs.summary import summarize

pytestmark = pytest.mark.slow  # its fixture sweeps Korf's boards under a budget (10 s)

RUNNER = CliRunner()


@pytest.fixture(scope="module")
def swept(tmp_path_factory):
    return report_sweep(tmp_path_factory.mktemp("sweeps"))


KORF_HEURISTICS = ("manhattan", "pdb:5-5-5", "pdb:6-6-3")


@pytest.fixture(scope="module")
def korf(tmp_path_factory):
    """Korf's 100 under a node budget (the statuses do not hang on the machine's load, as a
    CPU limit's would): IDA* with Manhattan (the published configuration) and two pattern
    databases, built into the sweep's store (seconds)."""
    out = tmp_path_factory.mktemp("korf")
    return local_sweep(out, "korf", store=str(out / "store"), instances="korf100", algorithms=("idastar",),
                       heuristics=KORF_HEURISTICS, max_nodes=1_000_000, chunk_size=50)


def run(*args) -> str:
    result = RUNNER.invoke(app, ["table", *map(str, args)])
    assert result.exit_code == 0, result.output
    return result.stdout


def parse_tabular(text: str) -> tuple[int, list[str], list[list[str]]]:
    """(columns of the tabular spec, headings, body rows) of a booktabs tabular, each row split
    on its unescaped ``&``."""
    environment, spec = re.search(r"\\begin\{(tabular|longtable)\}\{([lrc]+)\}", text).groups()
    lines = [line for line in text.splitlines() if line != "\\endhead"]  # a longtable's headings on every page
    assert lines.count("\\toprule") == lines.count("\\midrule") == lines.count("\\bottomrule") == 1
    top, mid, bottom = lines.index("\\toprule"), lines.index("\\midrule"), lines.index("\\bottomrule")
    assert lines[-1] == f"\\end{{{environment}}}" and top < mid < bottom

    def cells(line):
        assert line.endswith(" \\\\"), line
        return [c.strip() for c in re.split(r"(?<!\\)&", line[:-3])]

    return len(spec), cells(lines[mid - 1]), [cells(line) for line in lines[mid + 1:bottom]]


def test_latex_tabular_has_as_many_cells_as_columns_in_every_row(swept):
    width, headings, rows = parse_tabular(run(swept, "--format", "latex"))
    assert len(headings) == width and len(rows) == 6
    assert all(len(row) == width for row in rows)
    assert "CPU s (common)" in headings and "wall s (common)" in headings


def test_figures_agree_with_summarize_and_the_rows(swept):
    table = pd.read_csv(io.StringIO(run(swept, "--format", "csv")))
    rows = load_results(swept)
    summary = summarize(load_results(swept), "manhattan").set_index(["algorithm", "heuristic"])
    for _, line in table.iterrows():
        algorithm, heuristic = line["configuration"].split(" ", 1)
        mine = rows[(rows["algorithm"] == algorithm) & (rows["heuristic"] == heuristic)]
        assert line["instances"] == len(mine) and line["solved"] == (mine["status"] == "solved").sum()
        if heuristic == "manhattan":
            assert np.isnan(line["ratio"])
        else:
            assert line["ratio"] == pytest.approx(summary.loc[(algorithm, heuristic), "nodes_ratio"])
            assert line["ratio_low"] <= line["ratio"] <= line["ratio_high"]
    # sums over the instances every configuration solved, CPU and wall side by side
    solved = rows[rows["status"] == "solved"]
    common = solved.groupby("instance").size()
    common = common.index[common == 6]
    for _, line in table.iterrows():
        algorithm, heuristic = line["configuration"].split(" ", 1)
        mine = solved[(solved["algorithm"] == algorithm) & (solved["heuristic"] == heuristic)
                      & solved["instance"].isin(common)]
        assert line["common"] == len(common) == len(mine)
        assert line["nodes"] == mine["nodes_generated"].sum()
        assert line["cpu_s"] == pytest.approx(mine["cpu_seconds"].sum())
        assert line["wall_s"] == pytest.approx(mine["seconds"].sum())


def test_the_best_of_each_column_is_bold(swept):
    table = pd.read_csv(io.StringIO(run(swept, "--format", "csv")))
    _, headings, rows = parse_tabular(run(swept, "--format", "latex"))
    solved = [row[headings.index("solved")] for row in rows]
    best = table["solved"].max()
    assert [s.startswith("\\textbf{") for s in solved] == list(table["solved"] == best)
    ratios = [row[headings.index("node ratio")] for row in rows]
    assert sum(r.startswith("\\textbf{") for r in ratios) == 1
    assert ratios[int(table["ratio"].idxmin())].startswith("\\textbf{")
    markdown = run(swept, "--format", "markdown").splitlines()
    assert all(line.count("|") == len(headings) + 1 for line in markdown)


def test_published_figures_beside_ours_on_every_row(korf):
    width, headings, rows = parse_tabular(run(korf, "--table", "published", "--format", "latex"))
    assert len(rows) == 300 and all(len(row) == width for row in rows)
    assert {row[headings.index("configuration")] for row in rows} == {f"idastar {h}" for h in KORF_HEURISTICS}
    at = {h: headings.index(h) for h in headings}
    assert sorted({int(row[at["board"]]) for row in rows}) == list(range(1, 101))  # Korf's numbers
    for row in rows:
        assert row[at["published length"]] != "--"
        if row[at["status"]] == "solved":
            assert row[at["length diff"]] == "0" and row[at["length"]] == row[at["published length"]]
        else:
            assert row[at["length"]] == row[at["length diff"]] == "--"
    counted = [row for row in rows if row[at["configuration"]] == "idastar manhattan"]
    assert all(row[at["published nodes"]] != "--" for row in counted)
    solved = [row for row in counted if row[at["status"]] == "solved"]
    assert solved and all(row[at["nodes diff"]] == "0" and row[at["nodes"]] == row[at["published nodes"]]
                          for row in solved)
    others = [row for row in rows if row[at["configuration"]] != "idastar manhattan"]
    assert all(row[at["published nodes"]] == "--" for row in others)  # published for IDA* + Manhattan only


@pytest.mark.parametrize("args, quoted", [
    (["--format", "html"], "'html'"),
    (["--table", "published"], "no published board"),
    (["--table", "everything"], "'everything'"),
    (["--baseline", "euclid"], "'euclid'"),
])
def test_bad_input_is_one_line_exit_2(swept, args, quoted):
    result = RUNNER.invoke(app, ["table", str(swept), *args])
    assert result.exit_code == 2, result.output
    assert len(result.stderr.strip().splitlines()) == 1 and quoted in result.stderr


@pytest.fixture
def predicted_store(swept, monkeypatch):
    """The store the sweep's PDB was built in, where the predictions read it."""
    monkeypatch.setenv("TILESWEEP_STORE", str(swept.parent / "store"))


def test_the_prediction_table_is_the_reports_with_its_labels_and_ratio_format(swept, predicted_store):
    _, headings, rows = parse_tabular(run(swept, "--table", "prediction", "--format", "latex"))
    plain = pd.read_csv(io.StringIO(run(swept, "--table", "prediction", "--format", "csv")))
    assert headings == TABLE_COLUMNS and len(rows) == len(plain)
    for config in ("idastar manhattan", "idastar linear-conflict", "idastar pdb:4-4"):  # KRE and CDP at least
        assert {look("kre").label, look("cdp").label} <= {row[1] for row in rows if row[0] == config}, config
    assert {row[1] for row in rows} <= {shown.label for shown in LOOKS.values()}
    for row, (_, exact) in zip(rows, plain.iterrows()):
        assert row[len(COUNT_COLUMNS):] == [ratio_text(exact[c]) for c in RATIO_COLUMNS]


def test_a_prediction_table_without_idastar_is_one_line(tmp_path, monkeypatch):
    monkeypatch.setenv("TILESWEEP_STORE", str(tmp_path / "store"))
    folder = local_sweep(tmp_path, "astar", size=3, count=3, algorithms=("astar",), heuristics=("manhattan",))
    result = RUNNER.invoke(app, ["table", str(folder), "--table", "prediction"])
    assert result.exit_code == 2, result.output
    assert len(result.stderr.strip().splitlines()) == 1 and "ran no IDA*" in result.stderr


DOCUMENT = "\\documentclass{article}\n\\usepackage{booktabs,longtable}\n" \
           "\\usepackage[a4paper,landscape,margin=1cm]{geometry}\n\\begin{document}\n\\footnotesize\n\\input{table}\n\\end{document}\n"


@pytest.mark.browser
@pytest.mark.parametrize("which", ["configurations", "published", "prediction"])
def test_the_latex_compiles_with_booktabs(request, tmp_path, which):
    """``\\input`` into a document, pdflatex sets the table without an error (TeX is in the browser tier)."""
    require_tex()
    # the prediction table of the 8-puzzle sweep: Korf's 100 would need sampled distributions
    sweep = request.getfixturevalue("swept") if which == "prediction" else request.getfixturevalue("korf")
    if which == "prediction":
        request.getfixturevalue("predicted_store")
    (tmp_path / "table.tex").write_text(run(sweep, "--table", which, "--format", "latex"))
    (tmp_path / "paper.tex").write_text(DOCUMENT)
    done = subprocess.run(["pdflatex", "-interaction=nonstopmode", "-halt-on-error", "paper.tex"], cwd=tmp_path,
                          capture_output=True, text=True, timeout=300)
    log = (tmp_path / "paper.log").read_text(errors="replace")
    assert done.returncode == 0, log[-3000:]
    assert (tmp_path / "paper.pdf").read_bytes().startswith(b"%PDF")
    assert "! " not in log and "Undefined control sequence" not in log
