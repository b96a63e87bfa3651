"""``python -m tilesweep``: the command line, as the ``tilesweep`` script runs it."""

from tilesweep.cli import main

if __name__ == "__main__":  # importing the module (pkgutil walks do) runs nothing
    main()
