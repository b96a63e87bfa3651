"""A sweep's plan (instances, chunks, what is already done) and its in-process runner.

:func:`prepare` opens (or checks) the sweep folder and lists the chunks still to run;
:mod:`cluster` runs them on Dask, :func:`run_local` runs them in this process (the
benchmark's reference loop and a debugging aid). :func:`finish` writes ``summary.parquet``.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path

import pyarrow as pa

from .parts import finished_chunks, open_sweep_folder, write_part, write_table
from .spec import SweepSpec
from .work import ChunkJob, chunk_jobs, solve_chunk_table


@dataclass
class Plan:
    """Every chunk of a sweep and the ones already finished on disk."""

    spec: SweepSpec
    jobs: list[ChunkJob]
    done: set[int] = field(default_factory=set)

    @property
    def pending(self) -> list[ChunkJob]:
        return [job for job in self.jobs if job.chunk not in self.done]

    def done_jobs(self) -> list[ChunkJob]:
        return [job for job in self.jobs if job.chunk in self.done]

    def solves(self, jobs: list[ChunkJob] | None = None) -> int:
        """Rows (solves) in ``jobs`` (default: all chunks)."""
        return sum(len(j.instances) for j in (self.jobs if jobs is None else jobs)) * len(self.spec.combos)


def prepare(spec: SweepSpec, retry_errors: bool = False) -> Plan:
    """Open the sweep folder, plan the chunks (index ranges: the tasks make their
    instances), and find the finished chunks from the parts' footers (with
    ``retry_errors``, chunks whose parts hold ``error`` rows run again)."""
    open_sweep_folder(spec)
    plan = Plan(spec, chunk_jobs(spec))
    plan.done = finished_chunks(spec, retry_errors)
    return plan


def run_local(plan: Plan, tables_for=lambda name: (), on_part=None) -> None:
    """Run the pending chunks in this process, writing a part per chunk."""
    for job in plan.pending:
        write_part(plan.spec, job.chunk, solve_chunk_table(job, tables_for))
        plan.done.add(job.chunk)
        if on_part is not None:
            on_part(job)


def finish(spec: SweepSpec, baseline: str | None = None):
    """Summarise every row of the sweep and write ``summary.parquet``; return the summary."""
    from .summary import summarize  # pandas and DuckDB: imported while a cluster runs (commands/sweep.py)

    summary = summarize(spec.folder, baseline)
    write_table(Path(spec.folder) / "summary.parquet", pa.Table.from_pandas(summary, preserve_index=False))
    return summary
