"""Summaries per (size, algorithm, heuristic), with and without a baseline, on known rows."""

import json

import pandas as pd
import pytest

from tilesweep.jobs.summary import format_frame, format_summary, summarize
from tilesweep.solver.errors import InvalidOptionError


def row(instance, heuristic, nodes, status="solved", cost=10, seconds=0.5, algorithm="astar"):
    return dict(sweep="s", size=3, goal="blank-last", tiles=f"t{instance}", instance=instance, algorithm=algorithm,
                heuristic=heuristic, status=status, cost=cost if status == "solved" else None,
                nodes_generated=nodes, ebf=1.5 if status == "solved" else None, seconds=seconds)


ROWS = pd.DataFrame([
    row(0, "manhattan", 100), row(1, "manhattan", 200), row(2, "manhattan", 300),
    row(3, "manhattan", 50, status="budget_exceeded"),
    row(0, "lc", 50), row(1, "lc", 200), row(2, "lc", 400), row(3, "lc", 0, status="error"),
])


def test_counts_and_statistics_over_solved_rows():
    s = summarize(ROWS).set_index("heuristic")
    m = s.loc["manhattan"]
    assert (m.instances, m.solved, m.budget_exceeded, m.error, m.unsolvable) == (4, 3, 1, 0, 0)
    assert (m.nodes_mean, m.nodes_median, m.nodes_max) == (200, 200, 300)
    assert m.nodes_p90 == pytest.approx(280)
    assert m.nodes_per_second == pytest.approx(600 / 1.5) and m.cost_mean == 10
    assert s.loc["lc"].error == 1


def test_baseline_reduction_and_pairwise_counts():
    s = summarize(ROWS, baseline="manhattan").set_index("heuristic")
    lc = s.loc["lc"]
    assert (lc.paired, lc.fewer, lc.equal, lc.more) == (3, 1, 1, 1)
    assert lc.node_reduction_pct == pytest.approx(100 * (1 - 650 / 600))
    assert s.loc["manhattan"].node_reduction_pct == 0 and s.loc["manhattan"].equal == 3


def test_unknown_baseline_and_format():
    with pytest.raises(InvalidOptionError, match="'euclid'"):
        summarize(ROWS, baseline="euclid")
    with pytest.raises(InvalidOptionError, match="'xml'"):
        format_frame(summarize(ROWS), "xml")
    assert format_frame(summarize(ROWS), "csv").splitlines()[0].startswith("size,algorithm,heuristic,instances")


def test_csv_numbers_have_no_float_noise():
    frame = pd.DataFrame({"mean": [sum([1.1, 2.2, 3.3]) / 3, 0.1 + 0.2, 2.0, 1e-7 / 3], "count": [1, 2, 3, 4]})
    assert frame["mean"][0] != 2.2 and frame["mean"][1] != 0.3  # the noise this test is about
    assert format_frame(frame, "csv").splitlines() == ["mean,count", "2.2,1", "0.3,2", "2,3",
                                                       "3.33333333333333e-08,4"]


def korf_like_rows() -> pd.DataFrame:
    """Two algorithms x three heuristics with 15-puzzle-sized figures and the longest
    common heuristic name of a 4x4 sweep."""
    out = []
    for algorithm in ("astar", "idastar"):
        for h, nodes in (("manhattan", 363_028_090), ("linear-conflict", 48_431_271), ("pdb:7-8+reflect", 9_671)):
            out += [row(i, h, nodes + i, cost=52 + i % 3, seconds=1234.5 * nodes / 4e8, algorithm=algorithm)
                    for i in range(100)]
    return pd.DataFrame(out).assign(size=4, goal="blank-first")


def test_the_default_table_fits_80_columns_and_shows_the_first_columns():
    frame = summarize(korf_like_rows(), "manhattan")
    text = format_summary(frame, "table", clock="wall")  # the rows carry wall seconds only
    lines = text.splitlines()
    assert max(map(len, lines)) <= 80, text
    assert lines[0].split() == ["algorithm", "heuristic", "solved", "nodes", "median", "ebf", "cost", "wall-time",
                                "reduction"]
    assert "reduction: nodes saved against manhattan on the instances both solved" in lines
    pdb = next(line for line in lines if "idastar" in line and "pdb:7-8+reflect" in line).split()
    assert pdb[2:5] == ["100/100", "9.72k", "9.72k"] and pdb[6] == "52.99" and pdb[-1] == "100.0%"
    manhattan = next(line for line in lines if "astar" in line and "manhattan" in line).split()
    assert manhattan[3] == "363M" and manhattan[7] == "1,120s"


def test_the_reduction_is_over_the_instances_both_solved_and_the_table_says_so():
    """A heuristic that solved 2 of 4 where the baseline solved all 4: its reduction is
    over those 2 (not over its solved rows against all of the baseline's)."""
    rows = pd.DataFrame([row(i, "manhattan", nodes) for i, nodes in enumerate((100, 200, 300, 10_000))]
                        + [row(0, "weak", 400), row(1, "weak", 800),
                           row(2, "weak", 0, status="budget_exceeded"), row(3, "weak", 0, status="timeout")])
    frame = summarize(rows, "manhattan")
    weak = frame.set_index("heuristic").loc["weak"]
    assert weak.paired == 2 and weak.node_reduction_pct == pytest.approx(100 * (1 - 1200 / 300))
    lines = format_summary(frame, "table").splitlines()
    cells = next(line for line in lines if "weak" in line).split()
    assert cells[2] == "2/4" and cells[-2:] == ["2", "-300.0%"]
    assert lines[0].split()[-2:] == ["pairs", "reduction"]
    assert "pairs, reduction: instances both solved; nodes saved on them against manhattan" in lines


def test_wide_csv_and_json_keep_every_column():
    frame = summarize(korf_like_rows(), "manhattan")
    wide = format_summary(frame, "table", wide=True)
    assert wide == format_frame(frame, "table") and wide.splitlines()[0].split() == list(frame.columns)
    assert format_summary(frame, "csv").splitlines()[0].split(",") == list(frame.columns)
    assert [list(r) for r in json.loads(format_summary(frame, "json"))] == [list(frame.columns)] * len(frame)


def test_several_sizes_add_the_size_column_and_no_baseline_drops_reduction():
    rows = pd.concat([korf_like_rows(), ROWS])
    lines = format_summary(summarize(rows), "table").splitlines()
    assert lines[0].split()[:2] == ["size", "algorithm"] and "reduction" not in lines[0]


def test_a_results_path_is_summarised_in_place_like_its_rows(tmp_path):
    """DuckDB reads the parts in place; the figures are those of the same rows in memory
    (percentiles may differ in the last bit: the interpolation is written differently)."""
    from tilesweep.jobs.results import load_results
    from tilesweep.jobs.spec import build_spec
    from tilesweep.jobs.sweep import prepare, run_local

    spec = build_spec({"out": str(tmp_path), "name": "s", "count": 60, "chunk_size": 7, "max_nodes": 300,
                       "algorithms": ("astar", "idastar"), "heuristics": ("manhattan", "misplaced")})[0]
    run_local(prepare(spec))
    rows = load_results(spec.folder)
    for baseline in (None, "manhattan"):
        on_disk = summarize(spec.folder, baseline)
        assert on_disk.columns.tolist() == summarize(rows, baseline).columns.tolist()
        pd.testing.assert_frame_equal(on_disk, summarize(rows, baseline), check_exact=False, rtol=1e-12)
    assert on_disk["budget_exceeded"].sum() > 0 and on_disk["solved"].sum() > 0
    assert on_disk[["algorithm", "heuristic"]].values.tolist() == [list(c) for c in spec.combos]


def test_json_keeps_every_digit_of_a_float_and_writes_missing_values_as_null():
    # A small mean whose last bits depend on summation order must not be rounded into a
    # different tenth decimal place (to_json's default), nor an integer turned into a float.
    frame = pd.DataFrame({"seconds_mean": [0.00016464704999999, float("nan")], "instances": [160, 7],
                          "heuristic": ["manhattan", None]})
    assert json.loads(format_frame(frame, "json")) == [
        {"seconds_mean": 0.00016464704999999, "instances": 160, "heuristic": "manhattan"},
        {"seconds_mean": None, "instances": 7, "heuristic": None}]


def test_a_partial_sweep_says_how_many_chunks_are_done(tmp_path):
    """2 of 5 chunks written: the table ends with the note, csv and json keep their columns
    and say it on stderr; a finished sweep says nothing of the kind."""
    from typer.testing import CliRunner

    from tilesweep.cli import app
    from tilesweep.jobs.parts import write_part
    from tilesweep.jobs.spec import build_spec
    from tilesweep.jobs.sweep import finish, prepare, run_local
    from tilesweep.jobs.work import solve_chunk_table

    spec, _ = build_spec(dict(size=3, count=10, seed=2, chunk_size=2, out=str(tmp_path), name="part"))
    with prepare(spec) as plan:
        for job in plan.pending[:2]:
            write_part(spec, job.chunk, solve_chunk_table(job, lambda name: ()))
    runner = CliRunner()
    note = f"partial: sweep part has 2 of {spec.n_chunks} chunks done"
    table = runner.invoke(app, ["summary", str(spec.folder)])
    assert table.exit_code == 0 and note in table.stdout.strip().splitlines()[-1], table.output
    for fmt in ("csv", "json"):
        done = runner.invoke(app, ["summary", str(spec.folder), "--format", fmt])
        assert done.exit_code == 0 and note in done.stderr and "partial" not in done.stdout, done.output
    assert json.loads(runner.invoke(app, ["summary", str(spec.folder), "--format", "json"]).stdout)[0]["instances"] == 4

    with prepare(spec) as plan:
        run_local(plan)
        finish(spec)
    whole = runner.invoke(app, ["summary", str(spec.folder)])
    assert whole.exit_code == 0 and "partial" not in whole.output


def test_the_table_reads_counts_past_a_billion_in_t_and_p():
    """A 24-puzzle sweep's node means (10^12 and more) read 1.20T, not 1200G."""
    rows = pd.DataFrame([row(0, "manhattan", 1.2e12), row(0, "pdb", 3.0e15)])
    lines = format_summary(summarize(rows, None), "table").splitlines()
    assert "1.20T" in next(line for line in lines if "manhattan" in line)
    assert "3.00P" in next(line for line in lines if "pdb" in line)
