"""A sweep's tables on every worker, built once, when workers do not share one store.

On one host (or with a shared volume) every worker finds the tables that the build task
wrote. Workers with stores of their own (``docker-compose.per-host.yml``, separate
machines) would each lack them, and building the same table on every host costs a core
for minutes (``pdb:7-8``). So the table is built once, on the worker that already holds
the most of the sweep's tables, and streamed from a worker holding a verified copy to
each worker that lacks one, in chunks that travel worker to worker through Dask. The
receiver checks the whole file's sha256 against the sender's manifest entry before it
renames the file into place and records that same entry: a copy is used only when it is
bit for bit the table that was built.

A worker that joins after the tables were shared (a container added mid-sweep, with an
empty store of its own) copies what it lacks in its first task (:func:`pull_missing`), from
a worker that held a verified copy, checked the same way.
"""

from __future__ import annotations

import os
import secrets
from collections import deque
from dataclasses import dataclass, field
from pathlib import Path

from distributed import Client, get_client, get_worker, wait

from tilesweep.pdb_store import CorruptTableError, MissingTableError, TableEntry, open_store
from tilesweep.pdb_store.files import file_lock, fsync_dir, sha256_file
from tilesweep.pdb_store.manifest import read_manifest, record_entry
from tilesweep.pdb_store.paths import lock_path, temp_prefix
from tilesweep.solver.heuristics import parse_heuristic

from .tables import build_missing

CHUNK_BYTES = 16 << 20     # one message between two workers
IN_FLIGHT = 4              # chunks read ahead by a sender (its extra memory)
# A task pinned to a worker that has gone (killed, cut off) waits for it for ever; past this
# the worker is left out (a survey) or the copy to it given up. Its sweep tasks then fail
# there and are retried on other workers.
PINNED_SECONDS = 600


@dataclass
class Shared:
    """What :func:`ensure_tables` did: the builder (if any) and the copies it streamed."""

    built_on: str | None = None
    copies: dict[str, list[str]] = field(default_factory=dict)   # file -> receiving workers
    bytes: int = 0
    # file -> (its manifest entry, the workers that hold it): where a late joiner copies from
    sources: dict[str, tuple[dict, list[str]]] = field(default_factory=dict)


def groups_of(heuristics, size: int, goal: tuple[int, ...]) -> list[tuple[tuple[int, ...], str]]:
    """(group, table kind) of every table the ``heuristics`` read."""
    return [(tuple(g), kind) for h in heuristics for g, kind in parse_heuristic(h, size, goal).tables]


def inventory(root: str, size: int, goal: tuple[int, ...], groups) -> dict:
    """On one worker: {file: manifest entry} of the tables its store holds, verified.

    Verifying maps each table in this worker process (sha256 checked once per process),
    so the sweep's plugin later finds it checked.
    """
    held = {}
    with open_store(root) as store:
        for group, kind in groups:
            try:
                store.table(size, goal, group, kind)
            except (MissingTableError, CorruptTableError):
                continue
            name = store.path_of(size, goal, group, kind).name
            held[name] = read_manifest(Path(root))[name].as_dict()
    return {"worker": get_worker().address, "held": held}


def pinned(worker: str) -> dict:
    return {"workers": [worker], "allow_other_workers": False, "pure": False}


def finished(client: Client, futures: list) -> list:
    """Results of the pinned ``futures`` that finish within PINNED_SECONDS; the rest cancelled."""
    settle(futures)
    client.cancel([future for future in futures if not future.done()])
    return [future.result() for future in futures if future.done()]


def settle(futures) -> None:
    """Wait for ``futures``, at most PINNED_SECONDS."""
    try:
        wait(futures, timeout=PINNED_SECONDS)
    except TimeoutError:
        pass


def survey(client: Client, root, size, goal, groups, key: str) -> list[dict]:
    workers = sorted(client.scheduler_info(n_workers=-1)["workers"])
    return finished(client, [client.submit(inventory, root, size, goal, groups, key=f"{key}-{i}",
                                           **pinned(w)) for i, w in enumerate(workers)])


def worker_address() -> str:
    return get_worker().address


def wait_for_worker(client: Client, key: str) -> None:
    """Return once a worker joined (Slurm jobs still queued, an adaptive cluster at zero).

    It waits on a task, not on the worker count: an adaptive cluster asks for workers only
    when the scheduler holds tasks. The sweep's worker watch ends a wait past
    ``--worker-wait`` by closing the client.
    """
    if client.scheduler_info(n_workers=0)["n_workers"]:
        return
    client.submit(worker_address, key=key, pure=False).result()


def ensure_tables(client: Client, root: str, heuristics, size: int, goal: tuple[int, ...],
                  prefix: str) -> Shared:
    """Build the tables no worker holds (once), then stream them to workers that lack them.

    Waits for a first worker: workers that join later copy the tables (:func:`pull_missing`).
    """
    groups = groups_of(heuristics, size, goal)
    with open_store(root) as store:  # only names files; the client needs no such folder
        files = [store.path_of(size, goal, group, kind).name for group, kind in groups]
    wait_for_worker(client, f"{prefix}-first-worker")
    checks = survey(client, root, size, goal, groups, f"{prefix}-survey")
    if not checks:
        return Shared()
    shared = Shared()
    if any(all(name not in c["held"] for c in checks) for name in files):
        builder = max(checks, key=lambda c: len(c["held"]))["worker"]
        client.submit(build_missing, root, heuristics, size, goal, key=f"{prefix}-build",
                      **pinned(builder)).result()
        shared.built_on = builder
        checks = survey(client, root, size, goal, groups, f"{prefix}-resurvey")
    for name in files:
        holders = [c for c in checks if name in c["held"]]
        if not holders:
            raise MissingTableError(f"pattern database {name} was built, yet no worker holds a "
                                    "verified copy of it")
        lacking = [c["worker"] for c in checks if name not in c["held"]]
        entry = holders[0]["held"][name]
        shared.sources[name] = (entry, [c["worker"] for c in holders] + lacking)
        if lacking:
            shared.bytes += stream(client, root, entry, holders[0]["worker"], lacking,
                                   f"{prefix}-{name}") * len(lacking)
            shared.copies[name] = lacking
    return shared


def file_size(root: str, name: str) -> int:
    return (Path(root) / name).stat().st_size


def read_chunk(root: str, name: str, offset: int, length: int) -> bytes:
    with open(Path(root) / name, "rb") as handle:
        handle.seek(offset)
        return handle.read(length)


def write_chunk(root: str, temp: str, offset: int, data: bytes) -> int:
    """Write ``data`` at ``offset`` of the receiver's temporary file (chunks in any order)."""
    Path(root).mkdir(parents=True, exist_ok=True)
    fd = os.open(Path(root) / temp, os.O_WRONLY | os.O_CREAT, 0o644)
    try:
        os.pwrite(fd, data, offset)
    finally:
        os.close(fd)
    return len(data)


def commit(root: str, temp: str, data: dict, *written: int) -> int:
    """Check the received file's sha256, rename it into place, record the sender's entry.

    ``written`` (the chunks' results) makes Dask run this after every chunk has landed.
    """
    entry = TableEntry.from_dict(data)
    folder, received = Path(root), Path(root) / temp
    try:
        digest = sha256_file(received)
        if digest != entry.sha256:
            raise CorruptTableError(f"pattern database {folder / entry.file} arrived with sha256 "
                                    f"{digest}, not the sender's {entry.sha256}; the copy was discarded")
        with file_lock(lock_path(folder, entry.file)):
            os.chmod(received, 0o444)
            with open(received, "rb") as handle:
                os.fsync(handle.fileno())
            os.replace(received, folder / entry.file)
            fsync_dir(folder)
            record_entry(folder, entry)
    finally:
        received.unlink(missing_ok=True)
    return sum(written)


def stream(client: Client, root: str, entry: dict, sender: str, receivers: list[str], key: str) -> int:
    """Copy one table from ``sender`` to each of ``receivers``; return its size in bytes."""
    name = entry["file"]
    length = client.submit(file_size, root, name, key=f"{key}-size", **pinned(sender)).result()
    temps = {w: temp_prefix(name) + "recv-" + secrets.token_hex(4) for w in receivers}
    written: dict[str, list] = {w: [] for w in receivers}
    window: deque = deque()
    for offset in range(0, length, CHUNK_BYTES):
        chunk = client.submit(read_chunk, root, name, offset, CHUNK_BYTES,
                              key=f"{key}-read-{offset}", **pinned(sender))
        for i, w in enumerate(receivers):
            written[w].append(client.submit(write_chunk, root, temps[w], offset, chunk,
                                            key=f"{key}-write-{offset}-{i}", **pinned(w)))
        window.append((chunk, [written[w][-1] for w in receivers]))
        if len(window) >= IN_FLIGHT:
            oldest, writes = window.popleft()
            settle(writes)
            oldest.release()
    commits = [client.submit(commit, root, temps[w], entry, *written[w], key=f"{key}-commit-{i}",
                             **pinned(w)) for i, w in enumerate(receivers)]
    finished(client, commits)
    return length


def pull_missing(root: str, sources: dict[str, tuple[dict, list[str]]]) -> list[str]:
    """In a task: copy into this worker's store each table of ``sources`` it lacks; their names.

    For a worker that joined after :func:`ensure_tables` shared the tables. Each file comes
    from the first worker of its holders that is still connected, is checked against its
    manifest entry's sha256 and recorded with that entry, as a streamed copy is.
    """
    held = read_manifest(Path(root))
    missing = {name: source for name, source in sources.items()
               if name not in held or held[name].sha256 != source[0]["sha256"] or not (Path(root) / name).exists()}
    if not missing:
        return []
    client, me = get_client(), get_worker().address
    connected = set(client.scheduler_info(n_workers=-1)["workers"])
    for name, (entry, holders) in missing.items():
        failures = []
        for sender in [w for w in holders if w in connected and w != me]:
            try:
                pull(client, root, entry, sender)
                break
            except Exception as err:  # noqa: BLE001 - the next holder may still send it
                failures.append(f"{sender}: {type(err).__name__}: {err}")
        else:
            raise MissingTableError(f"pattern database {Path(root) / name} is missing on worker {me}, which "
                                    "joined after the sweep shared its tables, and no worker could send it ("
                                    + ("; ".join(failures) or "none of " + ", ".join(holders) + " is connected")
                                    + ")")
    return sorted(missing)


def pull(client: Client, root: str, entry: dict, sender: str) -> int:
    """Copy one table from ``sender`` into this worker's store, chunk by chunk; its size."""
    name, temp = entry["file"], temp_prefix(entry["file"]) + "recv-" + secrets.token_hex(4)
    try:
        length = fetch(client, sender, file_size, root, name)
        for offset in range(0, length, CHUNK_BYTES):
            write_chunk(root, temp, offset, fetch(client, sender, read_chunk, root, name, offset, CHUNK_BYTES))
    except BaseException:
        (Path(root) / temp).unlink(missing_ok=True)
        raise
    return commit(root, temp, entry)


def fetch(client: Client, sender: str, fn, *args):
    """``fn(*args)`` run by ``sender``'s event loop (``client.run``): at once, even while its
    threads solve (a task would wait for a free thread, behind the sweep's queued tasks)."""
    return client.run(fn, *args, workers=[sender])[sender]
