"""The Docker side of the compose tests: engine check, images, and compose projects.

Every command here is one that docs/docker.md shows: ``docker/local-base.sh`` for a base
image without a registry, ``docker build --build-arg BASE=...``, and ``docker compose``
(or ``docker-compose`` 1.x, whichever the machine has) with a project name of its own,
torn down with its containers, networks and volumes whatever happens.
"""

from __future__ import annotations

import fcntl
import hashlib
import json
import os
import shutil
import socket
import subprocess
import tempfile
import time
import uuid
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
# One tag per checkout: two checkouts on one machine must not run each other's code.
IMAGE = "tilesweep:test-" + hashlib.sha256(str(ROOT).encode()).hexdigest()[:8]
LOOPBACK = "127.0.0.1"
# The scheduler's worker TTL in the tests (the compose file's default is Dask's 300 s): the
# cut-off test waits it out. Still far above a loaded worker's longest silence: the image
# holds the compiled kernels and a sweep's plugin prepares tables off the event loop.
WORKER_TTL = 60
# The seconds of each stage of the docker tier, which the run's summary prints (tests/conftest.py).
TIMINGS = ROOT / ".pytest_cache" / "docker-timings.txt"


def run(argv, timeout=600, check=True, **kwargs) -> subprocess.CompletedProcess:
    done = subprocess.run(argv, capture_output=True, text=True, timeout=timeout, **kwargs)
    if check and done.returncode != 0:
        raise AssertionError(f"{' '.join(map(str, argv))} exited {done.returncode}:\n"
                             f"{done.stdout[-3000:]}\n{done.stderr[-3000:]}")
    return done


def compose_command() -> list[str] | None:
    """``docker compose`` (the plugin) if it answers, else ``docker-compose``, else None."""
    for argv in (["docker", "compose"], ["docker-compose"]):
        if shutil.which(argv[0]) is None:
            continue
        try:
            if run([*argv, "version"], timeout=30, check=False).returncode == 0:
                return argv
        except (OSError, subprocess.TimeoutExpired):
            continue
    return None


def engine_missing() -> str | None:
    """Why the Docker tests cannot run here, or None when an engine and Compose answer."""
    if shutil.which("docker") is None:
        return "no docker command on PATH"
    try:
        info = run(["docker", "info", "--format", "{{.ServerVersion}}"], timeout=30, check=False)
    except subprocess.TimeoutExpired:
        return "the Docker engine did not answer `docker info` within 30 s"
    if info.returncode != 0 or not info.stdout.strip():
        return f"no Docker engine answers `docker info`: {info.stderr.strip()[:200]}"
    if compose_command() is None:
        return "neither `docker compose` nor `docker-compose` is installed"
    return None


def base_image() -> str:
    """The local base image's tag (built by docker/local-base.sh once per machine)."""
    return run(["bash", str(ROOT / "docker" / "local-base.sh")], timeout=1800).stdout.strip().splitlines()[-1]


def build_image(base: str) -> None:
    """Build the project's image; the docker and the Slurm-in-containers tiers may ask at once on
    two workers, and the engine's classic builder (Docker 20.10's) shares no build in
    progress: the second waits for the first, then finds every layer cached."""
    with open(Path(tempfile.gettempdir()) / f"{IMAGE.replace(':', '-')}.build.lock", "w") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)
        run(["docker", "build", "--build-arg", f"BASE={base}", "-t", IMAGE, "."], cwd=ROOT, timeout=2400)


def free_port() -> int:
    with socket.socket() as s:
        s.bind((LOOPBACK, 0))
        return s.getsockname()[1]


class Project:
    """One compose project (a unique name) of the repository's compose file(s)."""

    def __init__(self, tmp: Path, files=("docker-compose.yml",)):
        self.name = f"tstest{os.getpid()}{uuid.uuid4().hex[:6]}"
        self.files = files
        self.results = tmp / "results"
        self.results.mkdir(parents=True, exist_ok=True)
        self.results.chmod(0o777)  # the image's user (uid 1000) writes the client's results
        self.port, self.dashboard = free_port(), free_port()
        self.env = {**os.environ, "TILESWEEP_IMAGE": IMAGE, "TILESWEEP_RESULTS": str(self.results),
                    "TILESWEEP_SCHEDULER_PORT": str(self.port),
                    "TILESWEEP_DASHBOARD_PORT": str(self.dashboard),
                    "TILESWEEP_WORKER_TTL": f"{WORKER_TTL}s"}
        self.env.pop("DASK_SCHEDULER_ADDRESS", None)
        self.base = [*compose_command(), "-p", self.name]
        for name in files:
            self.base += ["-f", str(ROOT / name)]

    @property
    def address(self) -> str:
        return f"tcp://{LOOPBACK}:{self.port}"

    def compose(self, *args, timeout=600, check=True) -> subprocess.CompletedProcess:
        return run([*self.base, *args], timeout=timeout, check=check, cwd=ROOT, env=self.env)

    def popen(self, *args, log: Path) -> subprocess.Popen:
        with open(log, "wb") as out:
            return subprocess.Popen([*self.base, *args], cwd=ROOT, env=self.env, stdout=out,
                                    stderr=subprocess.STDOUT, stdin=subprocess.DEVNULL)

    def up(self, workers: int = 2) -> None:
        self.compose("up", "-d", "--scale", f"worker={workers}", timeout=600)

    def containers(self, service: str, all_states: bool = False) -> list[str]:
        argv = ["docker", "ps", "-q", "--filter", f"label=com.docker.compose.project={self.name}",
                "--filter", f"label=com.docker.compose.service={service}"]
        if all_states:
            argv.insert(2, "-a")
        return sorted(run(argv).stdout.split())

    def inspect(self, container: str) -> dict:
        return json.loads(run(["docker", "inspect", container]).stdout)[0]

    def network(self) -> str:
        scheduler = self.containers("scheduler")[0]
        return next(iter(self.inspect(scheduler)["NetworkSettings"]["Networks"]))

    def wait_healthy(self, timeout=180) -> None:
        deadline = time.monotonic() + timeout
        while True:
            state = self.inspect(self.containers("scheduler")[0])["State"]
            if state.get("Health", {}).get("Status") == "healthy":
                return
            assert time.monotonic() < deadline, f"scheduler not healthy: {state}\n{self.logs()}"
            time.sleep(1)

    def logs(self, service: str = "") -> str:
        done = self.compose("logs", "--no-color", "--tail", "40", *([service] if service else []),
                            check=False, timeout=60)
        return done.stdout[-6000:]

    def sweep(self, *args, timeout=900) -> subprocess.CompletedProcess:
        return self.compose("run", "--rm", "client", "tilesweep", "sweep", *args, timeout=timeout)

    def down(self) -> None:
        """Remove containers, networks and volumes, whatever state the project is in."""
        self.compose("down", "--volumes", "--remove-orphans", "--timeout", "5", check=False, timeout=300)
        label = f"label=com.docker.compose.project={self.name}"
        leftovers = run(["docker", "ps", "-aq", "--filter", label], check=False).stdout.split()
        if leftovers:
            run(["docker", "rm", "-f", "-v", *leftovers], check=False)
        for kind in ("network", "volume"):
            names = run(["docker", kind, "ls", "-q", "--filter", label], check=False).stdout.split()
            if names:
                run(["docker", kind, "rm", *names], check=False)
