"""``tilesweep sweep --dry-run``: the plan and, for IDA*, its predicted cost (:mod:`jobs.forecast`)."""

from __future__ import annotations

import typer

from tilesweep.commands.exits import run_guarded
from tilesweep.commands.predict import speed_text


def print_plan(spec, run, predict: bool | None) -> None:
    """The sweep's plan; then, unless ``predict`` is False, each IDA* heuristic's prediction
    (``predict`` True: sample and build what is missing)."""
    from tilesweep.jobs.forecast import forecast_plan
    from tilesweep.pdb_store import open_store

    resumes = " (the folder exists: a run resumes it)" if spec.folder.exists() else ""
    typer.echo(f"sweep {spec.name}: {spec.count:,} instances x {len(spec.combos)} runs in {spec.n_chunks} chunks "
               f"-> {spec.folder}{resumes}; dry run: nothing solved, nothing written")
    if predict is False:
        return
    results, source = run_guarded(lambda: forecast_plan(spec, open_store(run.store), sample=bool(predict)))
    if not results and "idastar" not in spec.algorithms:
        typer.echo("predicted cost: none (KRE and CDP predict IDA*'s iterations; the plan runs no IDA*)")
    for r in results:
        _print_one(spec, r, source)


def _print_one(spec, r, source: str) -> None:
    if not hasattr(r, "model"):
        typer.echo(f"idastar {r.heuristic}: not predicted: {r.reason}")
        return
    predicted = len(r.instances)
    sample = (f"{predicted:,} of the {r.of:,} instances (a uniform random sample, seed 0; totals scaled)"
              if predicted < r.of else f"all {predicted:,} instances")
    typer.echo(f"idastar {r.heuristic}: predicted on {sample}; optimal lengths from {source}; distributions "
               f"{r.model.describe()}")
    typer.echo(f"  speed {speed_text(r)}")
    for method in (m for m in ("kre", "cdp", "cdp2") if m in r.instances):
        per = r.instances[method]
        total = per.sum() * r.scale
        typer.echo(f"  {method:<5} {per.mean():.3g} nodes per instance (largest {per.max():.3g}), total {total:.3g}, "
                   f"{total / r.rate / 3600:.3g} CPU-hours")
