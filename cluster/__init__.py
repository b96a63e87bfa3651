"""How a sweep runs on Dask: an embedded LocalCluster or a scheduler address, the worker
plugin that maps the PDB store once per worker process, submission, retries, progress."""
