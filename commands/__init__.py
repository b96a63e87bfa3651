"""The commands of ``cli.py``, one module per group: ``solve``, ``pdb``, ``sweep``, ``results``
(summary, query, sql, compare, report) and ``ui``; ``options`` holds the option types they
share, ``exits`` the mapping of library errors to one line and an exit code, ``progress`` the
progress lines on stderr. ``cli.py`` is the app that registers them."""
