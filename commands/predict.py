"""``tilesweep predict``: IDA*'s nodes predicted from a heuristic's distributions (KRE, CDP),
beside a sweep's measured iterations or, before a set is run, as its cost on this machine."""

from __future__ import annotations

import json
from typing import Annotated, Optional

import typer

from tilesweep.commands.exits import run_guarded
from tilesweep.commands.options import HEURISTIC_NAMES_AND_PLUGINS, PluginOpt, StoreOpt, TableOrJsonOpt, one_of, typed

METHODS = ("kre", "cdp", "cdp2", "cdp-eps")


def predict(
    target: Annotated[Optional[str], typer.Argument(
        help="A sweep folder (OUT/NAME: predictions beside its IDA* iterations) or a TOML sweep spec.")] = None,
    size: Annotated[Optional[int], typer.Option(
        "--size", parser=typed("size"), help="Board width 3, 4 or 5 (korf100: 4; korf50-24: 5).")] = None,
    goal: Annotated[Optional[str], typer.Option("--goal", help="blank-last (default), blank-first or tiles.")] = None,
    count: Annotated[Optional[int], typer.Option(
        "--count", parser=typed("count"), help="Number of instances (default: all of a bundled set).")] = None,
    instances: Annotated[Optional[str], typer.Option(
        "--instances", parser=typed("instances"),
        help="korf100 or korf50-24 (their optimal lengths are published; a set's cost needs them).")] = None,
    heuristic: Annotated[Optional[list[str]], typer.Option(
        "--heuristic", "-H", help=f"{HEURISTIC_NAMES_AND_PLUGINS}; repeat for several.")] = None,
    prune: Annotated[Optional[str], typer.Option(
        "--prune", help="parent (default) or fsm[:DEPTH] (KRE only).")] = None,
    plugin: PluginOpt = None,
    store: StoreOpt = None,
    sample: Annotated[int, typer.Option(
        "--sample", parser=typed("count"),
        help="Uniform random states the distributions are sampled from (15- and 24-puzzle; the 8-puzzle uses "
             "every state).")] = 1_000_000,
    sample_seed: Annotated[int, typer.Option(
        "--sample-seed", parser=typed("seed"), help="Seed of the sampled states.")] = 0,
    tilted: Annotated[int, typer.Option(
        "--tilted", parser=typed("seed"),
        help="States drawn in proportion to exp(-tilt * h) that the conditional tables (CDP) also count, so the low "
             "h of IDA*'s deep nodes is seen (0: none).")] = 200_000,
    real_depth: Annotated[int, typer.Option(
        "--real-depth", parser=typed("seed"),
        help="CDP starts from the real search's nodes at this depth (0: from the start state alone).")] = 0,
    rate_nodes: Annotated[int, typer.Option(
        "--rate-nodes", parser=typed("count"),
        help="Nodes of the IDA* run on the set's first instance that measures this machine's speed.")] = 20_000_000,
    method: Annotated[Optional[list[str]], typer.Option(
        "--method", parser=one_of("method", METHODS),
        help="kre, cdp, cdp2 (CDP with two steps) or cdp-eps (with --epsilon); repeat for several (default: "
             "every one that applies).")] = None,
    epsilon: Annotated[str, typer.Option(
        "--epsilon", parser=one_of("epsilon", ("off", "states", "trees")),
        help="Also CDP epsilon-truncated (cdp-eps; Lelis, Zilles & Holte 2011), epsilon per blank cell and h chosen "
             "from the distributions' own states (states) or from real IDA* trees of random start states (trees).")
    ] = "off",
    plot: Annotated[Optional[str], typer.Option(
        "--plot", help="Write predicted against measured iterations to this file (.png, .pdf or .svg).")] = None,
    fmt: TableOrJsonOpt = "table",
) -> None:
    """Predict the nodes IDA* generates per iteration from the heuristic's distributions:
    KRE (Korf, Reid & Edelkamp 2001) and CDP (Zahavi et al. 2010), beside a sweep's
    completed iterations, or a bundled set's cost in CPU-hours before it is run.

    Example: tilesweep predict --instances korf50-24 --heuristic pdb:6-6-6-6+reflect
    """
    from tilesweep.jobs.plugins import load_files
    from tilesweep.jobs.predict import Sampling, predict_target, prediction_records
    from tilesweep.pdb_store import open_store

    options = {k: v for k, v in {"size": size, "goal": goal, "count": count, "instances": instances,
                                 "heuristics": tuple(heuristic or ()), "prune": prune,
                                 "plugin_files": tuple(plugin or ())}.items() if v not in (None, ())}

    def action():
        load_files(plugin or ())
        spec, results = predict_target(target, options, open_store(store), Sampling(sample, sample_seed, tilted),
                                       real_depth, rate_nodes, epsilon)
        if plot:
            _plot(results, plot)
        return spec, results

    spec, results = run_guarded(action)
    shown = set(method or METHODS)
    if fmt == "json":
        typer.echo(json.dumps([r for r in prediction_records(spec, results) if r["method"] in shown]))
        return
    for r in results:
        (_print_comparison if hasattr(r, "agreements") else _print_forecast)(spec, r, shown)


def _plot(results, path: str) -> None:
    from tilesweep.jobs.report.prediction import write_prediction_figure
    shown = [r for r in results if hasattr(r, "agreements") and r.agreements]
    if shown:
        write_prediction_figure(shown[0], path)


def _header(spec, r) -> None:
    typer.echo(f"heuristic      {r.heuristic} (IDA*, pruning {r.model.pruning})")
    typer.echo(f"distributions  {r.model.describe()}" + (" (read from the store)" if r.model.from_store else ""))


def _print_comparison(spec, r, shown) -> None:
    from tilesweep.jobs.report.method_looks import ratio_text

    _header(spec, r)
    if not r.agreements:
        typer.echo("compared       no completed iteration of a solved IDA* row")
        return
    a0 = r.agreements[0]
    typer.echo(f"compared       {a0.iterations:,} completed iterations of {a0.instances} instances (the last "
               "iteration of each, stopped at its first solution, left out)")
    typer.echo(f"{'method':<7} {'sum ratio':>9}  {'per iteration: gmean, median, p10-p90':<40} "
               "per instance: gmean, median, p10-p90")
    for a in (a for a in r.agreements if a.method in shown):
        per_iteration = _spread_text(a.iteration_gmean, a.iteration_median, a.iteration_p10, a.iteration_p90)
        per_instance = _spread_text(a.instance_gmean, a.instance_median, a.instance_p10, a.instance_p90)
        typer.echo(f"{a.method:<7} {ratio_text(a.aggregate):>9}  {per_iteration:<40} {per_instance}")
    typer.echo("")


def _spread_text(gmean: float, median: float, p10: float, p90: float) -> str:
    """Ratios to the report's three significant digits: ``gmean  median  p10-p90``."""
    from tilesweep.jobs.report.method_looks import ratio_text

    return f"{ratio_text(gmean)}  {ratio_text(median)}  {ratio_text(p10)}-{ratio_text(p90)}"


def speed_text(r) -> str:
    """This machine's measured speed and how it was measured."""
    which = "the set's first instance" if r.rate_boards == 1 else f"{r.rate_boards} of the instances predicted"
    return (f"{r.rate / 1e6:.3g} M nodes per CPU second (measured here: IDA* on {which}, {r.rate_nodes:,} nodes, "
            "CPU seconds of the solving thread)")


def _print_forecast(spec, r, shown) -> None:
    _header(spec, r)
    typer.echo(f"speed          {speed_text(r)}")
    methods = [m for m in METHODS if m in r.instances and m in shown]
    frame = r.instances
    has_pub = "published" in frame
    typer.echo(" ".join([f"{'#':>3} {'h0':>4} {'len':>4}"] + [f"{m:>10}" for m in methods]
                        + ([f"{'published':>10} {'cdp/pub':>8}"] if has_pub else [])))
    for _, row in frame.iterrows():
        cells = [f"{int(row['instance']) + 1:>3} {int(row['h0']):>4} {int(row['length']):>4}"]
        cells += [f"{row[m]:>10.3g}" for m in methods]
        if has_pub:
            cells.append(f"{row['published']:>10.3g} {row[methods[-1]] / row['published']:>8.3g}")
        typer.echo(" ".join(cells))
    for m in methods:
        total = frame[m].sum()
        typer.echo(f"total {m:<5} {total:.3g} nodes, {total / r.rate / 3600:.3g} CPU-hours at this speed"
                   + (f"; published {frame['published'].sum():.3g}" if has_pub else ""))
    typer.echo("(iterations from h0 to the published length, the last counted in full)")
    typer.echo("")
