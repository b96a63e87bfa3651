"""What a sweep is: spec, seeded instances, chunks, the result schema, Parquet parts,
resume, summaries and queries. No Dask here (see :mod:`cluster`)."""
