"""``tilesweep figures``: static figures (matplotlib) from a small real sweep, checked as files:
the SVG's plot frame and tick labels, told apart in greyscale, the legend inside the file, and
drawn from the same tables as the bokeh page."""

import dataclasses
import re
import xml.etree.ElementTree as ET

import matplotlib
import numpy as np
import pandas as pd
import pytest
from matplotlib.backends.backend_agg import FigureCanvasAgg
from matplotlib.colors import to_hex
from matplotlib.figure import Figure
from matplotlib.patches import Rectangle
from PIL import Image
from typer.testing import CliRunner

from browser import require_tex
from sweeps_local import report_sweep
from tilesweep.cli import app
from tilesweep.jobs.predict import compare_sweep
from tilesweep.jobs.report import plots, prediction_section
from tilesweep.jobs.report.build import build_report
from tilesweep.jobs.report.data import load
from tilesweep.jobs.report.figures import PNG_DPI, Style, build_figures
from tilesweep.jobs.report.log_axes import log_ticks
from tilesweep.jobs.report.method_looks import look, ratio_text
from tilesweep.jobs.report.plotted import (
    coverage_curves,
    ebf_summary,
    length_series,
    ratio_points,
    scatter_points,
)
from tilesweep.jobs.report.prediction_section import COUNT_COLUMNS, RATIO_COLUMNS
from tilesweep.jobs.report.sweeps import open_sweeps
from tilesweep.jobs.report.tables import configuration_table
from tilesweep.jobs.results import load_results
from tilesweep.jobs.verify import read_spec
from tilesweep.pdb_store import open_store

# A report sweep and every figure in three formats: over a minute, the fast tier's largest
# part; these checks run in the slow tier (CI), with the report and table tests beside them.
pytestmark = pytest.mark.slow

RUNNER = CliRunner()
SVG = "{http://www.w3.org/2000/svg}"
KINDS = ("coverage-nodes_generated", "coverage-seconds", "scatter-nodes_generated-idastar_pdb_4-4",
         "scatter-seconds-astar_linear-conflict", "ratio-nodes_generated-idastar_pdb_4-4",
         "ratio-seconds-astar_linear-conflict", "ratio-ecdf-astar_pdb_4-4", "by-length", "ebf",
         "predicted-vs-measured-idastar_manhattan", "predicted-vs-measured-idastar_pdb_4-4")


@pytest.fixture(scope="module")
def swept(tmp_path_factory):
    """The report sweep, its store (its PDB, the 8-puzzle's exact distributions) the one the
    figures' predictions read."""
    out = tmp_path_factory.mktemp("sweeps")
    with pytest.MonkeyPatch.context() as patch:
        patch.setenv("TILESWEEP_STORE", str(out / "store"))
        yield report_sweep(out)


@pytest.fixture(scope="module")
def data(swept):
    return load(open_sweeps([str(swept)]))


@pytest.fixture(scope="module")
def files(swept, tmp_path_factory):
    """Every figure written by the command in each format: {format: {name: path}}."""
    out = {}
    for fmt in ("svg", "png", "pdf"):
        folder = tmp_path_factory.mktemp(fmt)
        result = RUNNER.invoke(app, ["figures", str(swept), "--format", fmt, "--out", str(folder)])
        assert result.exit_code == 0, result.output
        out[fmt] = {p.stem: p for p in folder.iterdir()}
    return out


def test_every_kind_is_written_in_each_format(files):
    magic = {"svg": b"<svg", "png": b"\x89PNG", "pdf": b"%PDF"}
    for fmt, written in files.items():
        assert set(KINDS) <= set(written), fmt
        assert any(name.startswith("iterations-rep_") for name in written)  # named by sweep and instance
        for path in written.values():
            assert magic[fmt] in path.read_bytes()[:400], path
            assert not list(path.parent.glob(".*tmp-*")), "the atomic writer left a temporary file"


def test_png_is_high_resolution(files):
    with Image.open(files["png"]["coverage-nodes_generated"]) as image:
        assert image.info["dpi"] == pytest.approx((PNG_DPI, PNG_DPI), abs=1)
        assert image.width == pytest.approx(Style("paper").width * PNG_DPI, abs=2)
        assert image.width >= 2 * 460  # at least twice the page's narrow figure


def test_pdf_embeds_its_fonts(files):
    body = files["pdf"]["by-length"].read_bytes()
    assert b"/FontFile2" in body and b"/Subtype /Type3" not in body  # TrueType embedded, no bitmap fonts


def frame_and_ticks(path, axes_id="axes_1"):
    """(figure size, axes frame box, {x, y: [(position, label)]}) of one axes of an SVG (the first)."""
    root = ET.parse(path).getroot()
    _, _, width, height = map(float, root.get("viewBox").split())
    axes = root.find(f".//{SVG}g[@id='{axes_id}']")
    background = next(g for g in axes.findall(f"{SVG}g") if (g.get("id") or "").startswith("patch_"))
    corners = np.array(re.findall(r"([-\d.]+) ([-\d.]+)", background.find(f"{SVG}path").get("d")), float)
    frame = (*corners.min(axis=0), *corners.max(axis=0))
    ticks = {}
    for which in ("x", "y"):
        marks = []
        for tick in axes.findall(f"{SVG}g/{SVG}g"):  # the axes' own axis groups, not a secondary axis's
            if re.fullmatch(f"{which}tick_\\d+", tick.get("id") or ""):
                text = tick.find(f".//{SVG}text")
                if text is not None and text.text:
                    use = tick.find(f".//{SVG}use")
                    marks.append((float(use.get("x" if which == "x" else "y")), text.text))
        ticks[which] = sorted(marks)
    return (width, height), frame, ticks


def frame_problems(path) -> list[str]:
    """What is wrong with an SVG's plot frame and tick labels (empty: nothing). A panel below
    the plot sharing its x axis (by-length's counts) carries the x labels: they are read there."""
    (width, height), (x0, y0, x1, y1), ticks = frame_and_ticks(path)
    panels = re.findall(r'id="(axes_\d+)"', path.read_text())
    if len(panels) > 1 and not ticks["x"]:
        ticks["x"] = frame_and_ticks(path, panels[-1])[2]["x"]
    problems = []
    if x1 - x0 < 0.5 * width or y1 - y0 < 0.35 * height:
        problems.append(f"frame {x1 - x0:.0f}x{y1 - y0:.0f} of a {width:.0f}x{height:.0f} figure")
    for which, (low, high) in (("x", (x0, x1)), ("y", (y0, y1))):
        marks = ticks[which]
        if which == "y" and path.stem == "ebf":  # rows named, no y ticks
            continue
        if len(marks) < 2:
            problems.append(f"{len(marks)} labelled {which} ticks")
        problems += [f"{which} tick {label} at {at:.0f} outside {low:.0f}-{high:.0f}"
                     for at, label in marks if not low - 0.5 <= at <= high + 0.5]
        if which == "x":  # neighbouring labels do not run together (7 pt type: under 6 units a character)
            problems += [f"x labels {a} and {b} overlap" for (pa, a), (pb, b) in zip(marks, marks[1:])
                         if pb - pa < 3.0 * (len(a) + len(b))]
    return problems


def test_scatter_legend_names_the_not_solved_band(built):
    labels = [t.get_text() for t in built["scatter-nodes_generated-idastar linear-conflict"].legends[0].get_texts()]
    assert "not solved: no value, drawn in the band" in labels
    assert any(label.startswith("baseline not solved (") for label in labels)


def test_svg_frames_fill_the_figure_and_ticks_are_readable(files):
    for name, path in files["svg"].items():
        assert frame_problems(path) == [], name
    (_, _, (x0, y0, x1, y1), _) = (None, *frame_and_ticks(files["svg"]["scatter-nodes_generated-idastar_pdb_4-4"]))
    assert x1 - x0 == pytest.approx(y1 - y0, rel=0.01)  # square: the diagonal at 45 degrees


def test_the_frame_check_fails_a_shrunken_frame(tmp_path):
    fig = Figure(figsize=(6, 3))
    ax = fig.add_axes((0.05, 0.1, 0.03, 0.8))  # the frame squeezed to a sliver, as a broken export draws it
    ax.plot([1, 1000], [1, 2])
    ax.set_xscale("log")
    with matplotlib.rc_context({"svg.fonttype": "none"}):
        fig.savefig(tmp_path / "broken.svg")
    assert any(p.startswith("frame ") for p in frame_problems(tmp_path / "broken.svg"))


@pytest.mark.parametrize("low, high", [(3.6e-5, 7.4e-5), (1.47e-5, 7.36e-4), (6.8e-5, 1.36e-4), (2.15e-4, 4.3e-4),
                                       (1.47e-4, 7.36e-3), (2e-6, 3e-2), (0.93, 1.4), (12, 7e4), (1.2e5, 3.3e9)])
def test_x_tick_labels_keep_apart_over_any_range(tmp_path, low, high):
    """The log axes' labels on a ratio scatter's narrow square, whatever range the timings
    span (the seconds of a small sweep move with the machine's load)."""
    style = Style("paper")
    with matplotlib.rc_context(style.rc):
        fig = style.figure(square=True, legend_rows=4)
        ax = fig.add_subplot()
        ax.scatter(np.geomspace(low, high, 20), np.geomspace(0.3, 3, 20))
        ax.set(xscale="log", yscale="log", ylabel="idastar linear-conflict / idastar manhattan\n(ratio of seconds)")
        log_ticks(ax.xaxis)
        log_ticks(ax.yaxis)
        fig.savefig(tmp_path / "ticks.svg")
    assert frame_problems(tmp_path / "ticks.svg") == []


def test_log_axes_past_a_billion_read_t_and_p_as_the_pages_do():
    """Nodes of a hard sweep (10^12 and more) are labelled 1T, 10T, 1P, not 1e+03G."""
    fig = Figure()
    FigureCanvasAgg(fig)
    ax = fig.add_subplot()
    ax.set(xscale="log", xlim=(1e9, 1e15))
    log_ticks(ax.xaxis)
    fig.canvas.draw()
    labels = [label.get_text() for label in ax.get_xticklabels() if label.get_text()]
    assert {"1G", "1T", "1P"} <= set(labels), labels
    assert not any("e+" in label for label in labels), labels
    assert '"T"' in plots.COMPACT_TICKS and '"P"' in plots.COMPACT_TICKS


def series_looks(fig: Figure) -> list[tuple]:
    """(marker, line style) of every labelled series in the figure's legend (a shaded band is no series)."""
    legend = fig.legends[0]
    looks = []
    for handle in legend.legend_handles:
        if isinstance(handle, Rectangle):
            continue
        if hasattr(handle, "get_linestyle") and hasattr(handle, "get_marker"):
            looks.append((handle.get_marker(), str(handle.get_linestyle())))
        else:  # a scatter's collection: its marker path
            looks.append((str(handle.get_paths()[0].vertices.round(2).tolist()), "scatter"))
    return looks


@pytest.fixture(scope="module")
def built(data):
    with matplotlib.rc_context(Style().rc):
        return build_figures(data, Style())


def test_series_stay_apart_in_greyscale(built, files, tmp_path):
    for name, fig in built.items():
        if name != "ebf":  # ebf: a named row per configuration
            looks = series_looks(fig)
            assert len(set(looks)) == len(looks), (name, looks)
    assert len(series_looks(built["coverage-nodes_generated"])) == 6
    with Image.open(files["png"]["coverage-nodes_generated"]) as image:
        grey = np.asarray(image.convert("L"), float)
    # the curves and markers leave many distinct grey levels (not one uniform tone)
    assert len(np.unique(grey)) > 50 and grey.min() < 80


def test_predicted_vs_measured_draws_jobs_predicts_comparison(swept, built):
    """One point per completed IDA* iteration and method, at (measured, predicted) as
    ``tilesweep predict``'s comparison computes them, each method's sum ratio in the legend,
    log-log with the diagonal."""
    expected = compare_sweep(read_spec(swept), load_results(swept), open_store(swept.parent / "store"))
    assert [c.heuristic for c in expected] == ["manhattan", "linear-conflict", "pdb:4-4"]
    for found in expected:
        assert len(found.iterations) > 20 and found.agreements  # a real comparison: many completed iterations
        fig = built[f"predicted-vs-measured-idastar {found.heuristic}"]
        ax = fig.axes[0]
        assert ax.get_xscale() == ax.get_yscale() == "log"
        diagonal = ax.lines[0]
        assert list(diagonal.get_xdata()) == list(diagonal.get_ydata())
        points = [c.get_offsets() for c in ax.collections]
        assert len(points) == len(found.agreements)
        for a, xy in zip(found.agreements, points):
            np.testing.assert_allclose(np.asarray(xy), found.iterations[["measured", a.method]].to_numpy(float))
        labels = [t.get_text() for t in fig.legends[0].get_texts()]
        assert labels[0] == "predicted = measured"
        assert labels[1:] == [f"{name} (sum ratio {ratio_text(a.aggregate)})"
                              for name, a in zip(("KRE", "CDP", "CDP, two steps"), found.agreements)]
        for a, dots in zip(found.agreements, ax.collections):  # each method drawn as the page draws it
            assert to_hex(dots.get_edgecolor()[0]) == look(a.method).colour.lower()
    assert not any(name.startswith("predicted-vs-measured-astar") for name in built)


def test_a_configuration_without_its_distributions_is_named_in_one_line(swept, tmp_path, monkeypatch):
    monkeypatch.setenv("TILESWEEP_STORE", str(tmp_path / "empty-store"))  # pdb:4-4's table not there
    result = RUNNER.invoke(app, ["figures", str(swept), "--format", "png", "--out", str(tmp_path / "f")])
    assert result.exit_code == 0, result.output
    names = {p.stem for p in (tmp_path / "f").iterdir()}
    assert {"predicted-vs-measured-idastar_manhattan", "predicted-vs-measured-idastar_linear-conflict"} <= names
    assert "predicted-vs-measured-idastar_pdb_4-4" not in names
    said = [line for line in result.stderr.splitlines() if line.startswith("no predicted-vs-measured figure")]
    assert len(said) == 1 and "idastar pdb:4-4" in said[0]


def test_report_with_figures_predicts_once_and_both_name_the_methods_alike(swept, tmp_path, monkeypatch):
    """``report --figures``: the page and the figure files draw one computation of the
    predictions, and each method's label and colour (:mod:`.method_looks`) is in both."""
    calls = []
    counted = prediction_section.comparisons
    monkeypatch.setattr(prediction_section, "comparisons", lambda *a, **k: calls.append(1) or counted(*a, **k))
    page, folder = tmp_path / "r.html", tmp_path / "f"
    result = RUNNER.invoke(app, ["report", str(swept), "--out", str(page), "--figures", str(folder),
                                 "--figure-format", "svg"])
    assert result.exit_code == 0, result.output
    assert len(calls) == 1
    html = page.read_text()
    svg = (folder / "predicted-vs-measured-idastar_manhattan.svg").read_text()
    for method in ("kre", "cdp", "cdp2"):
        shown = look(method)
        assert f"<td data-value=\"{shown.label}\">{shown.label}</td>" in html
        assert re.search(f">{re.escape(shown.label)} \\(sum ratio [0-9.]+\\)</text>", svg), method
        assert shown.colour.lower() in html.lower() and shown.colour.lower() in svg.lower(), method


def test_the_prediction_table_formats_every_ratio_alike(swept, tmp_path):
    """Each ratio cell of the page's prediction table is :func:`ratio_text` of its exact value."""
    html = build_report([str(swept)], str(tmp_path / "r.html")).path.read_text()
    table = html[html.index('<table id="prediction"'):]
    table = table[:table.index("</table>")]
    rows = re.findall(r"<tr>(.*?)</tr>", table, re.S)[1:]
    assert rows
    for row in rows:
        cells = re.findall(r'<td data-value="([^"]*)">([^<]*)</td>', row)
        ratios = cells[len(COUNT_COLUMNS):]
        assert len(ratios) == len(RATIO_COLUMNS)
        assert all(text == ratio_text(float(value)) for value, text in ratios), ratios


def test_ebf_names_a_box_per_configuration_from_the_shared_table(data, built):
    """One box per configuration, named on its row (no colour to tell apart), at the quartiles
    and median of :func:`ebf_summary`, which the rows' own percentiles check."""
    ax = built["ebf"].axes[0]
    names = [t.get_text() for t in ax.texts][::-1]  # drawn bottom up
    summary = ebf_summary(data)
    assert names == [f"{c} (n = {n:,})" for c, n in zip(summary["config"], summary["n"])]
    medians = [line.get_xdata()[0] for line in ax.lines if line.get_linewidth() == pytest.approx(1.4)][::-1]
    assert medians == pytest.approx(summary["median"].to_numpy())
    solved = data.rows[(data.rows["status"] == "solved") & (data.rows["config"] == data.configs[0])]
    assert summary["q3"].iloc[0] == pytest.approx(np.percentile(solved["ebf"], 75))


def test_legend_lies_inside_the_file_and_off_the_plot(built):
    for name, fig in built.items():
        if name == "ebf":  # no legend: each box is named on its row
            assert not fig.legends
            continue
        renderer = FigureCanvasAgg(fig).get_renderer()
        fig.draw(renderer)
        box, page = fig.legends[0].get_window_extent(renderer), fig.bbox
        assert page.x0 <= box.x0 and box.x1 <= page.x1 + 0.5 and page.y0 <= box.y0 and box.y1 <= page.y1 + 0.5, name
        plot = fig.axes[0].get_window_extent(renderer)
        assert box.y1 <= plot.y0, name  # below the plot: hides no data


def test_bokeh_and_matplotlib_draw_the_same_coverage(data, built):
    curves = coverage_curves(data, "nodes_generated")
    page = plots.coverage(data, "nodes_generated")
    lines = [line for line in built["coverage-nodes_generated"].axes[0].lines]
    for i, config in enumerate(data.configs):
        mine = curves[curves["config"] == config]
        assert page.renderers[i].data_source.data["x"] == pytest.approx(mine["x"].to_numpy())
        assert lines[i].get_xdata() == pytest.approx(mine["x"].to_numpy())
        assert lines[i].get_label() == config


def test_by_length_breaks_at_lengths_without_a_run(data):
    missing = int(data.rows.loc[data.rows["status"] == "solved", "cost"].median())
    gap = dataclasses.replace(data, rows=data.rows[data.rows["cost"] != missing])
    series = length_series(gap)
    at = series[series["cost"] == missing]
    assert len(at) == len(data.configs) and (at["n"] == 0).all() and at["median"].isna().all()
    with_runs = series[series["n"] > 0]
    assert with_runs["median"].notna().all()
    solved = data.rows[(data.rows["status"] == "solved") & (data.rows["cost"] != missing)]
    assert with_runs.set_index(["config", "cost"])["n"].sum() == len(solved)


@pytest.mark.parametrize("args, quoted", [
    (["--width", "0.2"], "'0.2'"),
    (["--width", "wide"], "'wide'"),
    (["--format", "gif"], "'gif'"),
    (["--style", "poster"], "'poster'"),
    (["--baseline", "euclid"], "'euclid'"),
])
def test_bad_input_is_one_line_exit_2(swept, tmp_path, args, quoted):
    result = RUNNER.invoke(app, ["figures", str(swept), "--out", str(tmp_path / "f"), *args])
    assert result.exit_code == 2, result.output
    assert len(result.stderr.strip().splitlines()) == 1 and quoted in result.stderr
    assert not (tmp_path / "f").exists()


def test_a_configuration_that_solved_nothing_keeps_its_legend_entry(data):
    config = data.configs[0]
    none = data.rows["config"] == config
    failed = dataclasses.replace(data, rows=data.rows.assign(status=data.rows["status"].astype(str).where(
        ~none, "budget_exceeded")))
    page = plots.coverage(failed, "nodes_generated")
    assert [item.label["value"] for item in page.legend[0].items] == failed.configs
    with matplotlib.rc_context(Style().rc):
        fig = build_figures(failed, Style())["coverage-nodes_generated"]
    assert [t.get_text() for t in fig.legends[0].get_texts()] == failed.configs


def test_ratio_scatter_draws_each_instance_and_the_tables_geometric_mean(data, built):
    """y = ratio, x = the baseline's value, one point per instance both solved; the mean line
    is the node ratio ``tilesweep table`` prints."""
    config = "idastar pdb:4-4"
    ax = built[f"ratio-nodes_generated-{config}"].axes[0]
    points = ratio_points(data, config, "idastar manhattan")
    drawn = ax.collections[-1].get_offsets()
    assert len(drawn) == len(points) > 10
    assert np.asarray(drawn[:, 0]) == pytest.approx(points["x"].to_numpy())
    assert np.asarray(drawn[:, 1]) == pytest.approx(points["ratio"].to_numpy())
    table = configuration_table(data).set_index("configuration")
    mean = [line for line in ax.lines if line.get_label().startswith("geometric mean")][0]
    assert mean.get_ydata()[0] == pytest.approx(table.loc[config, "ratio"])
    assert ax.get_xscale() == ax.get_yscale() == "log"


def test_a_changed_value_is_its_own_kind_only_when_asked():
    pairs = pd.DataFrame({"instance": [1, 2, 3, 4], "status": ["solved", "solved", "timeout", "solved"],
                          "status_base": ["solved", "solved", "solved", "timeout"],
                          "v": [10.0, 12.0, 5.0, 7.0], "v_base": [10.0, 11.0, 5.0, 7.0]})
    plain, _, edge = scatter_points(pairs, "v")
    assert plain["kind"].tolist() == ["both solved", "both solved", "not solved", "baseline not solved"]
    changed, _, _ = scatter_points(pairs, "v", changed=True)
    assert changed["kind"].tolist() == ["both solved", "both solved, changed", "not solved", "baseline not solved"]
    assert changed["y"].iloc[2] == changed["x"].iloc[3] == edge  # no value: in the band, not the budget


@pytest.fixture(scope="module")
def two_sweeps(swept, tmp_path_factory):
    """The report sweep and a second run of the same code under a smaller node budget (``new``)."""
    return swept, report_sweep(tmp_path_factory.mktemp("new"), name="new", max_nodes=1500)


def test_compare_adds_before_after_figures_of_every_configuration(two_sweeps, tmp_path):
    old, new = two_sweeps
    result = RUNNER.invoke(app, ["figures", str(old), str(new), "--compare", "--format", "svg", "--out",
                                 str(tmp_path)])
    assert result.exit_code == 0, result.output
    names = {p.stem for p in tmp_path.iterdir()}
    for config in ("astar_manhattan", "idastar_pdb_4-4"):
        for kind in ("before-after-nodes_generated", "before-after-seconds", "before-after-ratio-seconds"):
            assert f"{kind}-{config}" in names
    data = load(open_sweeps([str(old), str(new)]))
    with matplotlib.rc_context(Style().rc):
        fig = build_figures(data, Style(), compare=True)["before-after-nodes_generated-idastar manhattan"]
    labels = [t.get_text() for t in fig.legends[0].get_texts()]
    # the same code: no node count changed; the smaller budget leaves runs the old sweep solved unsolved
    assert not any(label.startswith("both solved, changed") for label in labels)
    assert any(label.startswith("not solved (") for label in labels)
    assert frame_problems(tmp_path / "before-after-ratio-seconds-idastar_manhattan.svg") == []


def test_compare_needs_two_sweeps(swept, tmp_path):
    result = RUNNER.invoke(app, ["figures", str(swept), "--compare", "--out", str(tmp_path / "f")])
    assert result.exit_code == 2 and "--compare needs exactly two sweeps" in result.stderr
    assert not (tmp_path / "f").exists()


@pytest.mark.browser
def test_pgf_is_a_pgf_picture_with_the_papers_fonts(swept, tmp_path):
    require_tex()
    result = RUNNER.invoke(app, ["figures", str(swept), "--format", "pgf", "--out", str(tmp_path)])
    assert result.exit_code == 0, result.output
    text = (tmp_path / "coverage-nodes_generated.pgf").read_text()
    assert "\\begin{pgfpicture}" in text and "\\end{pgfpicture}" in text
    assert "share of runs solved" in text and "idastar manhattan" in text  # text left for LaTeX to set
    assert len(list(tmp_path.glob("*.pgf"))) == len(list(tmp_path.iterdir()))


def test_pgf_without_latex_is_one_line(swept, tmp_path, monkeypatch):
    monkeypatch.setenv("PATH", str(tmp_path))  # no pdflatex to be found
    result = RUNNER.invoke(app, ["figures", str(swept), "--format", "pgf", "--out", str(tmp_path / "f")])
    assert result.exit_code == 1 and len(result.stderr.strip().splitlines()) == 1
    assert "format 'pgf' needs pdflatex" in result.stderr and not (tmp_path / "f").exists()
