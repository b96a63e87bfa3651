"""Reading sweeps' results: summary, query, sql, compare, report, figures, table and verify."""

from __future__ import annotations

import time
from pathlib import Path
from typing import Annotated, Optional

import typer

from tilesweep.commands.exits import run_guarded
from tilesweep.commands.options import ClockOpt, FormatOpt, RowFormatOpt, StoreOpt, SweepsArg, WideOpt, one_of, typed
from tilesweep.solver.errors import InvalidOptionError


def summary(
    results: Annotated[str, typer.Argument(
        help="A sweep folder (OUT/NAME), its results/ folder, or a folder of sweeps.")],
    baseline: Annotated[Optional[str], typer.Option(
        "--baseline", help="Heuristic to compare node counts with.")] = None,
    fmt: FormatOpt = "table",
    wide: WideOpt = False,
    clock: ClockOpt = "cpu",
) -> None:
    """Summarise results per (size, algorithm, heuristic); write summary.parquet into the sweep folder.

    Every part is first checked against the sweep's manifest; a damaged, missing or stray
    part is named (exit 1) and nothing is counted. summary.parquet is written when RESULTS
    is one sweep.

    Example: tilesweep summary sweeps/8puzzle-uniform-n1000-s0-1a2b3c4d --baseline manhattan
    """
    import pyarrow as pa

    from tilesweep.jobs.clocks import check_clock
    from tilesweep.jobs.parts import write_summary
    from tilesweep.jobs.results import verify_results
    from tilesweep.jobs.summary import format_summary, summarize

    def action():
        check_clock(clock)
        sweeps = verify_results(results)
        paths = [p for s in sweeps for p in s.paths]
        if not paths:
            raise InvalidOptionError(f"results {results!r} hold no parts yet; run (or resume) the sweep first")
        frame = summarize(paths, baseline)
        if len(sweeps) == 1 and not Path(results).is_file():
            table = pa.Table.from_pandas(frame, preserve_index=False)
            write_summary(sweeps[0].folder, table, sweeps[0].records, baseline)
        return format_summary(frame, fmt, wide, clock), partial_notes(sweeps)

    text, notes = run_guarded(action)
    if fmt == "table":  # csv and json keep their columns; the note goes to stderr
        text = "\n".join([text, *notes])
    else:
        for note in notes:
            typer.echo(note, err=True)
    typer.echo(text)


def partial_notes(sweeps) -> list[str]:
    """A line for each sweep not every chunk of which is done: its counts are of those chunks only."""
    return [f"partial: sweep {s.spec.name} has {len(s.records):,} of {s.spec.n_chunks:,} chunks done; the counts "
            "above are of those chunks only (resume the sweep for the rest)"
            for s in sweeps if len(s.records) < s.spec.n_chunks]


def query(
    results: Annotated[str, typer.Argument(
        help="A sweep folder (OUT/NAME), its results/ folder, or a folder of sweeps.")],
    where: Annotated[Optional[str], typer.Option(
        "--where", help="pandas query, e.g. 'status == \"solved\" and cost > 20'.")] = None,
    group_by: Annotated[Optional[str], typer.Option("--group-by", help="Comma list of columns.")] = None,
    agg: Annotated[Optional[list[str]], typer.Option(
        "--agg", help="COL:FN (count, sum, mean, median, min, max, std, nunique, pNN); repeat.")] = None,
    sort: Annotated[Optional[str], typer.Option("--sort", help="Column to sort by; -COL for descending.")] = None,
    limit: Annotated[Optional[int], typer.Option("--limit", help="At most this many rows.")] = None,
    fmt: RowFormatOpt = "table",
    output: Annotated[Optional[str], typer.Option(
        "--output", "-o", help="Write to this file instead of stdout.")] = None,
    columns: Annotated[Optional[str], typer.Option(
        "--columns",
        help="Comma list of the columns to show, or all (default: every column, but a table of rows leaves out "
             "iterations, tiles, moves, worker, error and the limits).")] = None,
) -> None:
    """Filter, group and aggregate result rows (every part checked against the sweep's manifest first).

    Example: tilesweep query sweeps/NAME --where 'status == "solved"' --group-by heuristic --agg nodes_generated:mean
    """
    from tilesweep.jobs.query import parse_query, run_query
    from tilesweep.jobs.results import load_results
    from tilesweep.jobs.schema import COLUMNS
    from tilesweep.jobs.summary import format_frame

    def action():
        if fmt == "parquet" and not output:
            raise InvalidOptionError("format 'parquet' needs --output FILE")
        q = parse_query(where, group_by, tuple(agg or ()), sort, limit, columns)
        frame = run_query(load_results(results, q.columns(COLUMNS)), q, fmt)
        if fmt == "parquet":
            return write_output(output, lambda handle: frame.to_parquet(handle, index=False))
        return text_or_file(format_frame(frame, fmt), output)

    text = run_guarded(action)
    if text is not None:
        typer.echo(text)


def write_output(output: str, write) -> None:
    """Write ``--output`` through the package's one atomic writer: a regular file only (a
    folder, FIFO, device, symbolic link or missing folder is refused in one line)."""
    from tilesweep.pdb_store.files import OutputTargetError, atomic_write

    try:
        atomic_write(Path(output), write)
    except OutputTargetError as err:
        raise OutputTargetError(f"--output {err}") from None


def text_or_file(text: str, output: Optional[str]) -> Optional[str]:
    """``text`` to print, or None once it is written to the file ``output``."""
    if not output:
        return text
    write_output(output, lambda handle: handle.write((text + "\n").encode()))
    return None


def sql(
    query_text: Annotated[str, typer.Argument(
        metavar="QUERY",
        help="One DuckDB SELECT over the views results and summary (WITH, DESCRIBE and SUMMARIZE are SELECTs too).")],
    sweeps: SweepsArg,
    fmt: RowFormatOpt = "table",
    output: Annotated[Optional[str], typer.Option(
        "--output", "-o", help="Write to this file instead of stdout.")] = None,
    allow_writes: Annotated[bool, typer.Option(
        "--allow-writes",
        help="Run any DuckDB statements (several, separated by ;) with full file access: COPY, ATTACH, SET, read_csv"
             " of any file.")] = False,
) -> None:
    """Run SQL (DuckDB) over sweeps' Parquet in place: views results (every row) and summary.

    Read-only by default: exactly one SELECT, and DuckDB may open only the verified files
    of those two views (no COPY, ATTACH, SET, INSTALL, nor read_csv or read_parquet of
    other files; refused with one line, exit 2). --allow-writes lifts all of it.

    Example: tilesweep sql "SELECT heuristic, avg(nodes_generated) FROM results WHERE status = 'solved' GROUP BY heuristic" sweeps/NAME
    """  # noqa: E501 (help prints the example as it is written: one line to copy)
    import pyarrow.parquet as pq

    from tilesweep.jobs.report.sql import connect, run_sql
    from tilesweep.jobs.report.sweeps import open_sweeps
    from tilesweep.jobs.summary import format_frame

    def action():
        if fmt == "parquet" and not output:
            raise InvalidOptionError("format 'parquet' needs --output FILE")
        table = run_sql(connect(open_sweeps(sweeps), allow_writes=allow_writes), query_text, allow_writes)
        if table is None:
            return None
        if fmt == "parquet":
            return write_output(output, lambda handle: pq.write_table(table, handle))
        return text_or_file(format_frame(table.to_pandas(), fmt), output)

    text = run_guarded(action)
    if text is not None:
        typer.echo(text)


def compare(
    old: Annotated[str, typer.Argument(help="The earlier sweep folder.")],
    new: Annotated[str, typer.Argument(help="The later sweep folder (same instances).")],
    threshold: Annotated[str, typer.Option(
        "--threshold", help="Flag a time ratio above 1 + this (percent), e.g. 5%.")] = "5%",
    fmt: FormatOpt = "table",
    clock: ClockOpt = "cpu",
    mixed_conventions: Annotated[bool, typer.Option(
        "--mixed-conventions", help="Pair rows counted under different --conventions too (refused by default: "
                                    "their node counts count different things).")] = False,
) -> None:
    """Pair two sweeps' rows: cost differences (exit 1), node and status changes, CPU (or --clock wall) time ratio.

    Example: tilesweep compare sweeps/before sweeps/after --threshold 5%
    """
    from tilesweep.jobs.clocks import check_clock
    from tilesweep.jobs.report.compare import (
        compare as compare_rows,
        format_comparison,
        load_pairs_side,
        parse_threshold,
    )
    from tilesweep.jobs.report.sweeps import open_sweeps

    def action():
        fraction = parse_threshold(threshold)
        check_clock(clock)
        result = compare_rows(load_pairs_side(open_sweeps([old])), load_pairs_side(open_sweeps([new])), fraction,
                              names=(old, new), clock=clock, mixed_conventions=mixed_conventions)
        return result, format_comparison(result, fmt)

    result, text = run_guarded(action)
    typer.echo(text)
    if result.cost_differences:
        typer.echo(f"error: {result.cost_differences} instance(s) solved by both sweeps with different costs", err=True)
        raise typer.Exit(1)


def report(
    sweeps: SweepsArg,
    out: Annotated[Optional[str], typer.Option(
        "--out", help="HTML file to write (default SWEEP/report.html for one sweep, else ./report.html).")] = None,
    baseline: Annotated[Optional[str], typer.Option(
        "--baseline", help="Heuristic the scatter plots compare with (default: the first sweep's first).")] = None,
    figures: Annotated[Optional[str], typer.Option(
        "--figures", help="Also write each figure into this folder (as `tilesweep figures` does).")] = None,
    figure_format: Annotated[str, typer.Option(
        "--figure-format", parser=one_of("figure format", ("pdf", "svg", "png")), help="pdf, svg or png.")] = "png",
    with_compare: Annotated[bool, typer.Option(
        "--compare", help="Add a comparison section (exactly two sweeps: OLD NEW).")] = False,
    threshold: Annotated[str, typer.Option(
        "--threshold", help="With --compare: flag time ratios above 1 + this (percent).")] = "5%",
    clock: ClockOpt = "cpu",
) -> None:
    """Write one self-contained HTML report (plots, tables, replays) of one or more sweeps.

    Example: tilesweep report sweeps/NAME --baseline manhattan --figures figures/
    """
    from tilesweep.jobs.clocks import check_clock
    from tilesweep.jobs.report.build import build_report
    from tilesweep.jobs.report.compare import parse_threshold
    from tilesweep.jobs.report.figures import write_figures

    def action():
        start = time.perf_counter()
        built = build_report(sweeps, out, baseline, with_compare, parse_threshold(threshold), check_clock(clock))
        typer.echo(f"report: {built.path} ({built.bytes / 2**20:.1f} MiB, {len(built.data.rows):,} runs, "
                   f"{time.perf_counter() - start:.1f} s)", err=True)
        if figures:
            for path in write_figures(built.data, figures, figure_format, predicted_here=built.predictions):
                typer.echo(f"figure: {path}", err=True)
        return built

    built = run_guarded(action)
    typer.echo(str(built.path))
    if built.comparison is not None and built.comparison.cost_differences:
        typer.echo(f"error: {built.comparison.cost_differences} instance(s) solved by both sweeps with different "
                   "costs", err=True)
        raise typer.Exit(1)


def figures(
    sweeps: SweepsArg,
    fmt: Annotated[str, typer.Option(
        "--format", parser=one_of("format", ("pdf", "svg", "png", "pgf")),
        help="pdf, svg, png (300 dpi) or pgf (for \\input; needs pdflatex).")] = "pdf",
    out: Annotated[Optional[str], typer.Option(
        "--out", help="Folder to write into (default SWEEP/figures for one sweep, else ./figures).")] = None,
    style: Annotated[str, typer.Option(
        "--style", parser=one_of("style", ("paper", "slides")),
        help="paper (3.4 in wide, 8 pt type) or slides (8 in, 14 pt).")] = "paper",
    width: Annotated[Optional[str], typer.Option(
        "--width", help="Figure width in inches (7 for two columns) or points (246pt); default by --style.")] = None,
    baseline: Annotated[Optional[str], typer.Option(
        "--baseline", help="Heuristic the scatter plots compare with (default: the first sweep's first).")] = None,
    with_compare: Annotated[bool, typer.Option(
        "--compare", help="Also draw before/after figures (exactly two sweeps: OLD NEW).")] = False,
    clock: ClockOpt = "cpu",
) -> None:
    """Write the report's figures as files a paper can print: PDF, SVG, PNG or PGF (matplotlib).

    Coverage against nodes and time, per-instance scatters, ratio scatters and node-ratio
    ECDFs against the baseline, nodes by solution length, EBF, IDA* iterations of the
    hardest instances, where IDA*'s nodes go by f-layer and KRE's and CDP's predicted nodes
    against the measured ones (distributions and tables from the store, $TILESWEEP_STORE);
    with --compare, each configuration's new against old.

    Example: tilesweep figures sweeps/NAME --format pdf --out paper/figures --width 3.4
    """
    from tilesweep.jobs.clocks import check_clock
    from tilesweep.jobs.report.data import load
    from tilesweep.jobs.report.figures import Style, parse_width, write_figures
    from tilesweep.jobs.report.sweeps import open_sweeps

    def action():
        chosen = Style(style, parse_width(width) if width else None)
        opened = open_sweeps(sweeps)
        folder = Path(out) if out else (opened[0].folder / "figures" if len(opened) == 1 else Path("figures"))
        return write_figures(load(opened, baseline, check_clock(clock)), folder, fmt, chosen, with_compare,
                             on_skip=lambda line: typer.echo(f"no predicted-vs-measured figure: {line}", err=True))

    for path in run_guarded(action):
        typer.echo(str(path))


def table(
    sweeps: SweepsArg,
    fmt: Annotated[str, typer.Option(
        "--format", parser=one_of("format", ("latex", "csv", "markdown")),
        help="latex (booktabs tabular, for \\input), csv (plain numbers) or markdown.")] = "latex",
    which: Annotated[str, typer.Option(
        "--table", parser=one_of("table", ("configurations", "published", "prediction")),
        help="configurations (per instance set and configuration), published (Korf's boards, ours beside) or "
             "prediction (IDA*'s nodes predicted by KRE and CDP against the measured, as the report's).")
    ] = "configurations",
    baseline: Annotated[Optional[str], typer.Option(
        "--baseline", help="Heuristic the node ratios are taken against (default: the first sweep's first).")] = None,
    output: Annotated[Optional[str], typer.Option(
        "--output", "-o", help="Write to this file instead of stdout.")] = None,
) -> None:
    """Print a table a paper can print: coverage, sums over the commonly solved, node ratios, CPU and wall time.

    The best value of each column is bold (LaTeX, Markdown). --table published sets the
    published length and nodes of Korf's 100 or Korf & Felner's 50 beside ours, per run;
    --table prediction is the report's predicted-against-measured table (distributions and
    tables read from the store, $TILESWEEP_STORE).

    Example: tilesweep table sweeps/korf100 --format latex --baseline manhattan -o table.tex
    """
    from tilesweep.jobs.report.data import load
    from tilesweep.jobs.report.sweeps import open_sweeps
    from tilesweep.jobs.report.tables import table_text

    def action():
        return text_or_file(table_text(load(open_sweeps(sweeps), baseline), which, fmt), output)

    text = run_guarded(action)
    if text is not None:
        typer.echo(text)


def verify(
    sweep: Annotated[str, typer.Argument(help="A sweep folder (OUT/NAME).")],
    sample: Annotated[Optional[int], typer.Option(
        "--sample", help="Rows to solve again, drawn by --seed (default 100; 0: every row).")] = 100,
    seed: Annotated[int, typer.Option("--seed", parser=typed("seed"), help="Seed of the sample (default 0).")] = 0,
    store: StoreOpt = None,
    plugin: Annotated[Optional[list[str]], typer.Option(
        "--plugin", help="The file of a plugin heuristic the sweep used, the version it recorded (its sha256); "
                         "repeat for several. The source stored in the sweep is never run.")] = None,
) -> None:
    """Solve a seeded sample of a sweep's rows again on this installation; compare status, cost, moves, nodes.

    Rows whose outcome depends on the machine (timeout, error, a memory budget) are left out.
    Exit 1 when any row differs, naming each. A sweep of plugin heuristics needs each
    plugin's file (--plugin FILE) whose sha256 is the one the sweep recorded.

    Example: tilesweep verify sweeps/NAME --sample 200
    """
    from tilesweep.jobs.recheck import recheck
    from tilesweep.jobs.results import verify_results

    def action():
        if sample is not None and sample < 0:
            raise InvalidOptionError(f"sample {sample!r} is too small; expected 0 (every row) or more")
        sweeps = verify_results(sweep)  # a damaged or stray part is refused before any row is read
        if len(sweeps) != 1 or not sweeps[0].paths:
            raise InvalidOptionError(f"sweep {sweep!r} is not one sweep with results; expected OUT/NAME of a sweep "
                                     "that has written parts")
        return recheck(sweeps[0].folder, sample or None, seed, store, plugin or ())

    found = run_guarded(action)
    for line in found.differences:
        typer.echo(f"differs: {line}")
    left = f", {found.skipped:,} left out (timeout, error or memory budget)" if found.skipped else ""
    typer.echo(f"solved {found.checked:,} of {found.rows:,} rows again (seed {seed}){left}: "
               f"{len(found.differences)} difference(s)")
    if found.differences:
        raise typer.Exit(1)
