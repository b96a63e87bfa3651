"""What a sweep's run tells its caller (:func:`.runner.run_sweep`): one method an event.

The command line prints each event (``commands/sweep.py``); the Python API passes the
progress to its callback and logs the notices (``api.py``). This module imports nothing
heavy, so a caller defines its events without loading Dask.
"""

from __future__ import annotations


class SweepEvents:
    """A run's events; each does nothing here, and a caller overrides those it shows."""

    def check(self, spec, store: str | None) -> None:
        """Before the plan: the caller's own check of the sweep (``sweep --check-heuristics``),
        which stops it by raising."""

    def scheduler_file_wait(self, path: str, seconds: float) -> None:
        """The scheduler file ``path`` (``--scheduler-file``) is not there yet: the run waits
        up to ``seconds`` for the scheduler to write it."""

    def planned(self, plan) -> None:
        """The chunks are planned and the sweep's lock is held: ``plan.done``, and what the
        resume repaired (``plan.moved``, ``plan.adopted``, ``plan.rebuilt``)."""

    def kernels(self, event: dict) -> None:
        """What the kernels do: ``{"state": "compiling"}`` or ``"waiting"``, then
        ``"compiled"`` with its ``"seconds"``."""

    def tables(self, names: list[str], store: str) -> None:
        """The sweep reads the pattern databases of ``names`` from ``store`` (missing ones
        are built first)."""

    def layer(self, progress) -> None:
        """A table build's :class:`~tilesweep.pdb_store.BuildProgress`."""

    def dashboard(self, link: str) -> None:
        """The cluster's dashboard, once connected."""

    def progress(self, progress) -> None:
        """A part is written: the run's :class:`~.run.Progress`."""

    def parallel_row(self, index: int, heuristic: str) -> None:
        """Instance ``index``'s IDA* row passed ``parallel_above`` nodes: parallel IDA* on
        every worker solves it."""

    def no_workers(self, seconds: float, address: str, wait: float, jobs: int | None) -> None:
        """The scheduler at ``address`` has had no worker for ``seconds``; the run stops
        after ``wait``. ``jobs``: the batch jobs submitted (None for other clusters)."""

    def scheduler_lost(self, error: Exception, wait: float) -> None:
        """The scheduler was lost (``error``); the run waits up to ``wait`` seconds for it
        to answer again."""

    def ran(self, seconds: float, isolated: int) -> None:
        """The pending chunks ran in ``seconds``; ``isolated`` solves killed every worker
        that ran them and are ``error`` rows."""
