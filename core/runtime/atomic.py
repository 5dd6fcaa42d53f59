"""Whole files or none: write beside the target, then rename.

:func:`atomic_write` writes the bytes to a temporary file in the target's folder (so the
rename stays on one file system), flushes them to disk and renames the file over the target
(:func:`os.replace`, atomic on POSIX and Windows). On any failure (a full disk, a quota, a
Ctrl-C) the temporary file is removed and the target is left as it was: never a 0-byte or a
half-written file. The error is an :class:`AtomicWriteError` whose text is one sentence.
"""
from __future__ import annotations

import errno
import os
import tempfile
from pathlib import Path

__all__ = ["AtomicWriteError", "atomic_write"]

_CHUNK = 1 << 20


class AtomicWriteError(OSError):
    """A file that could not be written; its text is one sentence saying what happened."""

    def __str__(self) -> str:
        return str(self.args[0]) if self.args else "the file could not be written."


def _error(exc: OSError, path: Path) -> AtomicWriteError:
    """The one-sentence error, keeping the cause's errno."""
    error = AtomicWriteError(_sentence(exc, path))
    error.errno = exc.errno
    return error


def _sentence(exc: OSError, path: Path) -> str:
    if exc.errno == errno.ENOSPC:
        reason = "the disk is full"
    elif exc.errno:
        reason = exc.strerror or os.strerror(exc.errno)
    else:
        reason = str(exc) or type(exc).__name__
    return f"cannot write {path} ({reason}); nothing was written there."


def _write_all(fd: int, data: bytes) -> None:
    view = memoryview(data)
    while view:
        written = os.write(fd, view[:_CHUNK])
        view = view[written:]


def _mode(path: Path) -> int:
    """The mode the file gets: the target's own when it exists, else read-write for its owner
    and readable by others (what a plain ``open`` gives under the usual umask)."""
    try:
        return path.stat().st_mode & 0o777
    except OSError:
        return 0o644


def atomic_write(path: str | os.PathLike, data: bytes | str, *, encoding: str = "utf-8") -> Path:
    """Write ``data`` to ``path`` whole, or leave ``path`` as it was.

    Parameters
    ----------
    path : path
        The target; missing parent folders are made.
    data : bytes or str
        The content (a string is encoded with ``encoding``).
    encoding : str
        The text's encoding.

    Returns
    -------
    Path
        The target.

    Raises
    ------
    TypeError
        ``data`` is neither bytes nor a string.
    AtomicWriteError
        The file could not be written (its folder, the disk, a permission), in one sentence;
        no temporary file is left behind.
    """
    if isinstance(data, str):
        data = data.encode(encoding)
    if not isinstance(data, (bytes, bytearray, memoryview)):
        raise TypeError(f"data must be bytes or a string, got {type(data).__name__}.")
    target = Path(path)
    try:
        target.parent.mkdir(parents=True, exist_ok=True)
        fd, tmp = tempfile.mkstemp(dir=target.parent, prefix=f".{target.name}.", suffix=".tmp")
    except OSError as exc:
        raise _error(exc, target) from None
    try:
        try:
            os.fchmod(fd, _mode(target))
            _write_all(fd, bytes(data))
            os.fsync(fd)
        finally:
            os.close(fd)
        os.replace(tmp, target)
    except BaseException as exc:
        Path(tmp).unlink(missing_ok=True)
        if isinstance(exc, OSError):
            raise _error(exc, target) from None
        raise
    return target
