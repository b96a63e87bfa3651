"""The commands of ``cli.py``, one module per group: ``solve``, ``pdb``, ``sweep``, ``results``
(summary, query, sql, compare, report), ``status`` (status, cancel), ``sbatch`` (the one-allocation
script), ``check``, ``ui`` and ``warm``; ``options`` holds the option types they
share, ``exits`` the mapping of library errors to one line and an exit code, ``progress`` the
progress lines on stderr. ``cli.py`` is the app that registers them."""

if __name__ != "tilesweep.commands":  # a module under two names shares numba's cache files (docs/design.md)
    raise ImportError(f"import tilesweep.commands, not {__name__}; `pip install -e .` in the checkout installs it")
