"""The sweeps pages' data: the library's view of sweep folders (``jobs.progress``,
``jobs.summary``) as JSON-ready dicts. Read-only: nothing here writes a file."""

from __future__ import annotations

import json
from pathlib import Path

from tornado.web import HTTPError

from tilesweep.jobs.client import state as run_state
from tilesweep.jobs.lock import running_dashboard
from tilesweep.jobs.progress import SPEC_FILE, SweepState, list_sweeps, sweep_state
from tilesweep.jobs.summary import BASELINE_COLUMNS, format_summary, summarize

REPORT_FILE = "report.html"


def folder_of(out: Path, name: str) -> Path:
    """``out/name`` when it holds a sweep, else HTTP 404 (a name is one folder, never a path)."""
    if name.startswith(".") or "/" in name or "\\" in name or not (out / name / SPEC_FILE).is_file():
        raise HTTPError(404, "sweep %r does not exist under %s; the list is at /sweeps", name, out)
    return out / name


def state_dict(state: SweepState) -> dict:
    """The state of one sweep for the pages; ``run`` as ``tilesweep status`` says it
    (finished, running, interrupted, cancelled, planned), or damaged (``problem`` says why)."""
    spec = state.spec
    run, record = ("damaged", None) if state.problem else run_state(state.parts, state.chunks, state.folder)
    return {
        "name": state.name, "run": run,
        "resume": record["command"] if run in ("interrupted", "cancelled") and record else None,
        "parts": state.parts, "chunks": state.chunks, "rows": state.rows,
        "expected_rows": state.expected_rows, "complete": state.complete, "statuses": state.statuses,
        "updated": state.updated, "problem": state.problem,
        "spec": None if spec is None else {**spec.to_dict(), "command": spec.command()},
    }


def listing(out: Path) -> list[dict]:
    """Every sweep under ``out``, newest first."""
    return [state_dict(s) for s in list_sweeps(out)]


def _files(folder: Path) -> list[dict]:
    names = [p for p in sorted((folder / "results").glob("part-*.parquet"))]
    names += [p for p in (folder / "summary.parquet", folder / SPEC_FILE) if p.is_file()]
    return [{"name": str(p.relative_to(folder)), "bytes": p.stat().st_size,
             "url": f"/files/{folder.name}/{p.relative_to(folder).as_posix()}"} for p in names]


def detail(folder: Path, baseline: str | None = None) -> dict:
    """A sweep's state, its summary (as ``tilesweep summary --format json`` gives it, computed
    from the parts present now, each checked against the manifest, not written), its files
    and its report, if any."""
    state = sweep_state(folder, hashing=True)
    out = state_dict(state)
    out["summary"] = []
    if state.parts and state.problem is None:
        out["summary"] = json.loads(format_summary(summarize(state.verified.paths, baseline), "json"))
    out["files"] = _files(folder)
    out["report"] = f"/files/{folder.name}/{REPORT_FILE}" if (folder / REPORT_FILE).is_file() else None
    out["heuristics"] = list(state.spec.heuristics) if state.spec else []
    out["baseline_columns"] = list(BASELINE_COLUMNS)
    out["dashboard"] = None if state.complete else running_dashboard(folder)
    return out
