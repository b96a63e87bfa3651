"""How a sweep runs on Dask: an embedded LocalCluster or a scheduler address, the worker
plugin that maps the PDB store once per worker process, submission, retries, progress."""

if __name__ != "tilesweep.cluster":  # a module under two names shares numba's cache files (docs/design.md)
    raise ImportError(f"import tilesweep.cluster, not {__name__}; `pip install -e .` in the checkout installs it")
