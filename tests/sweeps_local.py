"""Small real sweeps run in this process (no Dask), for the results-side tests."""

from tilesweep.jobs.spec import build_spec
from tilesweep.jobs.sweep import finish, prepare, run_local


def local_sweep(out, name, baseline=None, **options):
    """Run a sweep of ``options`` (CLI option names) in-process; return its folder."""
    spec, _ = build_spec({**options, "out": str(out), "name": name}, workers=1)
    plan = prepare(spec)
    run_local(plan)
    finish(spec, baseline)
    return spec.folder
