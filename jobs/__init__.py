"""What a sweep is: spec, seeded instances, chunks, the result schema, Parquet parts,
resume, summaries and queries. No Dask here (see :mod:`cluster`)."""

if __name__ != "tilesweep.jobs":  # a module under two names shares numba's cache files (docs/design.md)
    raise ImportError(f"import tilesweep.jobs, not {__name__}; `pip install -e .` in the checkout installs it")
