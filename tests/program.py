"""How the tests run the command line: ``python -m tilesweep.cli``, which is the same
program from a checkout (editable install) and from an installed wheel."""

import sys

CLI = [sys.executable, "-m", "tilesweep.cli"]
