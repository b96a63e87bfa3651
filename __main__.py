"""``python -m tilesweep``: the command line, as the ``tilesweep`` script runs it."""

from tilesweep.cli import main

main()
