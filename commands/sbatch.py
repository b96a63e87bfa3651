"""``tilesweep sbatch-script``: the Slurm batch script that runs a whole sweep in one allocation."""

from __future__ import annotations

from importlib.resources import files

import typer

SCRIPT = "one-allocation.sbatch"


def sbatch_script() -> None:
    """Print a Slurm batch script running a sweep in one allocation: a Dask scheduler, workers (srun), the sweep.

    The three are joined by --scheduler-file; one worker runs per task.

    Example: tilesweep sbatch-script > sweep.sbatch && sbatch sweep.sbatch --size 4 --instances korf100 --heuristic pdb:6-6-3 --out /shared/sweeps --store /shared/pdbs
    """  # noqa: E501 (help prints the example as it is written: one line to copy)
    typer.echo(files("tilesweep.jobs.data").joinpath(SCRIPT).read_text(), nl=False)
