"""Results that are never counted silently wrong: every part checked against the sweep's
manifest by every reading command and by a resume; one run of a sweep at a time; a
read-only ``tilesweep sql``.

The probes damage a copy of a small finished sweep the way a user or a disk might: one
flipped byte, a stray copy, a copy under a new part number, another sweep's part, a deleted
part, a truncated part. Every reading command must name the file in one line and exit 1;
a resume (``cluster`` tier: the real CLI on a LocalCluster) moves the bad file aside,
recomputes, and ends with the rows of the undamaged sweep.
"""

import json
import os
import shutil
import subprocess
import sys
from dataclasses import replace
from pathlib import Path

import pandas as pd
import pyarrow.compute as pc
import pyarrow.parquet as pq
import pytest
from typer.testing import CliRunner

from program import CLI
from sweeps_local import local_sweep
from tilesweep.cli import app
from tilesweep.jobs.lock import SweepBusyError, SweepLock
from tilesweep.jobs.manifest import MANIFEST, CorruptPartError, read_manifest
from tilesweep.jobs.parts import SpecMismatchError, write_part
from tilesweep.jobs.results import load_results
from tilesweep.jobs.schema import TIMING_COLUMNS
from tilesweep.jobs.spec import SweepSpec, build_spec
from tilesweep.jobs.sweep import finish, prepare, run_local
from tilesweep.jobs.verify import verify_sweep

RUNNER = CliRunner()
SPEC = dict(size=3, count=24, seed=7, algorithms=("astar",), heuristics=("manhattan", "linear-conflict"),
            chunk_size=6)


@pytest.fixture(scope="module")
def sweeps(tmp_path_factory):
    out = tmp_path_factory.mktemp("sweeps")
    return {"sweep": local_sweep(out, "sweep", **SPEC), "other": local_sweep(out, "other", **{**SPEC, "seed": 8})}


def flip_byte(path: Path, offset: int | None = None) -> None:
    data = bytearray(path.read_bytes())
    at = len(data) // 3 if offset is None else offset
    data[at] ^= 0x01
    path.write_bytes(bytes(data))


# Each probe damages the copied sweep folder and returns the file a reader must name.
def _flip(folder, other):
    flip_byte(folder / "results" / "part-00001.parquet")
    return folder / "results" / "part-00001.parquet"


def _stray_copy(folder, other):
    shutil.copy(folder / "results" / "part-00002.parquet", folder / "results" / "part-00002 copy.parquet")
    return folder / "results" / "part-00002 copy.parquet"


def _renumbered_copy(folder, other):
    shutil.copy(folder / "results" / "part-00002.parquet", folder / "results" / "part-00120.parquet")
    return folder / "results" / "part-00120.parquet"


def _foreign(folder, other):
    shutil.copy(other / "results" / "part-00003.parquet", folder / "results" / "part-00004.parquet")
    return folder / "results" / "part-00004.parquet"


def _deleted(folder, other):
    (folder / "results" / "part-00003.parquet").unlink()
    return folder / "results" / "part-00003.parquet"


def _truncated(folder, other):
    part = folder / "results" / "part-00000.parquet"
    part.write_bytes(part.read_bytes()[:-300])
    return part


PROBES = {"flipped byte": (_flip, "is altered"), "stray copy": (_stray_copy, "a copy of chunk 2"),
          "copy under a new number": (_renumbered_copy, "a copy of chunk 2"),
          "foreign part": (_foreign, "another sweep ('other')"), "deleted part": (_deleted, "is missing"),
          "truncated part": (_truncated, "is truncated")}


def damaged_copy(sweeps, tmp_path, probe: str) -> tuple[Path, Path]:
    """A copy of the sweep (same name, under ``tmp_path``) damaged by ``probe``: (folder, bad file)."""
    folder = tmp_path / "sweep"
    shutil.copytree(sweeps["sweep"], folder)
    return folder, PROBES[probe][0](folder, sweeps["other"])


READERS = {
    "summary": lambda folder, pristine: ["summary", folder],
    "query": lambda folder, pristine: ["query", folder, "--group-by", "heuristic", "--agg", "nodes_generated:sum"],
    "sql results": lambda folder, pristine: ["sql", "SELECT sum(nodes_generated) FROM results", folder],
    "sql summary": lambda folder, pristine: ["sql", "SELECT sum(instances) FROM summary", folder],
    "report": lambda folder, pristine: ["report", folder, "--out", folder.parent / "report.html"],
    "compare": lambda folder, pristine: ["compare", pristine, folder],
}


@pytest.mark.parametrize("reader", READERS)
@pytest.mark.parametrize("probe", PROBES)
def test_every_reader_names_the_damaged_file_in_one_line(sweeps, tmp_path, probe, reader):
    folder, bad = damaged_copy(sweeps, tmp_path, probe)
    result = RUNNER.invoke(app, [str(a) for a in READERS[reader](folder, sweeps["sweep"])])
    assert result.exit_code == 1, result.output
    lines = result.stderr.strip().splitlines()
    assert len(lines) == 1 and result.stdout == "" and "Traceback" not in result.output
    assert repr(str(bad)) in lines[0] and PROBES[probe][1] in lines[0]
    assert "Rerun the sweep" in lines[0] and f"--name sweep --out {tmp_path}" in lines[0]
    assert not (folder.parent / "report.html").exists()


@pytest.mark.parametrize("probe", PROBES)
def test_the_sweep_pages_name_the_damaged_file(sweeps, tmp_path, probe):
    from tilesweep.webui.sweeps import detail
    folder, bad = damaged_copy(sweeps, tmp_path, probe)
    page = detail(folder)
    assert repr(str(bad)) in page["problem"] and page["summary"] == []


def _spec(folder: Path) -> SweepSpec:
    return replace(SweepSpec.from_json((folder / "sweep.json").read_text()), out=str(folder.parent))


def _rows(folder: Path) -> pd.DataFrame:
    rows = load_results(folder).drop(columns=list(TIMING_COLUMNS))  # where and when a row ran
    return rows.sort_values(["instance", "heuristic"], ignore_index=True)


@pytest.mark.parametrize("probe", PROBES)
def test_a_resume_moves_the_bad_file_aside_and_recomputes(sweeps, tmp_path, probe):
    """The library's resume (in this process; the CLI on a cluster is the ``cluster`` test below)."""
    folder, bad = damaged_copy(sweeps, tmp_path, probe)
    before = bad.read_bytes() if bad.exists() else None
    spec = _spec(folder)
    with prepare(spec) as plan:
        moved = {source: (target, why) for source, target, why in plan.moved}
        if before is None:
            assert moved == {} and len(plan.pending) == 1
        else:  # moved aside, never deleted
            target, why = moved[bad]
            assert target.parent == folder / "rejected" and target.read_bytes() == before
            assert PROBES[probe][1] in why
        run_local(plan)
        finish(spec)
    pd.testing.assert_frame_equal(_rows(folder), _rows(sweeps["sweep"]))
    assert sorted(p.name for p in (folder / "results").iterdir()) == [f"part-{i:05d}.parquet" for i in range(4)]


@pytest.mark.cluster
@pytest.mark.parametrize("probe", PROBES)
def test_the_sweep_command_resumes_a_damaged_sweep(sweeps, tmp_path, probe):
    folder, bad = damaged_copy(sweeps, tmp_path, probe)
    command = _spec(folder).command().split()[1:] + ["--workers", "1", "--format", "json"]
    env = {k: v for k, v in os.environ.items() if k != "DASK_SCHEDULER_ADDRESS"}
    proc = subprocess.run([*CLI, *command], capture_output=True, text=True, timeout=300, env=env)
    assert proc.returncode == 0, proc.stderr
    assert "Traceback" not in proc.stderr
    if probe != "deleted part":
        assert f"moved aside: {str(bad)!r}" in proc.stderr and (folder / "rejected" / bad.name).is_file()
    assert "(3 already done)" in proc.stderr or "(4 already done)" in proc.stderr
    pd.testing.assert_frame_equal(_rows(folder), _rows(sweeps["sweep"]))
    again = RUNNER.invoke(app, ["summary", str(folder), "--baseline", "manhattan", "--format", "json"])
    # DuckDB's threads may sum in another order: the last bits of a mean may differ
    pd.testing.assert_frame_equal(pd.DataFrame(json.loads(proc.stdout)), pd.DataFrame(json.loads(again.stdout)),
                                  check_exact=False, rtol=1e-12)


def _served_nodes(folder: Path) -> float:
    """Nodes of the solved rows as ``tilesweep sql`` reads them from the summary view."""
    query = "SELECT sum(nodes_mean * solved) AS nodes FROM summary"
    result = RUNNER.invoke(app, ["sql", query, str(folder), "--format", "json"])
    assert result.exit_code == 0, result.output
    return json.loads(result.stdout)[0]["nodes"]


def test_a_summary_that_no_longer_matches_its_parts_is_not_served(sweeps, tmp_path):
    folder = tmp_path / "sweep"
    shutil.copytree(sweeps["sweep"], folder)
    assert verify_sweep(folder).current_summary() == folder / "summary.parquet"
    # a part rewritten after the summary (as --retry-errors does before the summary is redone)
    part = pq.read_table(folder / "results" / "part-00002.parquet")
    column = part.schema.get_field_index("nodes_generated")
    write_part(_spec(folder), 2, part.set_column(column, "nodes_generated", pc.add(part.column(column), 1000)))
    assert verify_sweep(folder).current_summary() is None
    true_nodes = float(load_results(folder)["nodes_generated"].sum())
    assert _served_nodes(folder) == pytest.approx(true_nodes)
    assert true_nodes == float(load_results(sweeps["sweep"])["nodes_generated"].sum()) + 1000 * 12
    # a fresh summary is served; replaced by another sweep's file, it is not
    assert RUNNER.invoke(app, ["summary", str(folder)]).exit_code == 0
    assert verify_sweep(folder).current_summary() == folder / "summary.parquet"
    shutil.copy(sweeps["other"] / "summary.parquet", folder / "summary.parquet")
    assert verify_sweep(folder).current_summary() is None
    assert _served_nodes(folder) == pytest.approx(true_nodes)


def test_summary_writes_a_summary_that_sql_serves(sweeps, tmp_path):
    folder = tmp_path / "sweep"
    shutil.copytree(sweeps["sweep"], folder)
    (folder / "summary.parquet").unlink()
    assert RUNNER.invoke(app, ["summary", str(folder), "--baseline", "manhattan"]).exit_code == 0
    verified = verify_sweep(folder)
    assert verified.current_summary() == folder / "summary.parquet" and verified.summary["baseline"] == "manhattan"
    served = pd.DataFrame(json.loads(RUNNER.invoke(app, ["sql", "SELECT * FROM summary", str(folder),
                                                         "--format", "json"]).stdout))
    assert served["node_reduction_pct"].notna().all()


def test_a_sweep_from_before_manifests_is_refused_then_adopted_by_a_resume(sweeps, tmp_path):
    folder = tmp_path / "sweep"
    shutil.copytree(sweeps["sweep"], folder)
    (folder / MANIFEST).unlink()
    flip_byte(folder / "results" / "part-00003.parquet", offset=8)  # in the first page: it cannot be read
    result = RUNNER.invoke(app, ["summary", str(folder)])
    assert result.exit_code == 1 and len(result.stderr.strip().splitlines()) == 1
    assert f"has no {MANIFEST}" in result.stderr and "tilesweep sweep --size 3" in result.stderr
    with prepare(_spec(folder)) as plan:
        assert plan.adopted == 3 and [m[0].name for m in plan.moved] == ["part-00003.parquet"]
        assert "cannot be read" in plan.moved[0][2] and plan.pending[0].chunk == 3
        run_local(plan)
    assert sorted(read_manifest(folder).parts) == [f"part-{i:05d}.parquet" for i in range(4)]
    pd.testing.assert_frame_equal(_rows(folder), _rows(sweeps["sweep"]))


def test_orphaned_temporary_files_are_removed_by_the_next_run(sweeps, tmp_path):
    folder = tmp_path / "sweep"
    shutil.copytree(sweeps["sweep"], folder)
    orphans = [folder / "results" / ".part-00001.parquet.tmp-4242-0a1b2c3d", folder / ".sweep.json.tmp-4242-ffff0000",
               folder / ".manifest.jsonl.tmp-4242-12345678"]
    for orphan in orphans:
        orphan.write_bytes(b"half a file")
    assert len(load_results(folder)) == 48  # hidden: never read
    with prepare(_spec(folder)) as plan:
        assert plan.pending == [] and plan.moved == []
    assert not any(orphan.exists() for orphan in orphans)


def test_a_cut_last_manifest_line_is_ignored_and_dropped_by_the_next_write(sweeps, tmp_path):
    folder = tmp_path / "sweep"
    shutil.copytree(sweeps["sweep"], folder)
    with open(folder / MANIFEST, "ab") as handle:
        handle.write(b'{"part":"part-00009.parquet","chu')  # a writer killed while appending
    assert len(verify_sweep(folder).records) == 4
    spec = _spec(folder)
    write_part(spec, 1, pq.read_table(folder / "results" / "part-00001.parquet"))
    lines = (folder / MANIFEST).read_text().splitlines()
    assert all(json.loads(line) for line in lines) and len(verify_sweep(folder).records) == 4


def test_a_damaged_manifest_is_one_line(sweeps, tmp_path):
    folder = tmp_path / "sweep"
    shutil.copytree(sweeps["sweep"], folder)
    text = (folder / MANIFEST).read_text().splitlines()
    (folder / MANIFEST).write_text("\n".join([text[0], "{not json", *text[1:]]) + "\n")
    result = RUNNER.invoke(app, ["query", str(folder)])
    assert result.exit_code == 1 and len(result.stderr.strip().splitlines()) == 1
    assert "line 2 is not JSON" in result.stderr and "Traceback" not in result.output
    with pytest.raises(CorruptPartError, match="line 2 is not JSON"):
        prepare(_spec(folder))


# --- one run at a time ---------------------------------------------------------------

HOLD = """
import sys, time
from pathlib import Path
from tilesweep.jobs.lock import SweepLock
lock = SweepLock(Path(sys.argv[1]), "sweep")
print("held", flush=True)
time.sleep(600)
"""


def test_a_second_run_of_a_sweep_is_refused_naming_the_holder(sweeps, tmp_path):
    folder = tmp_path / "sweep"
    shutil.copytree(sweeps["sweep"], folder)
    holder = subprocess.Popen([sys.executable, "-c", HOLD, str(folder)], stdout=subprocess.PIPE, text=True)
    try:
        assert holder.stdout.readline().strip() == "held"
        with pytest.raises(SweepBusyError, match=f"pid {holder.pid} on "):
            prepare(_spec(folder))
        command = _spec(folder).command().split()[1:] + ["--scheduler", "tcp://127.0.0.1:9"]
        result = RUNNER.invoke(app, command)
        assert result.exit_code == 1 and len(result.stderr.strip().splitlines()) == 1
        assert "is already running" in result.stderr and f"pid {holder.pid}" in result.stderr
    finally:
        holder.kill()
        holder.wait()
    with prepare(_spec(folder)) as plan:  # the lock goes with its holder
        assert plan.pending == []
        with pytest.raises(SweepBusyError, match=f"pid {os.getpid()} "):
            SweepLock(folder, "sweep")
    SweepLock(folder, "sweep").release()  # released when the plan's block ends


def test_sweep_json_is_checked_and_written_under_the_lock(tmp_path):
    """While one run holds a new sweep's folder, a run of another spec of that name is refused
    without touching sweep.json; afterwards it is refused for its spec."""
    spec, _ = build_spec({**SPEC, "out": str(tmp_path), "name": "race"}, workers=1)
    other = replace(spec, seed=99)
    with prepare(spec):
        with pytest.raises(SweepBusyError):
            prepare(other)
        assert SweepSpec.from_json((spec.folder / "sweep.json").read_text()).seed == spec.seed
    with pytest.raises(SpecMismatchError, match="differs in: seed"):
        prepare(other)


# --- tilesweep sql is read-only ------------------------------------------------------

@pytest.mark.parametrize("query, says", [
    ("COPY (SELECT * FROM results) TO '{target}'", "not COPY"),
    ("SELECT * FROM read_csv('/etc/passwd')", "Cannot access file \"/etc/passwd\""),
    ("ATTACH '{target}' AS elsewhere", "not ATTACH"),
    ("SET enable_external_access = true", "not SET"),
    ("SELECT 1; COPY (SELECT * FROM results) TO '{target}'", "holds 2 statements"),
    ("SELECT * FROM read_parquet('{other}/results/part-00000.parquet')", "Cannot access file"),
    ("INSTALL httpfs", "not LOAD"),
])
def test_sql_refuses_what_is_not_one_read_only_select(sweeps, tmp_path, query, says):
    target = tmp_path / "written.csv"
    query = query.format(target=target, other=sweeps["other"])
    result = RUNNER.invoke(app, ["sql", query, str(sweeps["sweep"])])
    assert result.exit_code == 2, result.output
    lines = result.stderr.strip().splitlines()
    assert len(lines) == 1 and says in lines[0] and repr(query) in lines[0] and result.stdout == ""
    assert "--allow-writes" in lines[0] and not target.exists()


def test_sql_allow_writes_is_the_full_duckdb(sweeps, tmp_path):
    target = tmp_path / "written.csv"
    query = f"SELECT 1; COPY (SELECT count(*) AS n FROM results) TO '{target}'"
    result = RUNNER.invoke(app, ["sql", "--allow-writes", query, str(sweeps["sweep"])])
    assert result.exit_code == 0, result.output
    assert pd.read_csv(target)["n"].tolist() == [48]


def test_sql_help_says_what_it_allows():
    text = RUNNER.invoke(app, ["sql", "--help"]).stdout
    assert "Read-only" in text and "--allow-writes" in text and "one SELECT" in " ".join(text.split())


def test_a_report_reads_each_part_s_bytes_once_to_verify_it(sweeps, tmp_path, monkeypatch):
    import tilesweep.jobs.verify as verify
    hashed = []
    real = verify.sha256_file
    monkeypatch.setattr(verify, "sha256_file", lambda path: hashed.append(path.name) or real(path))
    result = RUNNER.invoke(app, ["report", str(sweeps["sweep"]), "--out", str(tmp_path / "r.html")])
    assert result.exit_code == 0, result.output
    assert sorted(hashed) == [f"part-{i:05d}.parquet" for i in range(4)]
