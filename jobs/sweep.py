"""A sweep's plan (instances, chunks, what is already done) and its in-process runner.

:func:`prepare` takes the sweep's lock, opens (or checks) the sweep folder, keeps the parts
that match the manifest (moving anything else aside) and lists the chunks still to run;
:mod:`cluster` runs them on Dask, :func:`run_local` runs them in this process (the
benchmark's reference loop and a debugging aid). :func:`finish` writes ``summary.parquet``.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path

import pyarrow as pa

from .lock import SweepLock
from .parts import check_folder, open_sweep_folder, remove_leftovers, write_part, write_summary
from .plugins import check_recorded
from .resume import done_chunks, repair
from .spec import SweepSpec
from .verify import verify_sweep
from .work import ChunkJob, chunk_jobs, solve_chunk_table


@dataclass
class Plan:
    """Every chunk of a sweep and the ones already finished on disk."""

    spec: SweepSpec
    jobs: list[ChunkJob]
    done: set[int] = field(default_factory=set)
    lock: SweepLock | None = field(default=None, repr=False)
    moved: list[tuple[Path, Path, str]] = field(default_factory=list)  # files moved aside: (from, to, why)
    adopted: int = 0  # parts written before manifests, recorded now
    rebuilt: str | None = None  # the line saying sweep.json was rebuilt from its parts' spec

    def release(self) -> None:
        """Let another run of the sweep start (the lock also goes when this plan is collected)."""
        if self.lock is not None:
            self.lock.release()

    def __enter__(self) -> "Plan":
        return self

    def __exit__(self, *exc) -> None:
        self.release()

    @property
    def pending(self) -> list[ChunkJob]:
        return [job for job in self.jobs if job.chunk not in self.done]

    def done_jobs(self) -> list[ChunkJob]:
        return [job for job in self.jobs if job.chunk in self.done]

    def solves(self, jobs: list[ChunkJob] | None = None) -> int:
        """Rows (solves) in ``jobs`` (default: all chunks)."""
        return sum(len(j.instances) for j in (self.jobs if jobs is None else jobs)) * len(self.spec.combos)


def prepare(spec: SweepSpec, retry_errors: bool = False) -> Plan:
    """Lock and open the sweep folder, plan the chunks (index ranges: the tasks make their
    instances), and find the finished chunks: the parts that match the manifest (with
    ``retry_errors``, chunks whose parts hold ``error`` rows run again). The plan holds the
    sweep's lock (:class:`~.lock.SweepBusyError` if another run holds it) until released."""
    check_folder(spec.folder, "--out")
    check_recorded(spec.plugins)  # a spec read from a folder (a resume) runs only recorded plugin code
    lock = SweepLock(spec.folder, spec.name)
    try:
        rebuilt = open_sweep_folder(spec)
        remove_leftovers(spec.folder)
        repaired = repair(spec)
        plan = Plan(spec, chunk_jobs(spec), lock=lock, moved=repaired.moved, adopted=repaired.adopted,
                    rebuilt=rebuilt)
        plan.done = done_chunks(spec, repaired.kept, retry_errors)
    except BaseException:
        lock.release()
        raise
    return plan


def run_local(plan: Plan, tables_for=lambda name: (), on_part=None) -> None:
    """Run the pending chunks in this process, writing a part per chunk."""
    for job in plan.pending:
        write_part(plan.spec, job.chunk, solve_chunk_table(job, tables_for))
        plan.done.add(job.chunk)
        if on_part is not None:
            on_part(job)


def finish(spec: SweepSpec, baseline: str | None = None):
    """Summarise every row of the sweep (its parts verified again) and write
    ``summary.parquet``; return the summary."""
    from .summary import summarize  # pandas and DuckDB: imported while a cluster runs (commands/sweep.py)

    verified = verify_sweep(spec.folder)
    summary = summarize(verified.paths, baseline)
    write_summary(spec.folder, pa.Table.from_pandas(summary, preserve_index=False), verified.records, baseline)
    return summary
