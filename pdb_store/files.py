"""File primitives of the store: advisory locks, atomic writes, hashing, ``.npy`` headers."""

from __future__ import annotations

import contextlib
import fcntl
import hashlib
import os
import secrets
import stat
import time
from pathlib import Path

import numpy as np

from tilesweep.solver.errors import InvalidOptionError, TilesweepError

_HASH_CHUNK = 1 << 24


@contextlib.contextmanager
def file_lock(path: Path, on_wait=None, patience: float = 0.0):
    """Hold an exclusive ``fcntl.flock`` on ``path`` (created if absent) for the block;
    ``on_wait()`` runs if another process still holds it after ``patience`` seconds.

    The lock is released when the block ends or the process dies, so a killed builder
    never leaves a stale lock.
    """
    fd = os.open(path, os.O_RDWR | os.O_CREAT, 0o666)
    try:
        if on_wait is not None and not _took(fd, patience):
            on_wait()
        fcntl.flock(fd, fcntl.LOCK_EX)
        yield
    finally:
        os.close(fd)  # closing the last descriptor releases the lock


def _took(fd: int, seconds: float) -> bool:
    """Whether the lock on ``fd`` was taken within ``seconds`` (tried ten times a second)."""
    deadline = time.monotonic() + seconds
    while True:
        try:
            fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
            return True
        except BlockingIOError:
            if time.monotonic() >= deadline:
                return False
            time.sleep(0.1)


def fsync_dir(path: Path) -> None:
    """Flush the directory entry changes of ``path`` to disk."""
    fd = os.open(path, os.O_RDONLY | os.O_DIRECTORY)
    try:
        os.fsync(fd)
    finally:
        os.close(fd)


class OutputTargetError(InvalidOptionError):
    """A file to write whose place can never hold it: a missing folder, or a name taken by
    something other than a regular file (a folder, FIFO, device or symbolic link)."""


class OutputWriteError(TilesweepError, OSError):
    """Writing a file failed on this machine (a full disk, no permission, a lost mount)."""

    def __str__(self) -> str:
        return f"writing {self.filename!r} failed: {self.strerror}"


def check_target(path: Path) -> None:
    """Refuse (:class:`OutputTargetError`) a ``path`` that is not a regular file or free
    name in an existing folder: renaming over a FIFO, device or symbolic link would replace
    it (a link is not written through either: the file it names may be anywhere)."""
    if not path.parent.is_dir():
        raise OutputTargetError(f"{str(path)!r}: the folder {str(path.parent)!r} does not exist; "
                                "expected a file in an existing folder")
    try:
        mode = path.lstat().st_mode
    except FileNotFoundError:
        return
    if not stat.S_ISREG(mode):
        raise OutputTargetError(f"{str(path)!r} is {_kind(mode)}; expected a regular file to write (or a new name)")


def _kind(mode: int) -> str:
    kinds = [(stat.S_ISLNK, "a symbolic link"), (stat.S_ISDIR, "a folder"), (stat.S_ISFIFO, "a FIFO"),
             (stat.S_ISCHR, "a character device"), (stat.S_ISBLK, "a block device"), (stat.S_ISSOCK, "a socket")]
    return next((name for test, name in kinds if test(mode)), "not a regular file")


def atomic_write(path: Path, write, prefix: str | None = None, mode: int = 0o644, guard=None) -> None:
    """Write ``path`` atomically: ``write(file)`` into a temporary sibling, fsync, rename.

    The one atomic writer of the package (tables, the manifest, a sweep's parts, spec and
    summary). The temporary file sits in the same folder (a rename never crosses file
    systems) under a hidden name, ``prefix`` + random (default ``.NAME.tmp-``), so readers
    such as pyarrow skip it. After the rename the folder is fsynced too, so a crash at any
    point leaves either the old ``path`` or the new one, never a part. On failure the
    temporary file is removed; only a killed process leaves one.

    Output files are regular files only: a ``path`` in a missing folder, or naming a folder,
    FIFO, device or symbolic link, is refused before anything is written
    (:class:`OutputTargetError`, bad input); a failed write (a full disk) raises
    :class:`OutputWriteError` naming the file and the system's reason.

    Parameters
    ----------
    path : pathlib.Path
        The file to (re)place.
    write : callable
        ``write(handle)`` writes the content to an open binary file.
    prefix : str, optional
        Start of the temporary file's name (a builder cleans up its own leftovers by it).
    mode : int
        Permissions of the new file (the store's tables are read-only, ``0o444``).
    guard : callable, optional
        ``guard()`` gives a context manager held around the rename (a sweep's parts record
        their checksum in its manifest and rename under its lock).
    """
    path = Path(path)
    check_target(path)
    if prefix is None:
        prefix = f".{path.name}.tmp-"
    temp = path.with_name(prefix + f"{os.getpid()}-{secrets.token_hex(4)}")
    try:
        with open(temp, "xb") as handle:
            write(handle)
            handle.flush()
            os.fsync(handle.fileno())
        os.chmod(temp, mode)
        with guard() if guard is not None else contextlib.nullcontext():
            os.replace(temp, path)
        fsync_dir(path.parent)
    except OSError as err:
        if isinstance(err, TilesweepError):
            raise
        raise OutputWriteError(err.errno, err.strerror or str(err), str(path)) from None
    finally:
        temp.unlink(missing_ok=True)


def remove_stale(root: Path, prefix: str) -> None:
    """Delete leftovers of killed writers: files in ``root`` whose names start with ``prefix``."""
    for leftover in root.glob(prefix + "*"):
        leftover.unlink(missing_ok=True)


def save_npy(handle, array: np.ndarray) -> None:
    """Write ``array`` to an open binary file in ``.npy`` format, without pickle."""
    np.lib.format.write_array(handle, array, allow_pickle=False)


def sha256_file(path: Path) -> str:
    """Hex sha256 of the whole file at ``path`` (``sha256sum`` gives the same)."""
    digest = hashlib.sha256()
    with open(path, "rb") as handle:
        while chunk := handle.read(_HASH_CHUNK):
            digest.update(chunk)
    return digest.hexdigest()


def read_npy_header(path: Path) -> tuple[tuple[int, ...], np.dtype, bool, int]:
    """Shape, dtype, Fortran order and data offset of the ``.npy`` file at ``path``.

    Raises
    ------
    ValueError
        When the file does not start with a valid ``.npy`` header.
    """
    with open(path, "rb") as handle:
        major, _minor = np.lib.format.read_magic(handle)
        if major == 1:
            shape, fortran, dtype = np.lib.format.read_array_header_1_0(handle)
        else:
            shape, fortran, dtype = np.lib.format.read_array_header_2_0(handle)
        return shape, dtype, fortran, handle.tell()
