"""docker-compose.yml, Dockerfile and .dockerignore: valid, loopback-only, and really runnable.

No Docker engine is needed. The compose file is validated offline against the Compose
Specification JSON schema that check-jsonschema vendors; the scheduler and worker
commands it declares are started as local processes (``scheduler`` -> 127.0.0.1, free
ports) and a real ``tilesweep sweep --scheduler`` runs on them; the Dockerfile is parsed.
"""

from __future__ import annotations

import json
import os
import re
import shlex
import socket
import subprocess
import sys
import time
from importlib.resources import files
from pathlib import Path

import jsonschema
import pytest

ROOT = Path(__file__).resolve().parents[1]
COMPOSE = ROOT / "docker-compose.yml"
DOCKERFILE = ROOT / "Dockerfile"
DOCKERIGNORE = ROOT / ".dockerignore"
STORE_IN_IMAGE = "/data/pdb"
SCHEDULER_PORT, DASHBOARD_PORT = 8786, 8787
LOOPBACK = "127.0.0.1"


# --- loading ------------------------------------------------------------------------------


def load_yaml(path: Path):
    """The YAML document as plain dicts and lists (merge keys ``<<`` resolved)."""
    from ruamel.yaml import YAML  # installed with check-jsonschema (the test extra)

    return YAML(typ="safe", pure=True).load(path.read_text())


_VARIABLE = re.compile(r"\$(?:\$|\{(?P<name>[A-Za-z_][A-Za-z0-9_]*)(?:(?P<op>:?[-?])(?P<arg>[^}]*))?\}"
                       r"|(?P<bare>[A-Za-z_][A-Za-z0-9_]*))")


def interpolate(value, env: dict | None = None):
    """Compose's ``${VAR:-default}`` interpolation, recursively, against ``env`` (default: empty).

    With an empty environment every variable must carry a default, so the file works with
    no ``.env``; a variable without one is an error.
    """
    env = {} if env is None else env
    if isinstance(value, dict):
        return {k: interpolate(v, env) for k, v in value.items()}
    if isinstance(value, list):
        return [interpolate(v, env) for v in value]
    if not isinstance(value, str):
        return value

    def substitute(match: re.Match) -> str:
        if match.group(0) == "$$":
            return "$"
        name = match.group("name") or match.group("bare")
        op, arg = match.group("op"), match.group("arg")
        current = env.get(name)
        if op in (":-", "-") and (current is None or (op == ":-" and current == "")):
            return arg
        if current is None:
            raise AssertionError(f"${{{name}}} in docker-compose.yml has no default: {value!r}")
        return current

    return _VARIABLE.sub(substitute, value)


@pytest.fixture(scope="module")
def compose() -> dict:
    return load_yaml(COMPOSE)


@pytest.fixture(scope="module")
def services(compose) -> dict:
    return interpolate(compose)["services"]


def command_of(service: dict) -> list[str]:
    command = service["command"]
    return shlex.split(command) if isinstance(command, str) else [str(a) for a in command]


def option(argv: list[str], name: str) -> str:
    """The value of ``--name VALUE`` or ``--name=VALUE`` in ``argv``."""
    for i, arg in enumerate(argv):
        if arg == name:
            return argv[i + 1]
        if arg.startswith(name + "="):
            return arg.split("=", 1)[1]
    raise AssertionError(f"{name} not in {argv}")


def replace_option(argv: list[str], name: str, value: str) -> list[str]:
    out, i = [], 0
    while i < len(argv):
        if argv[i] == name:
            out += [name, value]
            i += 2
            continue
        out.append(f"{name}={value}" if argv[i].startswith(name + "=") else argv[i])
        i += 1
    return out


# --- 1. the compose file ----------------------------------------------------------------


def compose_schema() -> dict:
    """The Compose Specification schema vendored by check-jsonschema (no network)."""
    vendor = files("check_jsonschema") / "builtin_schemas" / "vendor"
    candidates = [p for p in vendor.iterdir() if p.name.startswith("compose") and p.name.endswith(".json")]
    assert candidates, f"no compose-spec schema in {vendor}"
    return json.loads(candidates[0].read_text())


def test_compose_file_is_valid_against_the_compose_specification(compose):
    schema = compose_schema()
    validator = jsonschema.validators.validator_for(schema)(schema)
    for document in (compose, interpolate(compose)):
        errors = sorted(validator.iter_errors(document), key=lambda e: list(e.absolute_path))
        assert not errors, "\n".join(f"{'/'.join(map(str, e.absolute_path))}: {e.message}" for e in errors)


def test_schema_check_is_not_vacuous(compose):
    schema = compose_schema()
    validator = jsonschema.validators.validator_for(schema)(schema)
    broken = json.loads(json.dumps(compose))
    broken["services"]["worker"]["depends_on"]["scheduler"]["condition"] = "service_sleeping"
    broken["services"]["worker"]["no_such_key"] = True
    assert list(validator.iter_errors(broken))


def test_services_and_one_image(services):
    assert {"scheduler", "worker", "client"} <= set(services)
    builds = {json.dumps(s.get("build"), sort_keys=True) for s in services.values()}
    images = {s.get("image") for s in services.values()}
    assert len(builds) == 1 and len(images) == 1, "scheduler, workers and client must share one image"
    build = next(iter(services.values())).get("build")
    assert build is not None, "the services build ./Dockerfile"
    context = build if isinstance(build, str) else build.get("context", ".")
    dockerfile = "Dockerfile" if isinstance(build, str) else build.get("dockerfile", "Dockerfile")
    assert (COMPOSE.parent / context / dockerfile).resolve() == DOCKERFILE


def test_scheduler_command_and_healthcheck(services):
    scheduler = services["scheduler"]
    argv = command_of(scheduler)
    assert argv[:2] == ["dask", "scheduler"], "use `dask scheduler` (dask-scheduler was removed)"
    assert not any("dask-scheduler" in a or "dask-worker" in a for s in services.values() for a in command_of(s))
    assert int(option(argv, "--port")) == SCHEDULER_PORT
    assert option(argv, "--dashboard-address").rsplit(":", 1)[1] == str(DASHBOARD_PORT)

    check = scheduler["healthcheck"]
    test = check["test"]
    assert isinstance(test, list) and test[0] == "CMD" and test[1].startswith("python"), \
        "exec-form healthcheck with python (the slim image has no curl)"
    script = " ".join(test[2:])
    assert "urllib" in script and f"http://localhost:{DASHBOARD_PORT}/health" in script
    assert "curl" not in script and "wget" not in script
    assert int(check.get("retries", 3)) >= 3


def test_worker_command_scales_and_waits_for_a_healthy_scheduler(services):
    worker = services["worker"]
    argv = command_of(worker)
    assert argv[:3] == ["dask", "worker", f"tcp://scheduler:{SCHEDULER_PORT}"]
    assert option(argv, "--nthreads") == "1"
    assert worker["depends_on"]["scheduler"]["condition"] == "service_healthy"
    # --scale worker=N: no fixed name, no host ports, no pinned replica count.
    assert "container_name" not in worker
    assert not worker.get("ports")
    assert "scale" not in worker and "replicas" not in worker.get("deploy", {})


def largest_table_bytes() -> int:
    """Bytes of the largest named 4x4 partition (pdb:7-8: about 0.58 GB of uint8)."""
    from tilesweep.solver.heuristics import PARTITIONS
    from tilesweep.solver.ranking import placement_count

    return max(sum(placement_count(16, len(g)) for g in groups) for groups in PARTITIONS[4].values())


def docker_bytes(value) -> int:
    """Docker's memory size (``4g``, ``512m``, ``1073741824``: binary units) in bytes."""
    match = re.fullmatch(r"(\d+(?:\.\d+)?)\s*([bkmg]?)b?", str(value).strip().lower())
    assert match, f"not a Docker memory size: {value!r}"
    return int(float(match.group(1)) * 1024 ** "bkmg".index(match.group(2) or "b"))


def test_worker_memory_limit_leaves_room_for_mapped_tables(services):
    import dask
    import distributed  # noqa: F401 - registers the distributed.* config defaults
    from dask.utils import parse_bytes

    worker = services["worker"]
    limit = parse_bytes(option(command_of(worker), "--memory-limit"))
    # Mapped table pages count in the process's RSS, which Dask pauses the worker at.
    pause = dask.config.get("distributed.worker.memory.pause") or 1.0
    room = limit * pause - largest_table_bytes()
    assert room >= 1 << 30, f"--memory-limit {limit:,} B leaves only {room:,} B beside the pdb:7-8 tables"
    hard = worker.get("mem_limit") or worker.get("deploy", {}).get("resources", {}).get("limits", {}).get("memory")
    assert hard is not None, "the worker container has a memory limit"
    assert docker_bytes(hard) > limit, \
        "the container's hard limit sits above Dask's, so the nanny acts before the OOM killer"


def published_ports(service: dict):
    for port in service.get("ports", []):
        if isinstance(port, dict):
            yield port.get("host_ip"), str(port.get("published")), str(port.get("target"))
            continue
        spec = str(port).split("/")[0]
        parts = spec.rsplit(":", 2)
        if len(parts) == 3:
            yield parts[0], parts[1], parts[2]
        elif len(parts) == 2:
            yield None, parts[0], parts[1]
        else:
            yield None, "", parts[0]


def test_every_published_port_binds_loopback(services):
    seen = set()
    for name, service in services.items():
        for host_ip, published, target in published_ports(service):
            assert host_ip == LOOPBACK, f"{name} publishes {published}:{target} on {host_ip or 'all interfaces'}"
            assert published, f"{name} publishes {target} on a random host port"
            seen.add((name, published, target))
        assert service.get("network_mode") != "host", f"{name} must not use the host network"
        assert not service.get("privileged"), f"{name} must not be privileged"
    assert {("scheduler", "8786", "8786"), ("scheduler", "8787", "8787")} <= seen


def volume_source_of(service: dict, target: str) -> tuple[str | None, str | None]:
    """(type, source) of the mount of ``target`` in ``service``."""
    for volume in service.get("volumes", []):
        if isinstance(volume, dict):
            if volume.get("target") == target:
                return volume.get("type"), volume.get("source")
            continue
        parts = str(volume).split(":")
        if len(parts) >= 2 and parts[1] == target:
            source = parts[0]
            kind = "bind" if source.startswith((".", "/", "~")) else "volume"
            return kind, source
    return None, None


def test_volumes_share_the_store_and_keep_results(compose, services):
    named = set(compose.get("volumes") or {})
    store_sources = set()
    for name in ("worker", "client"):
        kind, source = volume_source_of(services[name], STORE_IN_IMAGE)
        assert kind == "volume" and source in named, f"{name} mounts the named store volume at {STORE_IN_IMAGE}"
        store_sources.add(source)
    assert len(store_sources) == 1, "workers and client share one store volume"

    client = services["client"]
    results = [v for v in client.get("volumes", []) if "results" in json.dumps(v)]
    assert results, "the client keeps results on a bind mount or a named volume"
    kind, source = volume_source_of(client, "/results")
    assert kind == "bind" and source == "./results" or kind == "volume" and source in named
    assert command_of(client)[0] == "tilesweep"
    assert client.get("environment", {}).get("DASK_SCHEDULER_ADDRESS") == f"tcp://scheduler:{SCHEDULER_PORT}"
    assert client.get("profiles"), "the client is started on demand (docker compose run), not by `up`"


# --- 3. the Dockerfile ------------------------------------------------------------------


def dockerfile_instructions() -> list[tuple[str, str]]:
    """(INSTRUCTION, arguments) with line continuations joined and comments dropped."""
    lines, current = [], ""
    for raw in DOCKERFILE.read_text().splitlines():
        stripped = raw.strip()
        if not current and (not stripped or stripped.startswith("#")):
            continue
        if stripped.startswith("#"):
            continue
        if stripped.endswith("\\"):
            current += stripped[:-1] + " "
            continue
        current += stripped
        lines.append(current)
        current = ""
    out = []
    for line in lines:
        keyword, _, rest = line.partition(" ")
        out.append((keyword.upper(), rest.strip()))
    return out


def env_of(instructions) -> dict:
    env = {}
    for keyword, rest in instructions:
        if keyword == "ENV":
            for token in shlex.split(rest):
                key, sep, value = token.partition("=")
                if sep:
                    env[key] = value
    return env


def test_dockerfile_installs_from_pyproject_as_a_non_root_user():
    instructions = dockerfile_instructions()
    keywords = [k for k, _ in instructions]
    # The official image by default; a local stand-in where no registry answers.
    args = [rest for k, rest in instructions[:keywords.index("FROM")] if k == "ARG"]
    assert len(args) == 1 and re.fullmatch(r"BASE=python:3\.1[1-9]-slim(-[a-z]+)?", args[0]), args
    froms = [rest for k, rest in instructions if k == "FROM"]
    assert froms == ["${BASE}"], froms

    runs = [(i, rest) for i, (k, rest) in enumerate(instructions) if k == "RUN"]
    deps = [i for i, rest in runs if "pyproject.toml" in rest and "pip install" in rest]
    install = [i for i, rest in runs if re.search(r"pip install --no-deps \.(\s|$)", rest)]
    assert deps and install and deps[0] < install[0], \
        "the dependencies of pyproject.toml in their own layer, then the project itself"
    copies = [(i, rest) for i, (k, rest) in enumerate(instructions) if k in ("COPY", "ADD")]
    assert copies[0][1].split()[0] == "pyproject.toml" and copies[0][0] < deps[0]
    assert any(i < install[0] and rest.split()[0] == "." for i, rest in copies), \
        "the project is copied before it is installed"

    users = [rest for k, rest in instructions if k == "USER"]
    assert users, "the image sets a USER"
    assert users[-1].split(":")[0] not in ("root", "0"), "the image runs as a non-root user"
    assert max(i for i, k in enumerate(keywords) if k == "USER") > install[0]

    env = env_of(instructions)
    assert env.get("NUMBA_CACHE_DIR"), "numba needs a writable cache directory"
    assert env.get("TILESWEEP_STORE") == STORE_IN_IMAGE
    text = " ".join(rest for _, rest in runs)
    assert "chown" in text and ("NUMBA_CACHE_DIR" in text or env["NUMBA_CACHE_DIR"] in text), \
        "the numba cache directory is created and given to the user"


def test_dockerignore_keeps_what_the_install_needs():
    import fnmatch

    patterns = [p.strip() for p in DOCKERIGNORE.read_text().splitlines() if p.strip() and not p.startswith("#")]
    needed = ["pyproject.toml", "README.md", "cli.py", "commands", "solver", "pdb_store",
              "jobs", "cluster", "webui"]
    for path in needed:
        excluded = [p for p in patterns if not p.startswith("!") and fnmatch.fnmatch(path, p.lstrip("/"))]
        assert not excluded, f".dockerignore drops {path} ({excluded})"
    assert ".git" in patterns


# --- 2. the compose commands, run for real ----------------------------------------------


def free_port() -> int:
    with socket.socket() as s:
        s.bind((LOOPBACK, 0))
        return s.getsockname()[1]


def drop_option(argv: list[str], name: str) -> list[str]:
    """``argv`` without option ``name`` and its value (``--name value`` or ``--name=value``)."""
    out, i = [], 0
    while i < len(argv):
        if argv[i] == name:
            i += 2
            continue
        if not argv[i].startswith(name + "="):
            out.append(argv[i])
        i += 1
    return out


def local_argv(argv: list[str]) -> list[str]:
    """Run ``dask ...`` with this interpreter (``python -m dask ...``)."""
    assert argv[0] == "dask"
    return [sys.executable, "-m", "dask", *argv[1:]]


def log_tail(path: Path, lines: int = 30) -> str:
    text = path.read_text(errors="replace") if path.exists() else ""
    return "\n".join(text.splitlines()[-lines:])


@pytest.fixture(scope="module")
def cluster(request, services, tmp_path_factory):
    """The compose scheduler and two compose workers, as local processes on 127.0.0.1."""
    from distributed import Client

    tmp = tmp_path_factory.mktemp("compose")
    port, dashboard = free_port(), free_port()
    address = f"tcp://{LOOPBACK}:{port}"
    env = {k: v for k, v in os.environ.items() if k != "DASK_SCHEDULER_ADDRESS"}
    env["TILESWEEP_STORE"] = str(tmp / "pdb")
    env["PYTHONPATH"] = os.pathsep.join(filter(None, [str(ROOT), env.get("PYTHONPATH")]))
    procs: list[tuple[subprocess.Popen, Path]] = []

    def stop():
        # Workers first (all at once), then the scheduler, so nobody waits on a lost peer.
        workers, scheduler = [p for p, _ in procs[1:]], [p for p, _ in procs[:1]]
        for group in (workers, scheduler):
            for proc in group:
                if proc.poll() is None:
                    proc.terminate()
            for proc in group:
                try:
                    proc.wait(timeout=15)
                except subprocess.TimeoutExpired:
                    proc.kill()
                    proc.wait(timeout=5)

    request.addfinalizer(stop)

    def start(argv: list[str], log: Path) -> subprocess.Popen:
        with open(log, "wb") as out:
            proc = subprocess.Popen(argv, cwd=tmp, env=env, stdout=out, stderr=subprocess.STDOUT)
        procs.append((proc, log))
        return proc

    argv = command_of(services["scheduler"])
    argv = replace_option(argv, "--port", str(port))
    argv = replace_option(argv, "--dashboard-address", f"{LOOPBACK}:{dashboard}")
    scheduler_log = tmp / "scheduler.log"
    scheduler = start(local_argv(argv) + ["--host", LOOPBACK], scheduler_log)

    # Workers retry until the scheduler listens, so they start at once (as compose would
    # start them only after the healthcheck; the wait below checks that healthcheck).
    # --interface names the container's network; here the workers listen on loopback (--host).
    worker_argv = [a.replace(f"tcp://scheduler:{SCHEDULER_PORT}", address)
                   for a in drop_option(command_of(services["worker"]), "--interface")]
    for i in range(2):
        start(local_argv(worker_argv) + ["--host", LOOPBACK], tmp / f"worker-{i}.log")

    # The compose healthcheck itself, pointed at this dashboard port.
    health = [a.replace(f":{DASHBOARD_PORT}/", f":{dashboard}/")
              for a in services["scheduler"]["healthcheck"]["test"][1:]]
    health[0] = sys.executable
    deadline = time.monotonic() + 30
    while True:
        assert scheduler.poll() is None, f"scheduler exited:\n{log_tail(scheduler_log)}"
        if subprocess.run(health, capture_output=True, timeout=15).returncode == 0:
            break
        assert time.monotonic() < deadline, f"healthcheck never passed:\n{log_tail(scheduler_log)}"
        time.sleep(0.3)

    client = Client(address, timeout="20s")
    request.addfinalizer(client.close)
    try:
        client.wait_for_workers(2, timeout=40)
    except TimeoutError:
        logs = "\n".join(f"--- {log.name}\n{log_tail(log)}" for _, log in procs)
        pytest.fail(f"the compose workers did not connect:\n{logs}")
    return {"address": address, "client": client, "tmp": tmp, "env": env, "procs": procs}


@pytest.mark.cluster
def test_compose_commands_start_a_healthy_cluster(cluster):
    info = cluster["client"].scheduler_info()
    workers = info["workers"]
    assert len(workers) == 2
    assert all(w["nthreads"] == 1 for w in workers.values())
    assert all(w["host"] == LOOPBACK for w in workers.values())


@pytest.mark.cluster
def test_sweep_runs_on_the_compose_cluster(cluster):
    out = cluster["tmp"] / "sweeps"
    argv = [sys.executable, "cli.py", "sweep", "--scheduler", cluster["address"], "--size", "3",
            "--count", "20", "--seed", "11", "--algorithm", "idastar", "--algorithm", "astar",
            "--heuristic", "manhattan", "--chunk-size", "5", "--out", str(out), "--name", "compose"]
    done = subprocess.run(argv, cwd=ROOT, env=cluster["env"], capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, f"sweep failed ({done.returncode}):\n{done.stdout}\n{done.stderr}"

    import pyarrow.parquet as pq

    rows = pq.read_table(out / "compose" / "results").to_pylist()
    assert len(rows) == 40
    assert sorted({r["instance"] for r in rows}) == list(range(20))
    assert all(r["status"] == "solved" for r in rows), [r for r in rows if r["status"] != "solved"][:3]
    assert all(r["size"] == 3 and len(r["moves"]) == r["cost"] for r in rows)
    costs: dict[int, dict[str, int]] = {}
    for r in rows:
        costs.setdefault(r["instance"], {})[r["algorithm"]] = r["cost"]
    assert all(set(c) == {"idastar", "astar"} and c["idastar"] == c["astar"] for c in costs.values()), costs
    # Solved by the compose workers (the worker column is host:pid), not by a local cluster of the CLI.
    from tilesweep.jobs.work import worker_label
    workers = set(cluster["client"].run(worker_label).values())
    assert {r["worker"] for r in rows} <= workers, ({r["worker"] for r in rows}, workers)
