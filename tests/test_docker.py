"""The compose cluster for real: the image built, containers started, workers killed and cut off.

Needs a Docker engine and Compose (skipped with the reason otherwise). No registry is
needed: the image is built on a local base (docker/local-base.sh, cached per machine).
Each project has a name of its own and is torn down with its volumes even on failure.
The commands are those of docs/docker.md.
"""

from __future__ import annotations

import json
import subprocess
import sys
import time
import urllib.request
from pathlib import Path

import pyarrow.parquet as pq
import pytest

from dockerized import IMAGE, LOOPBACK, ROOT, TIMINGS, WORKER_TTL, Project, base_image, build_image, engine_missing, run

WHY_NOT = engine_missing()
pytestmark = [pytest.mark.docker, pytest.mark.skipif(WHY_NOT is not None, reason=f"Docker: {WHY_NOT}")]

USER_ID = "1000"
KEY = ("instance", "algorithm", "heuristic")
COMPARED = ("status", "cost", "nodes_generated", "nodes_expanded")
# A sweep long enough to interrupt (tens of seconds on two busy cores), short to rerun.
# small chunks: a warm cluster finished 30 chunks of 40 between the second part and a client's kill
LONG = ["--size", "3", "--count", "1200", "--seed", "5", "--algorithm", "astar", "--algorithm",
        "idastar", "--heuristic", "manhattan", "--chunk-size", "10"]
LONG_PARTS = 1200 // 10
SHORT = ["--size", "3", "--count", "60", "--seed", "3", "--algorithm", "idastar", "--algorithm",
         "astar", "--heuristic", "manhattan", "--heuristic", "linear-conflict", "--chunk-size", "10"]


@pytest.fixture(scope="module")
def timings():
    """Seconds of each stage, written at the end of the module; the run's summary prints them
    (tests/conftest.py), so CI's log shows them."""
    spent: dict[str, float] = {}
    started = time.monotonic()
    yield spent
    spent["docker tests in all"] = time.monotonic() - started
    line = "docker timings: " + ", ".join(f"{k} {v:.1f} s" for k, v in spent.items())
    TIMINGS.parent.mkdir(exist_ok=True)
    TIMINGS.write_text(line + "\n")


@pytest.fixture(scope="module")
def image(timings):
    started = time.monotonic()
    base = base_image()
    timings["base image"] = time.monotonic() - started
    started = time.monotonic()
    build_image(base)
    timings["image build"] = time.monotonic() - started
    return IMAGE


@pytest.fixture(scope="module")
def cluster(image, tmp_path_factory, request):
    """`docker compose up -d --scale worker=2`: a healthy scheduler and two workers."""
    project = Project(tmp_path_factory.mktemp("compose"))
    request.addfinalizer(project.down)
    project.up(workers=2)
    project.wait_healthy()
    wait_for_workers(project, 2)
    return project


def wait_for_workers(project: Project, n: int, timeout: float = 360) -> None:
    """Exactly ``n`` workers, each at an address on the compose network (none on loopback)."""
    from distributed import Client

    deadline = time.monotonic() + timeout
    with Client(project.address, timeout="30s") as client:
        while True:
            workers = list(client.scheduler_info(n_workers=-1)["workers"])
            if len(workers) == n and not any("127.0.0.1" in w for w in workers):
                return
            if time.monotonic() > deadline:
                pytest.fail(f"not {n} reachable workers but {workers}:\n{project.logs()}")
            time.sleep(1)


def rows_of(folder: Path) -> list[dict]:
    return pq.read_table(folder / "results").to_pylist()


def by_key(rows: list[dict]) -> dict[tuple, tuple]:
    keyed = {tuple(r[k] for k in KEY): tuple(r[c] for c in COMPARED) for r in rows}
    assert len(keyed) == len(rows), "a (instance, algorithm, heuristic) appears twice"
    return keyed


def embedded(args: list[str], tmp: Path, name: str, store: Path | None = None) -> dict[tuple, tuple]:
    """The same sweep on the embedded cluster of this checkout (two worker processes)."""
    argv = [sys.executable, "cli.py", "sweep", *args, "--workers", "2", "--out", str(tmp),
            "--name", name, *(["--store", str(store)] if store else [])]
    run(argv, cwd=ROOT, timeout=900)
    return by_key(rows_of(tmp / name))


def expected_count(args: list[str]) -> int:
    count = int(args[args.index("--count") + 1])
    return count * args.count("--algorithm") * args.count("--heuristic")


def test_image_runs_the_tools_as_the_unprivileged_user(image):
    def output(*argv):  # run() fails the test on a non-zero exit
        return run(["docker", "run", "--rm", image, *argv], timeout=120).stdout

    assert output("id", "-u").strip() == USER_ID
    assert "sweep" in output("tilesweep", "--help")
    assert "version" in output("dask", "scheduler", "--version").lower()
    # python and pip as in the official image: the environment's, first on PATH.
    where = run(["docker", "run", "--rm", image, "python", "-c",
                 "import sys, tilesweep; print(sys.version_info[:2], tilesweep.__file__)"]).stdout
    assert where.startswith("(3, 11)") and "site-packages/tilesweep" in where


def test_compose_starts_a_healthy_scheduler_and_two_workers(cluster):
    scheduler = cluster.inspect(cluster.containers("scheduler")[0])
    assert scheduler["State"]["Health"]["Status"] == "healthy"
    workers = cluster.containers("worker")
    assert len(workers) == 2
    for container in [scheduler["Id"], *workers]:
        assert cluster.inspect(container)["Config"]["User"] in ("tilesweep", USER_ID)
        assert run(["docker", "exec", container, "id", "-u"]).stdout.strip() == USER_ID


def test_ports_are_published_on_loopback_only_and_the_dashboard_answers(cluster):
    scheduler = cluster.containers("scheduler")[0]
    published = run(["docker", "port", scheduler]).stdout.split("\n")
    bindings = sorted(line for line in published if line.strip())
    assert bindings == sorted([f"8786/tcp -> {LOOPBACK}:{cluster.port}",
                               f"8787/tcp -> {LOOPBACK}:{cluster.dashboard}"]), bindings
    for worker in cluster.containers("worker"):
        assert not run(["docker", "port", worker]).stdout.strip()
    with urllib.request.urlopen(f"http://{LOOPBACK}:{cluster.dashboard}/status", timeout=30) as page:
        assert page.status == 200 and b"bokeh" in page.read().lower()


def test_sweeps_from_the_client_and_the_host_equal_the_embedded_cluster(cluster, tmp_path):
    reference = embedded(SHORT, tmp_path / "embedded", "short")

    cluster.sweep(*SHORT, "--name", "from-client")
    from_client = by_key(rows_of(cluster.results / "sweeps" / "from-client"))
    assert from_client == reference

    from distributed import Client

    with Client(cluster.address, timeout="30s") as client:
        client.get_versions(check=True)  # the host's dask and python match the image's
    out = tmp_path / "host"
    run([sys.executable, "cli.py", "sweep", "--scheduler", cluster.address, "--store", "/data/pdb",
         *SHORT, "--out", str(out), "--name", "from-host"], cwd=ROOT, timeout=600)
    rows = rows_of(out / "from-host")
    assert by_key(rows) == reference
    hosts = {container[:12] for container in cluster.containers("worker")}  # their host names
    assert {r["worker"].split(":")[0] for r in rows} <= hosts, "solved by the containers' workers"


def start_sweep(project: Project, name: str, log: Path, container: str | None = None) -> subprocess.Popen:
    named = ["--name", container] if container else []
    return project.popen("run", "--rm", *named, "client", "tilesweep", "sweep", *LONG, "--name", name,
                         log=log)


def wait_for_parts(project: Project, name: str, proc: subprocess.Popen, log: Path, at_least=1):
    folder = project.results / "sweeps" / name / "results"
    deadline = time.monotonic() + 300
    while len(list(folder.glob("part-*.parquet"))) < at_least:
        assert proc.poll() is None, f"the sweep ended before it could be interrupted:\n{log.read_text()}"
        assert time.monotonic() < deadline, f"no parts after 300 s:\n{log.read_text()}"
        time.sleep(0.05)


def finish(proc: subprocess.Popen, log: Path, timeout=900) -> None:
    assert proc.wait(timeout=timeout) == 0, log.read_text()[-4000:]


@pytest.fixture(scope="module")
def long_reference(tmp_path_factory):
    return embedded(LONG, tmp_path_factory.mktemp("embedded-long"), "long")


def test_a_worker_killed_mid_sweep_costs_no_row(cluster, tmp_path, long_reference, timings):
    started = time.monotonic()
    log = tmp_path / "sweep.log"
    proc = start_sweep(cluster, "killed-worker", log)
    wait_for_parts(cluster, "killed-worker", proc, log)
    run(["docker", "kill", cluster.containers("worker")[0]])
    assert proc.poll() is None, "the sweep ended before the worker was killed"
    finish(proc, log)
    assert by_key(rows_of(cluster.results / "sweeps" / "killed-worker")) == long_reference
    timings["worker killed"] = time.monotonic() - started
    cluster.up(workers=2)
    wait_for_workers(cluster, 2)


def test_a_worker_cut_off_longer_than_the_timeouts_costs_no_row(cluster, tmp_path, long_reference, timings):
    started = time.monotonic()
    log = tmp_path / "sweep.log"
    proc = start_sweep(cluster, "cut-off", log)
    wait_for_parts(cluster, "cut-off", proc, log)
    network, worker = cluster.network(), cluster.containers("worker")[0]
    run(["docker", "network", "disconnect", network, worker])
    assert proc.poll() is None, "the sweep ended before the worker was cut off"
    time.sleep(CUT_OFF_SECONDS)
    run(["docker", "network", "connect", network, worker])
    finish(proc, log)
    assert by_key(rows_of(cluster.results / "sweeps" / "cut-off")) == long_reference
    timings["worker cut off"] = time.monotonic() - started
    cluster.up(workers=2)
    wait_for_workers(cluster, 2)


# Longer than distributed.comm.timeouts.connect and .tcp (30 s each) and the scheduler's
# worker TTL (TILESWEEP_WORKER_TTL in the tests' projects).
CUT_OFF_SECONDS = WORKER_TTL + 30


def test_the_client_killed_mid_sweep_and_rerun_gives_the_uninterrupted_table(cluster, tmp_path,
                                                                               long_reference, timings):
    started = time.monotonic()
    log = tmp_path / "sweep.log"
    container = f"{cluster.name}-client-killed"
    proc = start_sweep(cluster, "client-killed", log, container=container)
    wait_for_parts(cluster, "client-killed", proc, log)
    run(["docker", "kill", container])
    proc.wait(timeout=120)
    run(["docker", "rm", "-f", container], check=False)
    parts = len(list((cluster.results / "sweeps" / "client-killed" / "results").glob("part-*.parquet")))
    assert 0 < parts < LONG_PARTS, "killed part-way"
    cluster.sweep(*LONG, "--name", "client-killed")
    assert by_key(rows_of(cluster.results / "sweeps" / "client-killed")) == long_reference
    timings["client killed"] = time.monotonic() - started


def manifest(project: Project, container: str) -> dict:
    return json.loads(run(["docker", "exec", container, "cat", "/data/pdb/manifest.json"]).stdout)["tables"]


PDB_SWEEP = ["--size", "4", "--instances", "walk:40", "--count", "16", "--seed", "2",
             "--algorithm", "idastar", "--heuristic", "pdb:5-5-5", "--chunk-size", "4"]


def test_down_and_up_again_reuse_the_tables_in_the_volume(cluster, tmp_path, timings):
    started = time.monotonic()
    cluster.sweep(*PDB_SWEEP, "--name", "tables-once")
    before = manifest(cluster, cluster.containers("worker")[0])
    assert len(before) == 3
    cluster.compose("down", "--timeout", "5")
    assert not cluster.containers("worker", all_states=True)
    cluster.up(workers=2)
    cluster.wait_healthy()
    wait_for_workers(cluster, 2)
    done = cluster.sweep(*PDB_SWEEP, "--name", "tables-reused")
    assert "build" not in done.stdout.lower(), done.stdout
    for worker in cluster.containers("worker"):
        assert manifest(cluster, worker) == before, "the tables were rebuilt"
    assert by_key(rows_of(cluster.results / "sweeps" / "tables-reused")) == \
        by_key(rows_of(cluster.results / "sweeps" / "tables-once"))
    timings["down and up"] = time.monotonic() - started


def test_per_host_stores_build_each_table_once_and_every_worker_verifies_it(image, tmp_path, timings):
    started = time.monotonic()
    project = Project(tmp_path, files=("docker-compose.yml", "docker-compose.per-host.yml"))
    try:
        project.up(workers=2)
        project.wait_healthy()
        wait_for_workers(project, 2)
        args = ["--size", "4", "--instances", "walk:30", "--count", "12", "--seed", "4",
                "--algorithm", "idastar", "--heuristic", "pdb:5-5-5", "--chunk-size", "3"]
        project.sweep(*args, "--name", "per-host")
        workers = project.containers("worker")
        stores = [manifest(project, w) for w in workers]
        assert len(stores[0]) == 3 and all(s == stores[0] for s in stores), \
            "every worker holds the same entries: each table built once (one built_at), copied"
        for worker in workers:
            verify = run(["docker", "exec", worker, "tilesweep", "pdb", "verify", "--store", "/data/pdb"])
            assert "3 of 3 table(s)" in verify.stdout and verify.stdout.count("ok ") == 3, verify.stdout
        volumes = {m["Name"] for w in workers for m in project.inspect(w)["Mounts"]
                   if m["Destination"] == "/data/pdb"}
        assert len(volumes) == len(workers), "each worker has a store of its own"
        store = tmp_path / "copied-store"
        run(["docker", "cp", f"{workers[0]}:/data/pdb", str(store)])
        rows = rows_of(project.results / "sweeps" / "per-host")
        assert all(r["status"] == "solved" for r in rows)
        assert by_key(rows) == embedded(args, tmp_path / "embedded", "per-host", store=store)
        timings["per-host stores"] = time.monotonic() - started
        started = time.monotonic()
        a_worker_joins_late(project, args, rows, stores[0])
        timings["per-host late worker"] = time.monotonic() - started
    finally:
        project.down()


def a_worker_joins_late(project: Project, args: list[str], expected: list[dict], entries: dict) -> None:
    """A worker container added after the sweep shared its tables, with an empty store,
    copies them from the others (sha256 checked) in its first task and solves rows.

    The scheduler keeps the sweep's plugin, with where each table can be copied from, and
    gives it to every worker that joins; the sweep's chunk tasks are then sent to the new
    worker only (as Dask sends queued tasks to a worker that joins mid-sweep), so whether
    it gets work does not hang on timing.
    """
    from distributed import Client

    from tilesweep.cluster.run import run_chunk
    from tilesweep.jobs.work import ChunkJob
    from tilesweep.solver.board import goal_tiles, parse_tiles

    first = set(project.containers("worker"))
    with Client(project.address, timeout="30s") as client:
        before = set(client.scheduler_info(n_workers=-1)["workers"])
    project.up(workers=3)
    (late,) = set(project.containers("worker")) - first
    assert not run(["docker", "exec", late, "ls", "/data/pdb"]).stdout.strip(), "its store starts empty"
    size, heuristic = int(args[args.index("--size") + 1]), args[args.index("--heuristic") + 1]
    job = ChunkJob(sweep="per-host", chunk=0, size=size, goal=goal_tiles("blank-last", size),
                   combos=(("idastar", heuristic),), max_nodes=None,
                   instances=tuple((r["instance"], parse_tiles(r["tiles"], size)) for r in expected))
    with Client(project.address, timeout="30s") as client:
        plugins = client.run_on_scheduler(lambda dask_scheduler: list(dask_scheduler.worker_plugins))
        (plugin,) = [name for name in plugins if name.startswith("tilesweep-") and name != "tilesweep-version"]
        deadline = time.monotonic() + 360
        while not (workers := sorted(set(client.scheduler_info(n_workers=-1)["workers"]) - before)):
            assert time.monotonic() < deadline, project.logs("worker")
            time.sleep(1)
        rows = client.submit(run_chunk, job, plugin, workers=workers, allow_other_workers=False,
                             pure=False).result(timeout=600).to_pylist()
    assert manifest(project, late) == entries, "the late worker holds the same tables (one build, copied)"
    verify = run(["docker", "exec", late, "tilesweep", "pdb", "verify", "--store", "/data/pdb"])
    assert "3 of 3 table(s)" in verify.stdout and verify.stdout.count("ok ") == 3, verify.stdout
    assert {r["worker"].split(":")[0] for r in rows} == {late[:12]}
    assert by_key(rows) == by_key(expected)
