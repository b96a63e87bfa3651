"""Small real sweeps run in this process (no Dask), for the results-side tests."""

from tilesweep.cluster.tables import open_tables
from tilesweep.jobs.runrecord import record_run
from tilesweep.jobs.spec import build_spec
from tilesweep.jobs.sweep import finish, prepare, run_local


def local_sweep(out, name, baseline=None, store=None, **options):
    """Run a sweep of ``options`` (CLI option names) in-process; return its folder.
    ``pdb:`` heuristics read (and build once) their tables in ``store``."""
    spec, _ = build_spec({**options, "out": str(out), "name": name}, workers=1)
    with prepare(spec) as plan:
        record_run(spec.folder, "in-process (tests)", 1)
        _, tables = open_tables(store, spec.heuristics, spec.size, spec.goal_tuple, build=True) if store else (None, {})
        run_local(plan, tables_for=lambda h: tables.get(h, ()))
        finish(spec, baseline)
    return spec.folder


# A sweep with every kind of row a report draws: A* and IDA*, three heuristics (one a
# pattern database), and a node budget that leaves some runs budget_exceeded.
REPORT_SPEC = dict(size=3, count=60, seed=11, algorithms=("astar", "idastar"),
                   heuristics=("manhattan", "linear-conflict", "pdb:4-4"), max_nodes=2500, chunk_size=20)


def report_sweep(out, name="rep", **changes):
    """A :data:`REPORT_SPEC` sweep (its PDB built into ``out/store``); return its folder."""
    return local_sweep(out, name, store=str(out / "store"), **{**REPORT_SPEC, **changes})
