"""``FOLDER/checkpoints/``: the recorded progress of long single solves, one file a solve.

A split search (:mod:`solver.splitsearch`) records its state (:mod:`solver.checkpoint`)
at each iteration's start and after each chunk of subtrees; a solve started again with
the same folder (a sweep's hard row after its client or job ended, or ``tilesweep solve
--checkpoint FOLDER`` run again) goes on from there. The file of a solve is named by the
sha256 of what identifies it (board, goal, heuristic, pruning, conventions, split depth):

``{"checkpoint": 1, "identity": {...}, "label": {...}, "state": {...}, "sha256": H}``

``label`` says what the solve is for the reader (the sweep and instance); ``sha256`` is
over the other three, in canonical JSON. Each write is atomic (temporary file, fsync,
rename: :func:`~tilesweep.pdb_store.files.atomic_write`), so a solve killed at any moment
leaves its previous record whole. A file is read as JSON and every field checked
(:func:`solver.checkpoint.state_from_dict`): one that fails (unreadable, not JSON, a
checksum that does not match, another solve's identity, a field out of range) is refused
with one line naming it, never resumed from nor silently replaced.
"""

from __future__ import annotations

import hashlib
import json
from dataclasses import dataclass
from pathlib import Path

from tilesweep.pdb_store.files import atomic_write
from tilesweep.solver.checkpoint import CheckpointError, SplitState, state_from_dict

FOLDER = "checkpoints"
FORMAT = 1


@dataclass(frozen=True)
class Checkpoint:
    """One recorded solve: what it is, for whom, and where it stands."""

    path: Path
    identity: dict
    label: dict
    state: SplitState


def checkpoint_dir(folder: Path) -> Path:
    return Path(folder) / FOLDER


def _canonical(data) -> bytes:
    return json.dumps(data, sort_keys=True, separators=(",", ":")).encode()


def checkpoint_path(folder: Path, identity: dict) -> Path:
    return checkpoint_dir(folder) / f"{hashlib.sha256(_canonical(identity)).hexdigest()[:32]}.json"


def write_checkpoint(path: Path, identity: dict, label: dict, state: SplitState) -> None:
    body = {"identity": identity, "label": label, "state": state.to_dict()}
    data = {"checkpoint": FORMAT, **body, "sha256": hashlib.sha256(_canonical(body)).hexdigest()}
    atomic_write(path, lambda handle: handle.write(_canonical(data)))


def damaged(path: Path, reason: str) -> CheckpointError:
    return CheckpointError(f"checkpoint {str(path)!r} is damaged ({reason}); move it aside to solve that board "
                           "from its first iteration")


def read_checkpoint(path: Path, n_nodes: int | None = None) -> Checkpoint:
    """The checkpoint at ``path``, checked in full (``n_nodes``: the frontier it must be
    for; None, as recorded); :class:`CheckpointError` (:func:`damaged`) when it is not whole."""
    try:
        data = json.loads(Path(path).read_bytes())
    except OSError as err:
        raise damaged(path, f"cannot be read: {err.strerror or err}") from None
    except ValueError:
        raise damaged(path, "not JSON") from None
    if not isinstance(data, dict) or data.get("checkpoint") != FORMAT or set(data) != {
            "checkpoint", "identity", "label", "state", "sha256"}:
        raise damaged(path, f"not a tilesweep checkpoint of format {FORMAT}")
    body = {k: data[k] for k in ("identity", "label", "state")}
    if hashlib.sha256(_canonical(body)).hexdigest() != data["sha256"]:
        raise damaged(path, "its sha256 does not match its content")
    if not isinstance(data["identity"], dict) or not isinstance(data["label"], dict):
        raise damaged(path, "its identity or label is not an object")
    state = data["state"]
    if n_nodes is None:
        n_nodes = len(state.get("sizes", [])) if isinstance(state, dict) else 0
    try:
        return Checkpoint(Path(path), data["identity"], data["label"], state_from_dict(state, n_nodes))
    except CheckpointError as err:
        raise damaged(path, f"its state: {err}") from None


def folder_checkpoints(folder: Path, label: dict | None = None):
    """The ``checkpoints`` of :func:`solver.splitsearch.split_runner` kept in ``folder``:
    a search resumes from its file there, if any, and records its state to it."""
    def checkpoints(identity: dict, n_nodes: int):
        path = checkpoint_path(folder, identity)
        state = None
        if path.exists():
            found = read_checkpoint(path, n_nodes)
            if found.identity != identity:
                raise damaged(path, "it records another solve")
            state = found.state
        checkpoint_dir(folder).mkdir(exist_ok=True)
        return state, lambda s: write_checkpoint(path, identity, label or {}, s)
    return checkpoints


def remove_checkpoint(folder: Path, identity: dict) -> None:
    """Forget a solve's record (its row is written)."""
    checkpoint_path(folder, identity).unlink(missing_ok=True)


def list_checkpoints(folder: Path) -> list[Checkpoint | CheckpointError]:
    """Every checkpoint of ``folder``, or the reason one cannot be read, by file name."""
    out = []
    for path in sorted(checkpoint_dir(folder).glob("*.json")):
        try:
            out.append(read_checkpoint(path))
        except CheckpointError as err:
            out.append(err)
    return out
