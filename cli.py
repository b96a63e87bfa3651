"""tilesweep's command line: parse, call the library, print, map errors to exit codes.

Exit codes: 0 success (an unsolvable instance is a success), 2 bad input (one line on
stderr quoting the value), 1 anything else.
"""

from __future__ import annotations

import json
import sys
import time
from typing import Annotated, Optional

AS_SCRIPT = not __package__  # run as `python cli.py` rather than `tilesweep` or `python -m ...`
if AS_SCRIPT:  # this checkout's folder is the tilesweep package
    import importlib.util
    from pathlib import Path as _Path

    _root = _Path(__file__).resolve().parent
    _spec = importlib.util.spec_from_file_location("tilesweep", _root / "__init__.py",
                                                   submodule_search_locations=[str(_root)])
    sys.modules["tilesweep"] = importlib.util.module_from_spec(_spec)
    _spec.loader.exec_module(sys.modules["tilesweep"])

import typer
from typer.core import TyperGroup

try:  # recent typer vendors its own click
    from typer._click import exceptions as click_errors
except ImportError:  # pragma: no cover - older typer on plain click
    from click import exceptions as click_errors

from tilesweep.jobs.spec import OPTION_PARSERS
from tilesweep.solver.errors import InvalidBoardError, InvalidOptionError, TilesweepError, UnknownNameError


class OneLineErrors(TyperGroup):
    """Report click's own usage errors (a bad option value, an unknown option) as one
    line on stderr with exit code 2, like every other bad input."""

    def main(self, *args, standalone_mode: bool = True, **kwargs):
        try:
            code = super().main(*args, standalone_mode=False, **kwargs)
        except click_errors.NoArgsIsHelpError as err:
            typer.echo(err.ctx.get_help())
            code = 2
        except click_errors.UsageError as err:
            typer.echo(f"error: {err.format_message()}", err=True)
            code = 2
        except click_errors.ClickException as err:
            typer.echo(f"error: {err.format_message()}", err=True)
            code = 1
        except typer.Abort:
            typer.echo("error: interrupted", err=True)
            code = 130
        if not standalone_mode:
            return code
        sys.exit(code if isinstance(code, int) else 0)


app = typer.Typer(cls=OneLineErrors, add_completion=False, no_args_is_help=True, pretty_exceptions_enable=False,
                  help="Benchmark optimal sliding-tile puzzle search: solve, build PDBs, run sweeps on Dask.")
pdb_app = typer.Typer(no_args_is_help=True, help="Build, list and verify pattern databases.")
app.add_typer(pdb_app, name="pdb")

BAD_INPUT = (InvalidBoardError, InvalidOptionError, UnknownNameError)


def typed(name: str):
    """The typer parser of option ``name``: the library's own parser, its error reported as
    click's bad value (one line quoting it, exit 2), so the command receives typed values."""
    parse = OPTION_PARSERS[name]

    def parser(text: str):
        try:
            return parse(text)
        except BAD_INPUT as err:
            raise typer.BadParameter(str(err)) from None

    return parser

StoreOpt = Annotated[Optional[str], typer.Option("--store", help="PDB store folder (default: $TILESWEEP_STORE or the per-user cache).")]
SizeOpt = Annotated[Optional[int], typer.Option("--size", parser=typed("size"), help="Board width: 3, 4 or 5 (default: from the tile count).")]
GoalOpt = Annotated[str, typer.Option("--goal", help="blank-last, blank-first, or the goal's tiles.")]
MaxNodesOpt = Annotated[Optional[int], typer.Option("--max-nodes", parser=typed("max_nodes"), help="Stop after generating this many nodes (status budget_exceeded).")]
TimeLimitOpt = Annotated[Optional[float], typer.Option("--time-limit", parser=typed("time_limit"), help="Stop a solve after this many seconds (status timeout).")]
PruneOpt = Annotated[str, typer.Option("--prune", help="parent (never undo the last move; Korf's counting) or fsm[:DEPTH] (an automaton of duplicate move strings).")]
MaxMemoryOpt = Annotated[Optional[int], typer.Option("--max-memory", parser=typed("max_memory"), help="Memory A*, BFS and DFS may fill with boards, e.g. 2GB (status budget_exceeded, reason memory; default: from the memory limit).")]


def fail(message: str, code: int) -> None:
    """Print one line on stderr and exit with ``code``."""
    typer.echo(f"error: {message}", err=True)
    raise typer.Exit(code)


def run_guarded(action):
    """Call ``action``, turning library errors into one line and an exit code."""
    try:
        return action()
    except BAD_INPUT as err:
        fail(str(err), 2)
    except TilesweepError as err:
        fail(str(err), 1)


# --- solve --------------------------------------------------------------------------------


def load_tables(heuristic: str, size: int, goal, store: Optional[str], build: bool) -> tuple:
    """Pattern databases a ``pdb:`` heuristic needs, built on first use unless ``build`` is off."""
    from tilesweep.solver.heuristics import parse_heuristic
    spec = parse_heuristic(heuristic, size, goal)
    if not spec.is_pdb:
        return ()
    from tilesweep.pdb_store import open_store, tables_for

    def announce(group):
        typer.echo(f"building pattern database for tiles {','.join(map(str, group))} "
                   f"(size {size}); it is stored for later runs", err=True)

    return tables_for(spec, size, goal, open_store(store), build=build, on_build=announce)


def _print_solution(result, board, trace: bool) -> None:
    typer.echo(str(board))
    typer.echo(f"status     {result.status}" + (f" ({result.status_reason})" if result.status_reason else ""))
    if result.status == "solved":
        typer.echo(f"moves      {result.moves or '(none: already solved)'}")
        typer.echo(f"cost       {result.cost}")
    for label, value in (("generated", f"{result.nodes_generated:,}"), ("expanded", f"{result.nodes_expanded:,}"),
                         ("ebf", "-" if result.ebf is None else f"{result.ebf:.4f}"), ("h0", result.h0),
                         ("seconds", f"{result.seconds:.6f}")):
        typer.echo(f"{label:<10} {value}")
    if result.max_depth is not None:
        typer.echo(f"max depth  {result.max_depth}")
    if trace and result.iterations:
        typer.echo("\niteration  bound  nodes generated")
        for i, it in enumerate(result.iterations, 1):
            typer.echo(f"{i:>9}  {it['bound']:>5}  {it['nodes_generated']:>15,}")


@app.command(context_settings={"ignore_unknown_options": True})  # tiles may start with "-"
def solve(
    tiles: Annotated[str, typer.Argument(help="Tiles row-major, 0 = blank: '8 6 7 2 5 4 3 0 1', '8,6,7,...' or '867254301'.")],
    size: SizeOpt = None,
    goal: GoalOpt = "blank-last",
    algorithm: Annotated[str, typer.Option("--algorithm", "-a", help="astar, idastar, bfs or dfs.")] = "idastar",
    heuristic: Annotated[str, typer.Option("--heuristic", "-h", help="manhattan, linear-conflict, euclidean, misplaced, walking-distance, pdb:<partition>[+reflect], or max(A,B,...).")] = "manhattan",
    store: StoreOpt = None,
    max_nodes: MaxNodesOpt = None,
    time_limit: TimeLimitOpt = None,
    max_memory: MaxMemoryOpt = None,
    prune: PruneOpt = "parent",
    as_json: Annotated[bool, typer.Option("--json", help="Print one JSON object.")] = False,
    trace: Annotated[bool, typer.Option("--trace", help="Print the IDA* iteration table.")] = False,
    no_build: Annotated[bool, typer.Option("--no-build", help="Refuse instead of building a missing pattern database.")] = False,
) -> None:
    """Solve one board optimally and print the moves and the node counts.

    Example: tilesweep solve "8 6 7 2 5 4 3 0 1" --algorithm astar --heuristic linear-conflict
    """
    from tilesweep.cluster.memory import default_budget
    from tilesweep.solver import Board, solve as solve_board
    from tilesweep.solver.solve import check_algorithm, resolve_goal

    def action():
        board = Board.parse(tiles, size)
        goal_t = resolve_goal(goal, board.size)
        check_algorithm(algorithm)
        tables = load_tables(heuristic, board.size, goal_t, store, build=not no_build)
        memory = max_memory if max_memory is not None or algorithm == "idastar" else default_budget()
        return board, solve_board(board, goal_t, algorithm, heuristic, tables, max_nodes, time_limit, memory,
                                  prune)

    board, result = run_guarded(action)
    if as_json:
        typer.echo(json.dumps(result.to_dict()))
    else:
        _print_solution(result, board, trace)

# --- pdb ----------------------------------------------------------------------------------


class BuildProgressLine:
    """A pattern-database build's progress on stderr: depth, entries filled, rate, ETA
    (a redrawn line on a terminal, else a line per tenth of the entries)."""

    def __init__(self):
        self.tty, self.last_decile = sys.stderr.isatty(), -1

    def __call__(self, p) -> None:
        frac = p.filled / p.entries
        rate = p.filled / p.seconds if p.seconds > 0 else 0.0
        eta = (p.entries - p.filled) / rate if rate > 0 else 0.0
        line = (f"tiles {','.join(map(str, p.group))}: depth {p.depth}  {p.filled:,}/{p.entries:,} "
                f"entries ({100 * frac:.0f} %)  {rate:,.0f}/s  ETA {int(eta) // 60}:{int(eta) % 60:02d}")
        if self.tty:
            typer.echo("\r" + line + "\033[K", err=True, nl=False)
        elif int(frac * 10) != self.last_decile:
            self.last_decile = int(frac * 10)
            typer.echo(line, err=True)

    def done(self) -> None:
        """End the redrawn line, ready for the next table."""
        if self.tty:
            typer.echo("", err=True)
        self.last_decile = -1


@pdb_app.command("build")
def pdb_build(
    size: Annotated[int, typer.Option("--size", parser=typed("size"), help="Board width: 3 or 4 (5 with explicit groups).")],
    partition: Annotated[str, typer.Option("--partition", help="4-4, 5-3 (3x3); 5-5-5, 6-6-3, 7-8 (4x4); or groups like 1,2,3/4,5,6.")],
    goal: GoalOpt = "blank-last",
    store: StoreOpt = None,
) -> None:
    """Build the pattern databases of a partition into the store (kept ones are reused).

    Example: tilesweep pdb build --size 4 --partition 7-8 --goal blank-first
    """
    from tilesweep.pdb_store import open_store
    from tilesweep.solver.heuristics import parse_heuristic
    from tilesweep.solver.solve import resolve_goal

    def action():
        from tilesweep.jobs.parts import check_folder
        from tilesweep.pdb_store.paths import resolve_store
        goal_t = resolve_goal(goal, size)
        spec = parse_heuristic(f"pdb:{partition}", size, goal_t)
        check_folder(resolve_store(store), "--store")
        with open_store(store) as opened:
            for group in spec.groups:
                before = time.perf_counter()
                progress = BuildProgressLine()
                entry = opened.build(size, goal_t, group, on_layer=progress)
                progress.done()
                typer.echo(f"{opened.root / entry.file}  tiles {','.join(map(str, group))}  "
                           f"{entry.entries:,} entries  max {entry.max_value}  "
                           f"mean {entry.mean_value:.3f}  ({time.perf_counter() - before:.1f} s)")

    run_guarded(action)


def read_store(store, read):
    """(store root, ``read(opened store)``), with store errors as one line."""
    from tilesweep.pdb_store import open_store

    def action():
        with open_store(store) as opened:
            return opened.root, read(opened)

    return run_guarded(action)


@pdb_app.command("list")
def pdb_list(store: StoreOpt = None) -> None:
    """List the store's tables: goal, tiles, entries, bytes, max and mean value, build time.

    Example: tilesweep pdb list --store ./pdb
    """
    root, entries = read_store(store, lambda opened: [(e, opened.file_bytes(e)) for e in opened.entries()])
    typer.echo(f"store {root}: {len(entries)} table(s)")
    if entries:
        typer.echo(f"{'size':>4}  {'goal':<11}  {'tiles':<22}  {'entries':>13}  {'bytes':>13}  "
                   f"{'max':>3}  {'mean':>7}  {'built':<20}  {'seconds':>8}")
    for e, size in entries:
        on_disk = "missing" if size is None else f"{size:,}"
        typer.echo(f"{e.size:>4}  {e.goal_name:<11}  {','.join(map(str, e.group)):<22}  {e.entries:>13,}  "
                   f"{on_disk:>13}  {e.max_value:>3}  {e.mean_value:>7.3f}  {e.built_at[:19]:<20}  "
                   f"{e.build_seconds:>8.1f}")


@pdb_app.command("verify")
def pdb_verify(
    store: StoreOpt = None,
    deep: Annotated[bool, typer.Option("--deep", help="Also check each table's values the way its construction guarantees them (minutes for the 7-8 tables).")] = False,
) -> None:
    """Re-hash every table of the store against its manifest; exit 1 if any is damaged.

    Example: tilesweep pdb verify --deep --store ./pdb
    """
    def show(opened):
        checks, started = [], time.perf_counter()
        for c in opened.checks(deep):
            took = f"  (values checked in {time.perf_counter() - started:.1f} s)" if deep and c.ok else ""
            typer.echo(f"{'ok ' if c.ok else 'BAD'}  {c.file}" + (took if c.ok else f"  {c.problem}"))
            checks.append(c)
            started = time.perf_counter()
        return checks

    root, checks = read_store(store, show)
    bad = [c for c in checks if not c.ok]
    typer.echo(f"{len(checks) - len(bad)} of {len(checks)} table(s) in {root} verified")
    if bad:
        raise typer.Exit(1)

# --- sweep, summary, query ----------------------------------------------------------------

FormatOpt = Annotated[str, typer.Option("--format", help="table, csv or json.")]


def _prog() -> str:
    """How the user invoked us, for commands we print (``python cli.py`` or ``tilesweep``)."""
    return "python cli.py" if AS_SCRIPT else "tilesweep"


class ProgressBar:
    """A progress line on stderr: chunks, solves, rate and ETA (redrawn on a terminal)."""

    def __init__(self, width: int = 30):
        self.width, self.tty, self.last_decile = width, sys.stderr.isatty(), -1

    def __call__(self, p) -> None:
        frac = p.solves_done / p.solves_total if p.solves_total else 1.0
        rate = p.solves_new / p.elapsed if p.elapsed > 0 else 0.0
        eta = (p.solves_total - p.solves_done) / rate if rate > 0 else 0.0
        bar = "#" * int(frac * self.width) + "-" * (self.width - int(frac * self.width))
        line = (f"[{bar}] {p.chunks_done}/{p.chunks_total} chunks  {p.solves_done:,}/{p.solves_total:,} "
                f"solves  {rate:,.0f}/s  ETA {int(eta) // 60}:{int(eta) % 60:02d}")
        if self.tty:
            typer.echo("\r" + line, err=True, nl=p.chunks_done == p.chunks_total)
        elif int(frac * 10) != self.last_decile or p.chunks_done == p.chunks_total:
            self.last_decile = int(frac * 10)
            typer.echo(line, err=True)


WideOpt = Annotated[bool, typer.Option("--wide", help="Every summary column in the text table (csv and json always have them).")]


def _print_summary(frame, fmt: str, wide: bool) -> None:
    from tilesweep.jobs.summary import format_summary
    typer.echo(format_summary(frame, fmt, wide))


@app.command()
def sweep(
    spec_file: Annotated[Optional[str], typer.Argument(help="A TOML sweep spec; options given here override it.")] = None,
    size: Annotated[Optional[int], typer.Option("--size", parser=typed("size"), help="Board width 3, 4 or 5 (default 3; korf100: 4).")] = None,
    goal: Annotated[Optional[str], typer.Option("--goal", help="blank-last (default), blank-first or tiles.")] = None,
    count: Annotated[Optional[int], typer.Option("--count", parser=typed("count"), help="Number of instances (default 100; a file or korf100: all).")] = None,
    seed: Annotated[Optional[int], typer.Option("--seed", parser=typed("seed"), help="Seed of uniform and walk:K instances (default 0).")] = None,
    instances: Annotated[Optional[str], typer.Option("--instances", parser=typed("instances"), help="uniform, walk:K, korf100 or a file with one board a line.")] = None,
    algorithm: Annotated[Optional[list[str]], typer.Option("--algorithm", "-a", help="astar, idastar, bfs, dfs; repeat for several.")] = None,
    heuristic: Annotated[Optional[list[str]], typer.Option("--heuristic", "-h", help="Heuristic name; repeat for several (all pairs run).")] = None,
    out: Annotated[Optional[str], typer.Option("--out", help="Folder holding sweeps (default ./sweeps).")] = None,
    name: Annotated[Optional[str], typer.Option("--name", help="Sweep name (default derived from the spec).")] = None,
    store: StoreOpt = None,
    scheduler: Annotated[Optional[str], typer.Option("--scheduler", help="Dask scheduler address (default $DASK_SCHEDULER_ADDRESS, else a local cluster).")] = None,
    workers: Annotated[Optional[int], typer.Option("--workers", parser=typed("workers"), help="Local worker processes (default: the core count).")] = None,
    chunk_size: Annotated[Optional[str], typer.Option("--chunk-size", parser=typed("chunk_size"), help="Instances per task, or auto (tasks of ~2 s).")] = None,
    max_nodes: Annotated[Optional[int], typer.Option("--max-nodes", parser=typed("max_nodes"), help="Node budget per solve (status budget_exceeded).")] = None,
    time_limit: TimeLimitOpt = None,
    max_memory: MaxMemoryOpt = None,
    retry_errors: Annotated[bool, typer.Option("--retry-errors", help="Rerun the chunks whose rows have status error (kept by default).")] = False,
    prune: Annotated[Optional[str], typer.Option("--prune", help="parent (default) or fsm[:DEPTH]; the pruning column of the rows.")] = None,
    baseline: Annotated[Optional[str], typer.Option("--baseline", help="Heuristic the summary compares with (default: the first, if several).")] = None,
    fmt: FormatOpt = "table",
    wide: WideOpt = False,
) -> None:
    """Solve every instance with every algorithm x heuristic on Dask; write Parquet; print a summary.

    Example: tilesweep sweep --size 3 --count 1000 --algorithm astar --heuristic manhattan --heuristic linear-conflict --out sweeps
    """
    import os

    from tilesweep.jobs.spec import build_spec
    from tilesweep.jobs.sweep import finish, prepare

    options = dict(size=size, goal=goal, count=count, seed=seed, instances=instances,
                   algorithms=tuple(algorithm or ()), heuristics=tuple(heuristic or ()), out=out,
                   name=name, store=store, scheduler=scheduler, max_nodes=max_nodes, chunk_size=chunk_size,
                   workers=workers, time_limit=time_limit, max_memory=max_memory, prune=prune)

    def setup():
        from tilesweep.cluster.connect import scheduler_address
        spec, run = build_spec(options, spec_file, os.cpu_count() or 1)
        if fmt not in ("table", "csv", "json"):
            raise InvalidOptionError(f"format {fmt!r} is not known; expected table, csv or json")
        scheduler_address(run.scheduler)  # a malformed address is bad input, before any work
        _check_store(spec, run.store)
        return spec, run, prepare(spec, retry_errors)

    spec, run, plan = run_guarded(setup)
    base = baseline if baseline is not None else (spec.heuristics[0] if len(spec.heuristics) > 1 else None)
    typer.echo(f"sweep {spec.name}: {spec.count} instances x {len(spec.combos)} runs in "
               f"{spec.n_chunks} chunks ({len(plan.done)} already done) -> {spec.folder}", err=True)
    if plan.pending:
        from tilesweep.cluster.connect import scheduler_address
        from tilesweep.jobs.runrecord import record_run
        record_run(spec.folder, scheduler_address(run.scheduler), run.workers)
        _run_sweep(spec, run, plan, retry_errors)
    summary = run_guarded(lambda: finish(spec, base))
    _print_summary(summary, fmt, wide)


def _check_store(spec, store) -> None:
    """A sweep's store folder must exist or be creatable (writing is needed only to build)."""
    from tilesweep.cluster.tables import pdb_heuristics
    if pdb_heuristics([h for _, h in spec.combos], spec.size, spec.goal_tuple):
        from tilesweep.jobs.parts import check_folder
        from tilesweep.pdb_store.paths import resolve_store
        check_folder(resolve_store(store), "--store", write=False)


def _run_sweep(spec, run, plan, retry_errors: bool = False) -> None:
    """Run the pending chunks; on Ctrl-C keep finished parts and print the resume command;
    if the scheduler goes away, wait for it (``$TILESWEEP_RECONNECT_SECONDS``) and go on."""
    import time

    from tilesweep.cluster.connect import connect, dashboard_link, reconnect_seconds, wait_for_scheduler
    from tilesweep.cluster.run import SchedulerLostError, run_plan
    from tilesweep.jobs.parts import finished_chunks

    def announce(names, root):
        typer.echo(f"pattern databases for {', '.join(names)}: store {root} (missing tables are built once)", err=True)

    def action():
        start = time.perf_counter()
        with connect(run.scheduler, run.workers) as client:
            link = dashboard_link(client)
            if link:
                typer.echo(f"dashboard: {link}", err=True)
            isolated = run_plan(client, plan, run.store, ProgressBar(), announce, BuildProgressLine())
        typer.echo(f"wall time {time.perf_counter() - start:.1f} s", err=True)
        if isolated:
            typer.echo(f"{isolated} solve(s) killed every worker that ran them and are recorded with status "
                       "error (reason worker_died); rerun with --retry-errors to try them again", err=True)

    def resume_line() -> str:
        return f"{spec.folder}; resume with:\n  {spec.command(run, _prog())}" + (" --retry-errors" if retry_errors else "")

    def attempt() -> bool:
        try:
            action()
            return True
        except SchedulerLostError as err:
            typer.echo(f"error: {err}", err=True)
            return False

    try:
        while not run_guarded(attempt):
            wait = reconnect_seconds()
            typer.echo(f"waiting up to {wait:g} s for the scheduler to come back ($TILESWEEP_RECONNECT_SECONDS)", err=True)
            if not wait_for_scheduler(run.scheduler, wait):
                typer.echo(f"the scheduler did not come back: {len(finished_chunks(spec))} of {len(plan.jobs)} "
                           f"chunks are saved in {resume_line()}", err=True)
                raise typer.Exit(1)
            plan.done = run_guarded(lambda: finished_chunks(spec, retry_errors))
    except KeyboardInterrupt:
        saved = len(finished_chunks(plan.spec))  # from disk: Ctrl-C may land between a part's rename and its count
        typer.echo(f"\ninterrupted: {saved} of {len(plan.jobs)} chunks are saved in {resume_line()}", err=True)
        raise typer.Exit(130) from None


def _summary_path(results: str):
    from pathlib import Path
    path = Path(results)
    if path.is_dir() and path.name == "results" and (path.parent / "sweep.json").is_file():
        return path.parent / "summary.parquet"
    return path / "summary.parquet" if path.is_dir() else None


@app.command()
def summary(
    results: Annotated[str, typer.Argument(help="A sweep folder (OUT/NAME), its results/ folder, or a folder of sweeps.")],
    baseline: Annotated[Optional[str], typer.Option("--baseline", help="Heuristic to compare node counts with.")] = None,
    fmt: FormatOpt = "table",
    wide: WideOpt = False,
) -> None:
    """Summarise results per (size, algorithm, heuristic); write summary.parquet beside them.

    Example: tilesweep summary sweeps/8puzzle-uniform-n1000-s0-1a2b3c4d --baseline manhattan
    """
    import pyarrow as pa

    from tilesweep.jobs.parts import write_table
    from tilesweep.jobs.summary import format_summary, summarize

    def action():
        if fmt not in ("table", "csv", "json"):
            raise InvalidOptionError(f"format {fmt!r} is not known; expected table, csv or json")
        frame = summarize(results, baseline)
        path = _summary_path(results)
        if path is not None:
            write_table(path, pa.Table.from_pandas(frame, preserve_index=False))
        return format_summary(frame, fmt, wide)

    typer.echo(run_guarded(action))


@app.command()
def query(
    results: Annotated[str, typer.Argument(help="A sweep folder (OUT/NAME), its results/ folder, or a folder of sweeps.")],
    where: Annotated[Optional[str], typer.Option("--where", help="pandas query, e.g. 'status == \"solved\" and cost > 20'.")] = None,
    group_by: Annotated[Optional[str], typer.Option("--group-by", help="Comma list of columns.")] = None,
    agg: Annotated[Optional[list[str]], typer.Option("--agg", help="COL:FN (count, sum, mean, median, min, max, std, nunique, pNN); repeat.")] = None,
    sort: Annotated[Optional[str], typer.Option("--sort", help="Column to sort by; -COL for descending.")] = None,
    limit: Annotated[Optional[int], typer.Option("--limit", help="At most this many rows.")] = None,
    fmt: Annotated[str, typer.Option("--format", help="table, csv, json or parquet (parquet needs --output).")] = "table",
    output: Annotated[Optional[str], typer.Option("--output", "-o", help="Write to this file instead of stdout.")] = None,
) -> None:
    """Filter, group and aggregate result rows.

    Example: tilesweep query sweeps/NAME --where 'status == "solved"' --group-by heuristic --agg nodes_generated:mean
    """
    from pathlib import Path

    from tilesweep.jobs.query import FORMATS, parse_query, run_query
    from tilesweep.jobs.results import load_results
    from tilesweep.jobs.schema import COLUMNS
    from tilesweep.jobs.summary import format_frame

    def action():
        if fmt not in FORMATS:
            raise InvalidOptionError(f"format {fmt!r} is not known; expected one of: {', '.join(FORMATS)}")
        if fmt == "parquet" and not output:
            raise InvalidOptionError("format 'parquet' needs --output FILE")
        q = parse_query(where, group_by, tuple(agg or ()), sort, limit)
        frame = run_query(load_results(results, q.columns(COLUMNS)), q)
        if fmt == "parquet":
            frame.to_parquet(output, index=False)
            return None
        text = format_frame(frame, fmt)
        if output:
            Path(output).write_text(text + "\n")
            return None
        return text

    text = run_guarded(action)
    if text is not None:
        typer.echo(text)


# --- sql, compare, report -------------------------------------------------------------------

SweepsArg = Annotated[list[str], typer.Argument(help="Sweep folders (OUT/NAME), or folders holding sweeps.")]


def _write_or_echo(text: Optional[str], output: Optional[str]) -> None:
    from pathlib import Path
    if text is None:
        return
    if output:
        Path(output).write_text(text + "\n")
    else:
        typer.echo(text)


@app.command()
def sql(
    query_text: Annotated[str, typer.Argument(metavar="QUERY", help="A DuckDB SELECT over the views results and summary.")],
    sweeps: SweepsArg,
    fmt: Annotated[str, typer.Option("--format", help="table, csv, json or parquet (parquet needs --output).")] = "table",
    output: Annotated[Optional[str], typer.Option("--output", "-o", help="Write to this file instead of stdout.")] = None,
) -> None:
    """Run SQL (DuckDB) over sweeps' Parquet in place: views results (every row) and summary.

    Example: tilesweep sql "SELECT heuristic, avg(nodes_generated) FROM results WHERE status = 'solved' GROUP BY heuristic" sweeps/NAME
    """
    import pyarrow.parquet as pq

    from tilesweep.jobs.query import FORMATS
    from tilesweep.jobs.report.sql import connect, run_sql
    from tilesweep.jobs.report.sweeps import open_sweeps
    from tilesweep.jobs.summary import format_frame

    def action():
        if fmt not in FORMATS:
            raise InvalidOptionError(f"format {fmt!r} is not known; expected one of: {', '.join(FORMATS)}")
        if fmt == "parquet" and not output:
            raise InvalidOptionError("format 'parquet' needs --output FILE")
        table = run_sql(connect(open_sweeps(sweeps)), query_text)
        if fmt == "parquet":
            pq.write_table(table, output)
            return None
        return format_frame(table.to_pandas(), fmt)

    _write_or_echo(run_guarded(action), output)


@app.command()
def compare(
    old: Annotated[str, typer.Argument(help="The earlier sweep folder.")],
    new: Annotated[str, typer.Argument(help="The later sweep folder (same instances).")],
    threshold: Annotated[str, typer.Option("--threshold", help="Flag a time ratio above 1 + this (percent), e.g. 5%.")] = "5%",
    fmt: FormatOpt = "table",
) -> None:
    """Pair two sweeps' rows: cost differences (exit 1), node and status changes, time ratio.

    Example: tilesweep compare sweeps/before sweeps/after --threshold 5%
    """
    from tilesweep.jobs.report.compare import (
        compare as compare_rows,
        format_comparison,
        load_pairs_side,
        parse_threshold,
    )
    from tilesweep.jobs.report.sweeps import open_sweeps

    def action():
        if fmt not in ("table", "csv", "json"):
            raise InvalidOptionError(f"format {fmt!r} is not known; expected table, csv or json")
        fraction = parse_threshold(threshold)
        result = compare_rows(load_pairs_side(open_sweeps([old])), load_pairs_side(open_sweeps([new])), fraction)
        return result, format_comparison(result, fmt)

    result, text = run_guarded(action)
    typer.echo(text)
    if result.cost_differences:
        typer.echo(f"error: {result.cost_differences} instance(s) solved by both sweeps with different costs", err=True)
        raise typer.Exit(1)


# --- ui -----------------------------------------------------------------------------------


@app.command()
def ui(
    host: Annotated[str, typer.Option("--host", help="Address to bind (loopback by default; anything else is reachable by others).")] = "127.0.0.1",
    port: Annotated[str, typer.Option("--port", help="Port to listen on (0: any free port).")] = "8000",
    out: Annotated[str, typer.Option("--out", help="Folder holding sweeps, the only files the pages serve.")] = "sweeps",
    store: StoreOpt = None,
    max_nodes: MaxNodesOpt = None,
    time_limit: TimeLimitOpt = None,
    max_memory: MaxMemoryOpt = None,
    solvers: Annotated[str, typer.Option("--solvers", help="Solves run at once, each in a worker process.")] = "2",
) -> None:
    """Serve a local web page: play and solve boards, compare algorithms, watch sweeps.

    Each solve is limited by --max-nodes (default 20,000,000) and --time-limit (default
    300 s); a page may ask for less.

    Example: tilesweep ui --out sweeps --port 8000
    """
    from tilesweep.solver.options import whole_number
    from tilesweep.webui import is_loopback, serve
    from tilesweep.webui.solves import Limits

    def check():
        number = whole_number("port", port, 0)
        if number > 65535:
            raise InvalidOptionError(f"port {number} is out of range; expected 0..65535")
        return number, whole_number("solvers", solvers, 1)

    port_number, workers = run_guarded(check)
    defaults = Limits()
    limits = Limits(defaults.max_nodes if max_nodes is None else max_nodes,
                    defaults.time_limit if time_limit is None else time_limit, max_memory)
    if not is_loopback(host):
        typer.echo(f"warning: bound to {host}, not a loopback address: anyone who can reach it can run "
                   f"solves and read the sweeps under {out}", err=True)

    def ready(address):
        where = f"[{address[0]}]" if ":" in address[0] else address[0]
        typer.echo(f"tilesweep ui: http://{where}:{address[1]}/  (sweeps under {out}; Ctrl-C stops)")

    try:
        serve(host, port_number, out, store, limits, workers, ready)
    except OSError as err:
        fail(f"cannot serve on {host}:{port} ({err.strerror or err}); choose another --host or --port", 1)


@app.command()
def report(
    sweeps: SweepsArg,
    out: Annotated[Optional[str], typer.Option("--out", help="HTML file to write (default SWEEP/report.html for one sweep, else ./report.html).")] = None,
    baseline: Annotated[Optional[str], typer.Option("--baseline", help="Heuristic the scatter plots compare with (default: the first sweep's first).")] = None,
    figures: Annotated[Optional[str], typer.Option("--figures", help="Also write each figure into this folder (needs Chromium).")] = None,
    figure_format: Annotated[str, typer.Option("--figure-format", help="png or svg.")] = "png",
    with_compare: Annotated[bool, typer.Option("--compare", help="Add a comparison section (exactly two sweeps: OLD NEW).")] = False,
    threshold: Annotated[str, typer.Option("--threshold", help="With --compare: flag time ratios above 1 + this (percent).")] = "5%",
) -> None:
    """Write one self-contained HTML report (plots, tables, replays) of one or more sweeps.

    Example: tilesweep report sweeps/NAME --baseline manhattan --figures figures/
    """
    from tilesweep.jobs.report.build import build_report
    from tilesweep.jobs.report.compare import parse_threshold
    from tilesweep.jobs.report.export import FORMATS, export_figures

    def action():
        if figure_format not in FORMATS:
            raise InvalidOptionError(f"figure format {figure_format!r} is not known; expected png or svg")
        start = time.perf_counter()
        built = build_report(sweeps, out, baseline, with_compare, parse_threshold(threshold))
        typer.echo(f"report: {built.path} ({built.bytes / 2**20:.1f} MiB, {len(built.data.rows):,} runs, "
                   f"{time.perf_counter() - start:.1f} s)", err=True)
        if figures:
            for path in export_figures(built.figures, figures, figure_format):
                typer.echo(f"figure: {path}", err=True)
        return built

    built = run_guarded(action)
    typer.echo(str(built.path))
    if built.comparison is not None and built.comparison.cost_differences:
        typer.echo(f"error: {built.comparison.cost_differences} instance(s) solved by both sweeps with different costs", err=True)
        raise typer.Exit(1)


def main() -> None:
    """Console-script entry point."""
    app()


if __name__ == "__main__":
    main()
