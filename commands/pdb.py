"""``tilesweep pdb build|list|verify``: the pattern-database store."""

from __future__ import annotations

import time
from typing import Annotated

import typer

from tilesweep.commands.exits import run_guarded
from tilesweep.commands.options import Command, GoalOpt, Group, StoreOpt, partitions_by_size, typed
from tilesweep.commands.progress import KERNEL_NOTICES, BuildProgressLine

app = typer.Typer(cls=Group, no_args_is_help=True, help="Build, list and verify pattern databases.")


@app.command("build", cls=Command)
def pdb_build(
    size: Annotated[int, typer.Option("--size", parser=typed("size"), help="Board width: 3, 4 or 5.")],
    partition: Annotated[str, typer.Option("--partition", help=f"{partitions_by_size()}; or groups like 1,2,3/4,5,6.")],
    goal: GoalOpt = "blank-last",
    store: StoreOpt = None,
    blank_ignoring: Annotated[bool, typer.Option(
        "--blank-ignoring",
        help="Build blank-ignoring tables (a pattern tile moves into any adjacent free cell; weaker), "
             "read by pdb:P+blank-ignoring; the same as the partition's suffix +blank-ignoring.")] = False,
    zero_aware: Annotated[bool, typer.Option(
        "--zero-aware",
        help="Build zero-aware tables (an entry per blank region of a placement; stronger), "
             "read by pdb:P+zero-aware; the same as the partition's suffix +zero-aware.")] = False,
) -> None:
    """Build the pattern databases of a partition into the store (kept ones are reused).

    Example: tilesweep pdb build --size 4 --partition 7-8 --goal blank-first
    """
    from tilesweep.pdb_store import open_store
    from tilesweep.solver.errors import InvalidOptionError
    from tilesweep.solver.heuristics import BLANK_IGNORING, ZERO_AWARE, parse_heuristic
    from tilesweep.solver.solve import resolve_goal

    def action():
        from tilesweep.jobs.parts import check_folder
        from tilesweep.pdb_store.paths import resolve_store
        if blank_ignoring and zero_aware:
            raise InvalidOptionError("--blank-ignoring and --zero-aware name two kinds of table; "
                                     "expected at most one of them")
        goal_t = resolve_goal(goal, size)
        spec = parse_heuristic(f"pdb:{partition}", size, goal_t)
        check_folder(resolve_store(store), "--store")
        with open_store(store) as opened:
            for group, kind in spec.tables:
                kind = BLANK_IGNORING if blank_ignoring else ZERO_AWARE if zero_aware else kind
                entry = opened.valid_entry(size, goal_t, group, kind)
                if entry is not None:
                    how = f"reused: built {entry.built_at[:19].replace('T', ' ')} UTC in {entry.build_seconds:.1f} s"
                else:
                    entry = _build(opened, size, goal_t, group, kind)
                    how = f"built in {entry.build_seconds:.1f} s"
                typer.echo(f"{opened.root / entry.file}  {kind}  tiles {','.join(map(str, group))}  "
                           f"{entry.entries:,} entries  max {entry.max_value}  "
                           f"mean {entry.mean_value:.3f}  ({how})")

    run_guarded(action)


def _build(opened, size, goal, group, kind):
    """Build one table with its progress on stderr; its time leaves out compiling the
    kernels, which is said on lines of its own."""
    from tilesweep.solver.jit import watch_compiles
    progress = BuildProgressLine()
    with watch_compiles(lambda: typer.echo(KERNEL_NOTICES["compiling"], err=True)) as compiling:
        entry = opened.build(size, goal, group, on_layer=progress, kind=kind)
    progress.done()
    if compiling.compiled:
        typer.echo(KERNEL_NOTICES["compiled"].format(seconds=compiling.seconds), err=True)
    return entry


def read_store(store, read):
    """(store root, ``read(opened store)``), with store errors as one line."""
    from tilesweep.pdb_store import open_store

    def action():
        with open_store(store) as opened:
            return opened.root, read(opened)

    return run_guarded(action)


@app.command("list", cls=Command)
def pdb_list(store: StoreOpt = None) -> None:
    """List the store's tables: goal, kind, tiles, entries, bytes, max and mean value, build time.

    Example: tilesweep pdb list --store ./pdb
    """
    root, entries = read_store(store, lambda opened: [(e, opened.file_bytes(e)) for e in opened.entries()])
    typer.echo(f"store {root}: {len(entries)} table(s)")
    if entries:
        typer.echo(f"{'size':>4}  {'goal':<11}  {'kind':<14}  {'tiles':<22}  {'entries':>13}  {'bytes':>13}  "
                   f"{'max':>3}  {'mean':>7}  {'built':<20}  {'seconds':>8}")
    for e, size in entries:
        on_disk = "missing" if size is None else f"{size:,}"
        typer.echo(f"{e.size:>4}  {e.goal_name:<11}  {e.kind:<14}  {','.join(map(str, e.group)):<22}  "
                   f"{e.entries:>13,}  {on_disk:>13}  {e.max_value:>3}  {e.mean_value:>7.3f}  {e.built_at[:19]:<20}  "
                   f"{e.build_seconds:>8.1f}")


@app.command("verify", cls=Command)
def pdb_verify(
    store: StoreOpt = None,
    deep: Annotated[bool, typer.Option(
        "--deep",
        help="Also check each table's values the way its construction guarantees them (minutes for the 7-8 tables)."
    )] = False,
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
