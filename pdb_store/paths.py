"""Where the store lives and what its files are called."""

from __future__ import annotations

import os
from pathlib import Path

from tilesweep.solver.board import goal_label
from tilesweep.solver.heuristics import BLANK_AWARE

MANIFEST_NAME = "manifest.json"
MANIFEST_LOCK = "manifest.lock"
LOCK_SUFFIX = ".lock"
TEMP_INFIX = ".tmp-"


def resolve_store(path: str | os.PathLike | None = None) -> Path:
    """Return the store directory: ``path``, else ``$TILESWEEP_STORE``, else the user cache.

    The per-user cache is ``$XDG_CACHE_HOME/tilesweep/pdb`` when ``XDG_CACHE_HOME`` is an
    absolute path, else ``~/.cache/tilesweep/pdb``. The directory need not exist yet.

    Parameters
    ----------
    path : str or path-like, optional
        The ``--store DIR`` option; ``None`` or ``""`` when not given.

    Returns
    -------
    pathlib.Path
        An absolute path, ``~`` expanded.
    """
    if path is not None and str(path) != "":
        chosen = Path(path)
    elif os.environ.get("TILESWEEP_STORE"):
        chosen = Path(os.environ["TILESWEEP_STORE"])
    else:
        xdg = os.environ.get("XDG_CACHE_HOME", "")
        cache = Path(xdg) if xdg and Path(xdg).is_absolute() else Path.home() / ".cache"
        chosen = cache / "tilesweep" / "pdb"
    return chosen.expanduser().absolute()


def goal_part(goal: tuple[int, ...]) -> str:
    """The goal's part of a file name: ``blank-last``, ``blank-first`` or ``goal-1-2-...``."""
    label = goal_label(tuple(goal))
    return label if " " not in label else "goal-" + "-".join(map(str, goal))


def table_filename(size: int, goal: tuple[int, ...], group: tuple[int, ...], kind: str = BLANK_AWARE) -> str:
    """Deterministic file name of a table, e.g. ``pdb_4x4_blank-first_1-2-3-6-7.npy``; a
    table of another kind than tilesweep's own says it: ``..._1-2-3-4_blank-ignoring.npy``."""
    suffix = "" if kind == BLANK_AWARE else f"_{kind}"
    return f"pdb_{size}x{size}_{goal_part(goal)}_{'-'.join(map(str, group))}{suffix}.npy"


def lock_path(root: Path, name: str) -> Path:
    """The lock file that serialises builders of table ``name``."""
    return root / (name + LOCK_SUFFIX)


def temp_prefix(name: str) -> str:
    """Prefix of the temporary files a build of ``name`` writes before renaming."""
    return "." + name + TEMP_INFIX


def build_hint(root: Path, size: int, goal: tuple[int, ...], group: tuple[int, ...],
               kind: str = BLANK_AWARE) -> str:
    """The command that (re)builds one table, for error messages."""
    label = goal_label(tuple(goal))
    goal_arg = label if " " not in label else repr(label)
    flag = "" if kind == BLANK_AWARE else f" --{kind}"
    return (f"tilesweep pdb build --size {size} --goal {goal_arg} "
            f"--partition {','.join(map(str, group))}{flag} --store {root}")
