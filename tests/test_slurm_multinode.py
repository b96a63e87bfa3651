"""Sweeps across a node boundary: the Slurm cluster of docker-compose.slurm.yml (a controller
and two compute nodes in containers, each with its own disk, one shared volume) against the
embedded cluster's rows; a compute node stopped and one drained mid-sweep; a pattern-database
store each node keeps on its own disk, and one on the shared volume.

Needs a Docker engine and Compose (skipped with the reason otherwise); the images are built
as tests/test_docker.py builds them (no registry), the Slurm layer on top
(docker/slurm/Dockerfile). The commands are those of docs/hpc.md.
"""

from __future__ import annotations

import json
import subprocess
import time

import pandas as pd
import pytest

from dockerized import IMAGE, ROOT, Project, base_image, build_image, engine_missing, run
from tilesweep.jobs.results import load_results
from tilesweep.jobs.schema import TIMING_COLUMNS

WHY_NOT = engine_missing()
pytestmark = [pytest.mark.slurm_multinode, pytest.mark.skipif(WHY_NOT is not None, reason=f"Docker: {WHY_NOT}")]

SLURM_IMAGE = IMAGE.replace("tilesweep:", "tilesweep-slurm:")
KEY = ["instance", "algorithm", "heuristic"]
# 30 chunks of 8-puzzles
SPEC = ["--size", "3", "--count", "480", "--seed", "5", "--algorithm", "astar", "--algorithm", "idastar",
        "--heuristic", "manhattan", "--chunk-size", "16"]
# 90 chunks, about 25 s on two workers: long enough for both nodes' jobs to join, and to drain
# or stop a node in while it runs (the last value of an option wins)
LONGER = [*SPEC, "--heuristic", "misplaced", "--count", "4320", "--chunk-size", "48"]
PDB_SPEC = ["--size", "3", "--count", "40", "--seed", "7", "--algorithm", "idastar", "--heuristic", "pdb:4-4",
            "--chunk-size", "5"]
# A job fills a node (2 CPUs, one single-threaded worker process each), so two jobs run one on each
JOBS = ["--cluster", "slurm", "--jobs", "2", "--cluster-option", "cores=2", "--cluster-option", "memory=2GB",
        "--cluster-option", "walltime=00:15:00", "--cluster-option", "interface=eth0", "--worker-wait", "180"]
# No task before both jobs' workers joined: a job that starts late would otherwise find the sweep done
BOTH_NODES = ["--wait-for-workers", "4"]
# The one-allocation script over both nodes: 4 tasks, 2 a node, a share of each node's 3000 MB
ALLOCATION = ["--nodes=2", "--ntasks=4", "--ntasks-per-node=2", "--mem-per-cpu=1000", "--time=00:15:00"]


class Nodes:
    """The compose project and what the tests do on its nodes."""

    def __init__(self, project: Project):
        self.project = project

    def container(self, service: str) -> str:
        return self.project.containers(service)[0]

    def exec(self, *argv, service="slurmctld", user="tilesweep", timeout=900, check=True):
        return run(["docker", "exec", "-u", user, self.container(service), *argv], timeout=timeout, check=check)

    def start_sweep(self, *args) -> subprocess.Popen:
        return subprocess.Popen(["docker", "exec", "-u", "tilesweep", self.container("slurmctld"), "tilesweep",
                                 "sweep", *args], stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)

    def sinfo(self) -> dict[str, str]:
        out = self.exec("sinfo", "-h", "-N", "-o", "%N %t", check=False).stdout.split("\n")
        return dict(line.split() for line in out if line.strip())

    def wait_idle(self, timeout=240) -> None:
        deadline = time.monotonic() + timeout
        while self.sinfo() != {"c1": "idle", "c2": "idle"}:
            assert time.monotonic() < deadline, f"nodes not idle: {self.sinfo()}\n{self.project.logs()}"
            time.sleep(2)

    def parts(self, name: str) -> int:
        done = self.exec("sh", "-c", f"ls /shared/sweeps/{name}/results 2>/dev/null | grep -c parquet", check=False)
        return int(done.stdout.strip() or 0)

    def rows(self, name: str, tmp_path) -> pd.DataFrame:
        """The sweep's rows, copied out of the shared volume."""
        run(["docker", "cp", f"{self.container('slurmctld')}:/shared/sweeps/{name}", str(tmp_path / name)])
        return load_results(tmp_path / name).sort_values(KEY).reset_index(drop=True)


@pytest.fixture(scope="module")
def nodes(tmp_path_factory, request):
    build_image(base_image())
    run(["docker", "build", "--build-arg", f"IMAGE={IMAGE}", "-t", SLURM_IMAGE, "docker/slurm"], cwd=ROOT,
        timeout=1800)
    project = Project(tmp_path_factory.mktemp("slurm"), files=("docker-compose.slurm.yml",))
    project.env["TILESWEEP_SLURM_IMAGE"] = SLURM_IMAGE
    request.addfinalizer(project.down)
    project.compose("up", "-d", timeout=600)
    cluster = Nodes(project)
    cluster.wait_idle()
    return cluster


@pytest.fixture(scope="module")
def embedded(nodes, tmp_path_factory):
    """The reference rows: the same sweeps on the embedded cluster, in the controller."""
    tmp = tmp_path_factory.mktemp("embedded")
    nodes.exec("tilesweep", "sweep", *PDB_SPEC, "--workers", "2", "--out", "/shared/sweeps", "--name", "pdbref")
    nodes.exec("tilesweep", "sweep", *LONGER, "--workers", "2", "--out", "/shared/sweeps", "--name", "longref")
    return {name: nodes.rows(name, tmp) for name in ("pdbref", "longref")}


def same_rows(rows: pd.DataFrame, reference: pd.DataFrame) -> None:
    compared = [c for c in reference.columns if c not in (*TIMING_COLUMNS, "sweep")]
    pd.testing.assert_frame_equal(rows[compared], reference[compared])


def hosts(rows: pd.DataFrame) -> set[str]:
    return set(rows["worker"].str.split(":").str[0])


def test_slurm_jobs_on_both_nodes_give_the_embedded_rows(nodes, embedded, tmp_path):
    nodes.exec("tilesweep", "sweep", *LONGER, *JOBS, *BOTH_NODES, "--out", "/shared/sweeps", "--name", "jobs")
    rows = nodes.rows("jobs", tmp_path)
    same_rows(rows, embedded["longref"])
    assert hosts(rows) == {"c1", "c2"}  # the rows say which node solved them
    assert hosts(embedded["longref"]) == {"slurmctld"}
    nodes.wait_idle()  # the jobs ended with the sweep


def test_one_allocation_over_both_nodes_gives_the_embedded_rows(nodes, embedded, tmp_path):
    """`tilesweep sbatch-script` submitted with two nodes: the scheduler and the sweep's client
    on the first, a worker per task on both (srun), joined through a scheduler file on /shared."""
    nodes.exec("sh", "-c", "tilesweep sbatch-script > /shared/sweep.sbatch")
    done = nodes.exec("sh", "-c", f"cd /shared && sbatch --wait {' '.join(ALLOCATION)} --output=/shared/alloc.log "
                      f"sweep.sbatch {' '.join(LONGER)} {' '.join(BOTH_NODES)} --out /shared/sweeps --name alloc",
                      check=False)
    log = nodes.exec("cat", "/shared/alloc.log", check=False).stdout
    assert done.returncode == 0, f"{done.stdout}{done.stderr}\n{log[-3000:]}"
    rows = nodes.rows("alloc", tmp_path)
    same_rows(rows, embedded["longref"])
    assert hosts(rows) == {"c1", "c2"}
    nodes.wait_idle()


def test_a_drained_node_mid_sweep_loses_no_row(nodes, embedded, tmp_path):
    sweep = nodes.start_sweep(*LONGER, *JOBS, "--out", "/shared/sweeps", "--name", "drained")
    try:
        _wait_for_parts(nodes, "drained", sweep)
        nodes.exec("scontrol", "update", "nodename=c2", "state=drain", "reason=maintenance", user="root")
        out, err = sweep.communicate(timeout=900)
        assert sweep.returncode == 0, err[-3000:]
        assert nodes.sinfo()["c2"] in ("drain", "drng")
    finally:
        nodes.exec("scontrol", "update", "nodename=c2", "state=resume", user="root", check=False)
    same_rows(nodes.rows("drained", tmp_path), embedded["longref"])
    nodes.wait_idle()


@pytest.mark.parametrize("where", ["node disks", "shared volume"])
def test_pattern_databases_on_each_node(nodes, embedded, tmp_path, where):
    """Node disks: each node's store (/data/pdb) starts empty; the client builds the tables in
    its own and the workers receive copies, checked against the controller's. Shared: one
    store on the shared volume, built once, none copied to the nodes' disks."""
    name, store = ("local", "/data/pdb") if where == "node disks" else ("sharedstore", "/shared/pdb")
    listing = "cd /data/pdb && find . -name '*.npy' | sort | xargs -r sha256sum"
    for node in ("slurmctld", "c1", "c2"):  # each node's own disk starts without tables
        nodes.exec("sh", "-c", "rm -rf /data/pdb/*", service=node)
    nodes.exec("tilesweep", "sweep", *PDB_SPEC, *JOBS, "--store", store, "--out", "/shared/sweeps", "--name", name)
    rows = nodes.rows(name, tmp_path)
    same_rows(rows, embedded["pdbref"])
    assert hosts(rows) == {"c1", "c2"}
    c1, c2 = (nodes.exec("sh", "-c", listing, service=node).stdout for node in ("c1", "c2"))
    if where == "node disks":  # built once, on the first worker, and copied whole to the other node
        assert c1.count(".npy") == 2 and c1 == c2
    else:  # nothing on any node's own disk: the shared store serves all
        assert c1 == c2 == nodes.exec("sh", "-c", listing).stdout == ""
    if where == "shared volume":
        assert "pdb_3x3" in nodes.exec("sh", "-c", "ls /shared/pdb").stdout
    nodes.wait_idle()


def test_a_compute_node_stopped_mid_sweep_loses_no_row(nodes, embedded, tmp_path):
    sweep = nodes.start_sweep(*LONGER, *JOBS, "--out", "/shared/sweeps", "--name", "stopped")
    try:
        _wait_for_parts(nodes, "stopped", sweep, parts=1)
        nodes.project.compose("stop", "--timeout", "5", "c2")
        out, err = sweep.communicate(timeout=900)
        assert sweep.returncode == 0, err[-3000:]
    finally:
        nodes.project.compose("start", "c2", check=False)
    rows = nodes.rows("stopped", tmp_path)
    same_rows(rows, embedded["longref"])
    assert "c1" in hosts(rows)


def _wait_for_parts(nodes: Nodes, name: str, sweep: subprocess.Popen, parts: int = 3, timeout=600) -> None:
    """Until the sweep has written ``parts`` parts with workers on both nodes' jobs running."""
    deadline = time.monotonic() + timeout
    while nodes.parts(name) < parts or set(nodes.exec("squeue", "-h", "-o", "%N").stdout.split()) != {"c1", "c2"}:
        assert sweep.poll() is None, f"the sweep ended first: {sweep.stderr.read()[-3000:]}"
        assert time.monotonic() < deadline, "the sweep wrote no parts"
        time.sleep(1)


# Korf #14 with Manhattan: 1,369,596,778 nodes (Korf's table), over three quarters of them in the
# last of its ten iterations: seconds on the two nodes' four workers, which a cancel after the
# eighth or ninth iteration cannot miss (Korf #1's last iterations ran out before an scancel)
KORF_14 = 14
COUNTS = ("status", "cost", "moves", "nodes_generated", "nodes_expanded", "iterations")
SOLVE_SCRIPT = ROOT / "examples" / "slurm" / "checkpointed-solve.sbatch"
STATE = ("import json, sys; from tilesweep.jobs.checkpoints import list_checkpoints; "
         "found = list_checkpoints(sys.argv[1]); s = found[0].state if found else None; "
         "print(json.dumps(s and {'iterations': len(s.iterations), 'done': len(s.done), 'chunks': s.chunks, "
         "'resumes': s.resumes, 'status': s.status}))")


def test_a_checkpointed_parallel_solve_cancelled_twice_resumes_exactly(nodes, korf100):
    """examples/slurm/checkpointed-solve.sbatch over both nodes, its job cancelled (scancel)
    once mid-iteration and once an iteration later, submitted again each time: the last job's
    counts are the uninterrupted serial search's."""
    from tilesweep.solver import Board, solve
    board = Board(korf100[KORF_14], 4)
    serial = solve(board, "blank-first")
    last_two = (len(serial.iterations) - 3, len(serial.iterations) - 2)  # iterations completed: 8th or 9th under way
    run(["docker", "cp", str(SOLVE_SCRIPT), f"{nodes.container('slurmctld')}:/shared/solve.sbatch"])
    folder = "/shared/runs/korf14"
    submit = ["sbatch", "--parsable", "--nodes=2", "--ntasks-per-node=2", "--mem-per-cpu=1000", "--time=00:15:00",
              "--chdir=/shared", "--output=/shared/solve-%j.log", "/shared/solve.sbatch", board.text(),
              "--goal", "blank-first", "--json", "--checkpoint", folder]

    def state():
        return json.loads(nodes.exec("python", "-c", STATE, folder).stdout)

    def cancel_when(ready, patience=600):
        job = nodes.exec(*submit).stdout.strip()
        deadline = time.monotonic() + patience
        while time.monotonic() < deadline:
            now = state()
            if now is not None and ready(now):
                nodes.exec("scancel", job)
                nodes.wait_idle()
                return now
            assert job in nodes.exec("squeue", "-h", "-o", "%i").stdout, nodes.exec("cat", f"/shared/solve-{job}.log")
            time.sleep(0.2)
        pytest.fail(f"the solve never reached the state to cancel it in: {state()}")

    first = cancel_when(lambda s: s["iterations"] in last_two and 0 < s["done"] < s["chunks"])
    assert first["status"] == -1 and 0 < first["done"] < first["chunks"]  # cancelled mid-iteration
    second = cancel_when(lambda s: s["resumes"] == 1 and s["iterations"] > first["iterations"])
    assert second["resumes"] == 1
    assert state()["status"] == -1, "the second job finished the search before its cancel"
    job = nodes.exec("sbatch", "--wait", *submit[2:], check=False)
    log = nodes.exec("sh", "-c", "cat /shared/solve-*.log").stdout
    assert job.returncode == 0, log[-3000:]
    last = nodes.exec("sh", "-c", f"cat /shared/solve-{job.stdout.split()[-1]}.log").stdout
    row = json.loads(next(line for line in last.splitlines() if line.startswith("{")))  # beside the workers' logs
    assert [row[k] for k in COUNTS] == [getattr(serial, k) for k in COUNTS]
    assert row["nodes_generated"] == 1_369_596_778
    assert state()["resumes"] == 2 and state()["status"] == 0
