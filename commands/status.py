"""``tilesweep status`` and ``tilesweep cancel``: follow and stop sweeps, detached ones above all."""

from __future__ import annotations

import json
import signal
import time
from pathlib import Path
from typing import Annotated, Optional

import typer

from tilesweep.commands.exits import run_guarded
from tilesweep.commands.options import TableOrJsonOpt
from tilesweep.solver.errors import InvalidOptionError

CANCEL_SECONDS = 120.0  # a client closing its cluster (cancelling Slurm jobs) takes seconds
TERM_SECONDS = 10.0  # then, after SIGTERM, for the process to end


def sweep_folders(sweeps: list[str], out: str) -> list[Path]:
    """The sweep folders named, or every sweep under ``out``; a name that is none is bad input."""
    if not sweeps:
        root = Path(out)
        return sorted(p.parent for p in root.glob("*/sweep.json")) if root.is_dir() else []
    from tilesweep.jobs.checkpoints import checkpoint_dir
    folders = []
    for name in sweeps:
        if not (Path(name) / "sweep.json").is_file() and not checkpoint_dir(Path(name)).is_dir():
            raise InvalidOptionError(f"sweep {name!r} is not a sweep folder; expected OUT/NAME holding sweep.json "
                                     "(or a folder of solve --checkpoint)")
        folders.append(Path(name))
    return folders


def dashboard(folder: Path) -> str | None:
    """The Dask dashboard of the run holding the sweep's lock, if it noted one on loopback."""
    from tilesweep.jobs.lock import running_dashboard
    return running_dashboard(folder)


def describe(folder: Path, hashing: bool = True) -> dict:
    """One sweep's state, rows per configuration, errors, pace and client (JSON-ready); a sweep
    the readers would refuse (its spec or parts against its manifest, hashed if ``hashing``)
    is ``damaged``, with the reason. The long single solves its checkpoints record are
    listed (``solves``); a folder of ``solve --checkpoint`` holds those alone."""
    if not (folder / "sweep.json").is_file():
        return {"sweep": str(folder), "state": "solves", "solves": solves(folder)}
    info = _described(folder, hashing)
    if info["state"] != "damaged":
        info["solves"] = solves(folder)
    return info


def _described(folder: Path, hashing: bool) -> dict:
    from tilesweep.jobs.progress import sweep_state
    from tilesweep.solver.errors import TilesweepError

    checked = sweep_state(folder, hashing)
    missing = _only_missing(folder, checked.spec, hashing) if checked.problem else []
    if checked.problem and not missing:
        return damaged(folder, checked.problem)
    try:
        info = _progress(folder, checked.spec)
    except TilesweepError as err:  # a part changed since it was checked
        return damaged(folder, str(err))
    if missing:
        info["missing"] = missing
    return info


def _only_missing(folder: Path, spec, hashing: bool) -> list[str]:
    """The recorded parts that are missing, when nothing else is wrong: a writer killed between
    recording a part and renaming it into place leaves just that, and a resume writes those
    chunks again. Any other problem (or none readable) gives []: the sweep is damaged."""
    from tilesweep.jobs.verify import check, snapshot
    from tilesweep.solver.errors import TilesweepError

    if spec is None:
        return []
    try:
        manifest, listing = snapshot(folder)
        _, problems = check(folder, spec, manifest, listing, hashing) if manifest else ([], [])
    except TilesweepError:
        return []
    if not problems or any(p.present for p in problems):
        return []
    return [p.path.name for p in problems]


def solves(folder: Path) -> list[dict]:
    """The long single solves recorded in the folder's checkpoints (:mod:`tilesweep.jobs.checkpoints`):
    where each stands, or why its record cannot be read."""
    from tilesweep.jobs.checkpoints import list_checkpoints
    from tilesweep.solver.status import OUTCOMES, RUNNING

    out = []
    for c in list_checkpoints(folder):
        if not hasattr(c, "state"):
            out.append({"problem": str(c)})
            continue
        s = c.state
        out.append({**c.label, "tiles": c.identity.get("tiles"), "heuristic": c.identity.get("heuristic"),
                    "state": "running" if s.status == RUNNING else OUTCOMES[s.status][0],
                    "iteration": len(s.iterations) + (s.status == RUNNING), "threshold": s.bound,
                    "nodes": s.generated + s.done_generated, "subtrees": [len(s.done), s.chunks],
                    "seconds": s.seconds, "resumes": s.resumes})
    return out


def solve_line(info: dict) -> str:
    if "problem" in info:
        return f"  solve: {info['problem']}"
    what = " ".join(f"{k} {info[k]}" for k in ("instance", "heuristic") if info.get(k) is not None)
    what = what if "instance" in info else f"{info['tiles']!r} {what}"
    if info["state"] != "running":
        return (f"  solve {what}: {info['state']} after {info['iteration']} iterations, "
                f"{info['nodes']:,} nodes, {info['seconds']:.1f} s")
    done, total = info["subtrees"]
    return (f"  solve {what}: iteration {info['iteration']}, threshold {info['threshold']}, "
            f"{info['nodes']:,} nodes so far, {done}/{total} subtree chunks of this iteration done, "
            f"{info['seconds']:.1f} s, resumed {info['resumes']} times")


def running(info: dict) -> bool:
    """Whether ``--watch`` goes on for this folder: a sweep whose client runs, or a folder of
    ``solve --checkpoint`` with a solve not finished (its record holds no process, so a solve
    whose job ended looks the same: watching it waits for the next job, or Ctrl-C)."""
    if info["state"] == "solves":
        return any(solve.get("state") == "running" for solve in info["solves"])
    return info["state"] == "running"


def damaged(folder: Path, problem: str) -> dict:
    return {"sweep": str(folder), "state": "damaged", "problem": problem}


def _progress(folder: Path, spec) -> dict:
    from tilesweep.jobs.client import alive, started_seconds, state
    from tilesweep.jobs.parts import read_part, results_dir
    from tilesweep.jobs.resume import saved_parts

    spec = spec if Path(spec.out) / spec.name == folder else _moved(spec, folder)
    parts = saved_parts(spec)
    counts = {f"{a} {h}": {"done": 0, "total": spec.count} for a, h in spec.combos}
    errors = 0
    for part in parts.values():
        table = read_part(results_dir(folder) / part.part, ["algorithm", "heuristic", "status"]).to_pydict()
        for a, h, s in zip(table["algorithm"], table["heuristic"], table["status"]):
            counts[f"{a} {h}"]["done"] += 1
            errors += s == "error"
    what, record = state(len(parts), spec.n_chunks, folder)
    done, total = sum(c["done"] for c in counts.values()), spec.count * len(spec.combos)
    seconds = started_seconds(record) if what == "running" else None
    rate = done / seconds if seconds and done else None
    out = {"sweep": str(folder), "state": what, "chunks": [len(parts), spec.n_chunks], "rows": [done, total],
           "configurations": counts, "errors": errors, "client_alive": alive(record),
           "rate": rate, "eta_seconds": (total - done) / rate if rate else None,
           "dashboard": dashboard(folder) if what == "running" else None,
           "log": str(folder / record["log"]) if record and record.get("log") else None}
    if what in ("interrupted", "cancelled") and record:
        out["resume"] = record["command"]
    return out


def _moved(spec, folder: Path):
    from dataclasses import replace
    return replace(spec, out=str(folder.parent), name=folder.name)


def status_line(info: dict) -> str:
    if info["state"] == "damaged":
        return f"{info['sweep']}: damaged, {info['problem']}"
    if info["state"] == "solves":
        head = f"{info['sweep']}: {len(info['solves'])} recorded solves"
        return "\n".join([head, *map(solve_line, info["solves"])])
    rows = " ".join(f"{name}: {c['done']}/{c['total']}" for name, c in info["configurations"].items())
    pace = f", {info['rate']:.1f} rows/s, ETA {info['eta_seconds']:.0f} s" if info["rate"] else ""
    lines = [f"{info['sweep']}: {info['state']}, {info['chunks'][0]}/{info['chunks'][1]} chunks ({rows}), "
             f"{info['errors']} error rows{pace}"]
    if info["dashboard"]:
        lines.append(f"  dashboard: {info['dashboard']}")
    if info.get("missing"):
        lines.append(f"  recorded but missing (a run stopped while writing them; a resume writes them again): "
                     f"{', '.join(info['missing'])}")
    if info.get("resume"):
        lines.append(f"  resume with: {info['resume']}")
    lines += [solve_line(solve) for solve in info.get("solves", ())]
    return "\n".join(lines)


def status(
    sweeps: Annotated[Optional[list[str]], typer.Argument(
        help="Sweep folders (OUT/NAME); none: every sweep under --out.")] = None,
    out: Annotated[str, typer.Option("--out", help="Folder holding sweeps (default ./sweeps).")] = "sweeps",
    watch: Annotated[bool, typer.Option(
        "--watch", help="Refresh every 2 s until every sweep shown stops running (in a folder of solve --checkpoint: "
                   "until its solves finish).")] = False,
    fmt: TableOrJsonOpt = "table",
) -> None:
    """Each sweep's state (planned, running, finished, interrupted, cancelled, damaged), rows, pace and client.

    Every part is checked against the sweep's manifest as the reading commands check it (sha256;
    the refreshes of --watch check names and sizes only). Exit 1 if a sweep is damaged; the
    others are listed.

    Example: tilesweep status sweeps/NAME --watch
    """
    def action():
        return sweep_folders(sweeps or [], out)

    folders = run_guarded(action)
    hashing = True
    while True:
        infos = [describe(f, hashing) for f in folders]
        typer.echo(json.dumps(infos, indent=2) if fmt == "json" else "\n".join(map(status_line, infos)))
        if not watch or not any(map(running, infos)):
            break
        hashing = False
        time.sleep(2)
    if any(i["state"] == "damaged" for i in infos):
        raise typer.Exit(1)


def cancel(
    sweep: Annotated[str, typer.Argument(help="The sweep folder (OUT/NAME) whose running client to stop.")],
) -> None:
    """Stop a sweep's client (detached, or elsewhere) as Ctrl-C would: its cluster and jobs close, parts stay.

    A rerun resumes it.

    Example: tilesweep cancel sweeps/NAME
    """
    from tilesweep.jobs.client import read_client
    from tilesweep.jobs.process import not_running, send_signal, wait_for_end

    folder = run_guarded(lambda: sweep_folders([sweep], "."))[0]
    record = read_client(folder)
    why = not_running(record)
    if why is not None:
        typer.echo(f"error: sweep {sweep!r} has no running client on this host ({why}); nothing to cancel", err=True)
        raise typer.Exit(1)
    pid = record["pid"]
    start = time.monotonic()
    _interrupt(folder, record)
    typer.echo(f"waiting for pid {pid} (client of sweep {str(folder)!r}) to close its cluster and end, "
               f"up to {CANCEL_SECONDS:g} s", err=True)
    if wait_for_end(record, CANCEL_SECONDS):
        how = f"ended after {time.monotonic() - start:.1f} s"
    else:
        send_signal(record, signal.SIGTERM)
        if not wait_for_end(record, TERM_SECONDS):
            typer.echo(f"error: pid {pid} (client of sweep {str(folder)!r}) still runs {CANCEL_SECONDS:g} s after "
                       f"SIGINT and {TERM_SECONDS:g} s after SIGTERM; stop it with: kill -KILL {pid}", err=True)
            raise typer.Exit(1)
        how = f"did not end within {CANCEL_SECONDS:g} s of SIGINT and ended on SIGTERM"
    if run_guarded(lambda: describe(folder))["state"] == "finished":  # its last chunk came first
        typer.echo(f"{folder}: its client (pid {pid}) {how}, with every chunk saved: the sweep finished")
        return
    typer.echo(f"cancelled {folder}: its client (pid {pid}) {how}; what was written is kept, resume with:\n"
               f"  {record['command']}")


def _interrupt(folder: Path, record: dict) -> None:
    """Mark the client's record cancelled, then send the client SIGINT (its Ctrl-C); when the
    signal cannot be sent, put the record back and end with one line (exit 1)."""
    from tilesweep.jobs.client import RECORD, mark_cancelled
    from tilesweep.jobs.parts import write_json
    from tilesweep.jobs.process import send_signal

    try:
        mark_cancelled(folder, record)  # first, so that status never shows the stopped client as interrupted
        if send_signal(record, signal.SIGINT):
            return
        why = "ended before it could be signalled"
    except PermissionError:
        why = "belongs to another user (or its folder is not writable); only its owner can cancel it"
    try:
        write_json(folder / RECORD, record)
    except PermissionError:
        pass  # never marked
    typer.echo(f"error: the client of sweep {str(folder)!r} (pid {record['pid']}) {why}", err=True)
    raise typer.Exit(1)
