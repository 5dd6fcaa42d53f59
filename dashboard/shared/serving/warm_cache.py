"""The warm start's on-disk cache: results of the pages' defaults on the built-in samples.

Written only by the warm-up process (:mod:`dashboard.shared.serving.warmup`), which loads
nothing but the samples of ``sample_data/``; the server only reads it, and only for a
session whose table was loaded as a built-in sample (never an upload's results).

- **Where**: ``$PUX_WARM_DIR``, else ``$XDG_CACHE_HOME/pux/warm``, else ``~/.cache/pux/warm``;
  made with mode 0700. A folder that exists but that others may write (group or other
  write bit) or that another user owns is refused: the cache is then unused (one sentence
  in the log), never trusted.
- **Key**: the folder ``f"{version}-{core_hash[:16]}-seed{seed}"`` under the root: the
  package's version, a SHA-256 of ``core``'s sources (:func:`core_hash`) and the seed, so
  a new release, a changed algorithm or another seed never reads an old result.
- **Format**: data only, never pickle. One ``.npz`` per entry (written whole with
  :func:`core.runtime.atomic.atomic_write`) holding a JSON description of the value and
  its arrays, read back with ``allow_pickle=False``. The codec knows dict, list, tuple,
  (frozen)set, str, int, float, bool, None, numpy arrays and scalars (not of object dtype),
  pandas DataFrame, Series and Index (numeric, bool, datetime, categorical, string and
  object columns of plain values), and the project's result dataclasses named in
  :data:`ALLOWED` (rebuilt from that list by name; nothing a file names is imported).
- **Bounds**: at most :data:`MAX_ENTRIES` (256) entries and :data:`MAX_BYTES` (256 MB) per
  key folder, the oldest written going first; an entry above :data:`MAX_ENTRY_BYTES` (64 MB)
  is not written; a warm-up keeps its own and the two latest other key folders of its root
  (:meth:`WarmCache.prune`), so a root holds at most 768 MB.

A corrupt, unreadable or foreign entry is a miss, never an error.
"""
from __future__ import annotations

import functools
import hashlib
import io
import json
import logging
import os
import threading
from pathlib import Path
from typing import Any, Hashable

from dashboard.shared.serving.warm_codec import decode, encode

__all__ = ["WarmCache", "MAX_ENTRIES", "MAX_BYTES", "MAX_ENTRY_BYTES", "core_hash", "package_version",
           "default_root", "key_folder", "plain_key", "enabled", "server_cache"]

ROOT = Path(__file__).resolve().parents[3]
#: entries and bytes one key folder keeps at most (the oldest written go first)
MAX_ENTRIES, MAX_BYTES = 256, 256 * 2**20
#: the largest entry written (a bigger result is left to the page)
MAX_ENTRY_BYTES = 64 * 2**20
_META = "__meta__"
_log = logging.getLogger(__name__)


def package_version() -> str:
    """The installed version of ``privacy-utility-explorer``, else the one pyproject.toml names."""
    from importlib import metadata

    try:
        return metadata.version("privacy-utility-explorer")
    except metadata.PackageNotFoundError:
        import tomllib

        try:
            return str(tomllib.loads((ROOT / "pyproject.toml").read_text())["project"]["version"])
        except (OSError, KeyError, ValueError):
            return "0"


@functools.lru_cache(maxsize=4)
def core_hash(core_dir: Path = ROOT / "core") -> str:
    """SHA-256 (hex) over the sorted relative paths and bytes of ``core/**/*.py``."""
    digest = hashlib.sha256()
    for path in sorted(Path(core_dir).rglob("*.py"), key=lambda p: p.relative_to(core_dir).as_posix()):
        digest.update(path.relative_to(core_dir).as_posix().encode() + b"\0")
        digest.update(path.read_bytes() + b"\0")
    return digest.hexdigest()


def key_folder(*, seed: int, version: str | None = None, core: str | None = None) -> str:
    """The key folder's name: ``f"{version}-{core_hash[:16]}-seed{seed}"``."""
    version = package_version() if version is None else version
    core = core_hash() if core is None else core
    return f"{version}-{core[:16]}-seed{int(seed)}"


def default_root() -> Path:
    """``$PUX_WARM_DIR``, else ``$XDG_CACHE_HOME/pux/warm``, else ``~/.cache/pux/warm``."""
    if os.environ.get("PUX_WARM_DIR"):
        return Path(os.environ["PUX_WARM_DIR"])
    base = os.environ.get("XDG_CACHE_HOME") or str(Path.home() / ".cache")
    return Path(base) / "pux" / "warm"


def enabled() -> bool:
    """False when ``PUX_WARMUP=0``: no warm-up, and the pages read no warm cache."""
    return os.environ.get("PUX_WARMUP", "1").strip() != "0"


#: the server's warm caches by (root, seed), made once per process
_SERVER: dict[tuple[str, int], "WarmCache"] = {}
_SERVER_LOCK = threading.Lock()


def server_cache(*, seed: int | None = None) -> "WarmCache | None":
    """The server's warm cache (:func:`default_root`, the pages' default seed), or None when
    warm start is off (:func:`enabled`) or its folder was refused."""
    if not enabled():
        return None
    from dashboard.shared.serving.state import DEFAULT_SEED

    where = (str(default_root()), DEFAULT_SEED if seed is None else int(seed))
    with _SERVER_LOCK:
        cache = _SERVER.get(where)
        if cache is None:
            cache = _SERVER[where] = WarmCache(Path(where[0]), seed=where[1])
    return cache if cache.usable else None


def plain_key(key: Any, depth: int = 0) -> bool:
    """Whether ``key`` is made of str, int, float, bool, None and tuples of them (what a
    sweep's key is): only such keys have a stable text to name a file by."""
    if key is None or isinstance(key, (str, int, float, bool)):
        return True
    return isinstance(key, tuple) and depth < 8 and all(plain_key(k, depth + 1) for k in key)


def _private_dir(path: Path) -> str | None:
    """Make ``path`` (mode 0700) when missing; the reason it is refused, else None."""
    try:
        path.mkdir(mode=0o700, parents=True, exist_ok=True)
        info = path.stat()
    except OSError as exc:
        return f"it cannot be made or read ({exc.strerror or exc})"
    if info.st_uid != os.getuid():
        return "another user owns it"
    if info.st_mode & 0o022:
        return "others may write to it (group or other write permission)"
    return None


class WarmCache:
    """The warm start's results on disk, under ``root / key_folder(seed=seed)``.

    Parameters
    ----------
    root : Path
        The cache's root (:func:`default_root` for the server's).
    seed : int
        The seed the results were computed with (part of the key folder).
    version, core : str, optional
        The package version and core hash (default: this installation's).

    Attributes
    ----------
    folder : Path
        The key folder; ``usable`` is False when it was refused (then every get misses and
        every put does nothing).
    """

    def __init__(self, root: Path, *, seed: int = 0, version: str | None = None, core: str | None = None) -> None:
        self.root = Path(root)
        self.folder = self.root / key_folder(seed=seed, version=version, core=core)
        self.usable = True
        for path in (self.root, self.folder):
            reason = _private_dir(path)
            if reason is not None:
                _log.warning("The warm-start cache %s is not used: %s.", path, reason)
                self.usable = False
                break

    def path(self, name: str, key: Hashable) -> Path | None:
        """The file of entry ``key`` of ``name`` (None for a key that is not plain data)."""
        if not plain_key(key) or not name.isidentifier():
            return None
        return self.folder / name / (hashlib.sha256(repr(key).encode()).hexdigest() + ".npz")

    def get(self, name: str, key: Hashable) -> Any | None:
        """The value kept under (``name``, ``key``), or None (a miss: absent, refused,
        corrupt, written for another key, or holding anything but data)."""
        path = self.path(name, key) if self.usable else None
        if path is None:
            return None
        try:
            if path.stat().st_size > MAX_ENTRY_BYTES:
                return None
            import numpy as np

            with np.load(io.BytesIO(path.read_bytes()), allow_pickle=False) as npz:
                arrays = {k: npz[k] for k in npz.files}
            meta = json.loads(arrays.pop(_META).tobytes().decode())
            if meta.get("key") != repr(key):
                return None
            return decode(meta["value"], arrays)
        except FileNotFoundError:
            return None
        except Exception as exc:  # a corrupt or foreign file is a miss, never a crash
            _log.info("warm cache entry %s skipped: %s", path.name, type(exc).__name__)
            return None

    def put(self, name: str, key: Hashable, value: Any) -> bool:
        """Keep ``value`` under (``name``, ``key``), written whole; False when it was not
        written (refused folder, a key or value the codec does not take, too big)."""
        from core.runtime.atomic import AtomicWriteError, atomic_write

        path = self.path(name, key) if self.usable else None
        if path is None:
            return False
        data = self._pack(key, value)
        if data is None or len(data) > MAX_ENTRY_BYTES:
            return False
        try:
            path.parent.mkdir(mode=0o700, exist_ok=True)
            atomic_write(path, data)
        except (AtomicWriteError, OSError) as exc:
            _log.warning("warm cache entry not written: %s", exc)
            return False
        self._trim()
        return True

    @staticmethod
    def _pack(key: Hashable, value: Any) -> bytes | None:
        import numpy as np

        try:
            arrays: dict[str, Any] = {}
            meta = {"key": repr(key), "value": encode(value, arrays)}
        except (TypeError, ValueError) as exc:
            _log.info("warm cache: value not kept (%s)", exc)
            return None
        arrays[_META] = np.frombuffer(json.dumps(meta).encode(), dtype=np.uint8)
        out = io.BytesIO()
        np.savez(out, allow_pickle=False, **arrays)
        return out.getvalue()

    def entries(self) -> list[Path]:
        """The entry files of this key folder, oldest written first."""
        try:
            files = [p for p in self.folder.glob("*/*.npz") if p.is_file()]
            return sorted(files, key=lambda p: p.stat().st_mtime_ns)
        except OSError:
            return []

    def _trim(self) -> None:
        """Drop the oldest entries until at most MAX_ENTRIES and MAX_BYTES are left."""
        files = self.entries()
        sizes = {p: _size(p) for p in files}
        total = sum(sizes.values())
        while files and (len(files) > MAX_ENTRIES or total > MAX_BYTES):
            oldest = files.pop(0)
            total -= sizes[oldest]
            try:
                oldest.unlink()
            except OSError:
                pass

    def prune(self, *, keep: int = 3) -> int:
        """Remove the root's other key folders but the ``keep`` - 1 most recently changed (an
        older version, core or seed): the cache of one root stays bounded. Returns how many
        went."""
        import shutil

        if not self.usable:
            return 0
        try:
            others = sorted((p for p in self.root.iterdir() if p.is_dir() and not p.is_symlink()
                             and "-seed" in p.name and p != self.folder), key=lambda p: p.stat().st_mtime_ns)
        except OSError:
            return 0
        gone = others[:max(len(others) - (keep - 1), 0)]
        for path in gone:
            shutil.rmtree(path, ignore_errors=True)
        return len(gone)

    def read_status(self) -> dict:
        """The warm-up's ``status.json`` in the key folder ({} when absent or unreadable)."""
        try:
            status = json.loads((self.folder / "status.json").read_text())
        except (OSError, ValueError):
            return {}
        return status if isinstance(status, dict) else {}

    def write_status(self, status: dict) -> None:
        """Write ``status.json`` whole (:func:`core.runtime.atomic.atomic_write`)."""
        from core.runtime.atomic import atomic_write

        if self.usable:
            atomic_write(self.folder / "status.json", json.dumps(status, sort_keys=True) + "\n")


def _size(path: Path) -> int:
    try:
        return path.stat().st_size
    except OSError:
        return 0
