"""``pux rerun``: read a bundle as data, recompute its numbers with the installed ``core``, compare.

Nothing from the zip runs. :func:`open_bundle` reads ``bundle.json``, ``config.json``,
``result.json``, ``rerun.py`` and a bundled table in memory, straight from the zip: the zip's
entries, sizes and compression ratios are checked before anything is decompressed
(:func:`core.limits.check_zip`), each member is read up to its limit and each JSON file's size
and depth are checked before it is parsed (:func:`core.limits.load_json`). The config cannot
name a path on this machine: the data comes from ``data`` (``--data``), a built-in name or the
bundle's own table; without any of them, :func:`data_missing` says so in one sentence from the
zip's listing and config alone, before any work (it imports no page and no model).
:func:`rerun_bundle` then recomputes ``result.json`` with this process's
``core`` and compares number by number (:func:`core.bundle.check.compare_trees`).

The bundled ``rerun.py`` and ``rerun.ipynb`` are code, for a person to read and run by choice.
With ``run_script=True`` the script runs only when it is byte for byte the script this version
writes from the bundle's config (:func:`core.bundle.build.rerun_script`); otherwise
:class:`ScriptRefused` holds the difference. It runs in a fresh interpreter (isolated mode, so
nothing beside it is imported), in a temporary folder holding only the files it reads, under a
time limit (:data:`core.limits.MAX_SCRIPT_SECONDS`); the folder is removed on every exit,
Ctrl-C and SIGTERM included.
"""
from __future__ import annotations

import hashlib
import json
import os
import signal
import subprocess
import sys
import tempfile
import threading
import time
import zipfile
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path, PurePosixPath
from typing import TYPE_CHECKING, Any, Iterator

from core import limits
from core.bundle.check import ATOL, RTOL, Check, compare_trees, script_difference
from core.bundle.data_needed import missing_data
from core.data.formats import check_format

if TYPE_CHECKING:  # the page config loads every page's machinery: read only where a bundle is opened
    from core.bundle.page_config import PageConfig

__all__ = ["Rerun", "BundleFiles", "ScriptRefused", "open_bundle", "recompute", "rerun_bundle",
           "run_bundled_script", "expected_script", "data_missing"]

#: Where a bundle keeps its table (:data:`core.bundle.run_steps.DATA_FOLDER`).
_DATA = "data/"


@dataclass(frozen=True)
class Rerun:
    """What a rerun found.

    Attributes
    ----------
    checks : list of Check
        One per number (empty when the script failed).
    seconds : float
        The recomputation's (or the script's) wall time.
    original_seconds : float or None
        The bundle's own computing time, when it recorded one.
    returncode : int
        0 for a recomputation; the script's exit status under ``run_script``.
    output : str
        The script's last lines (stdout and stderr); empty for a recomputation.
    script_sha256 : str
        The SHA-256 of the bundle's ``rerun.py``.
    script_same : bool
        Whether it is the script this version writes from the bundle's config.
    result : dict or None
        The recomputed numbers (the shape of ``result.json``).
    """

    checks: list[Check]
    seconds: float
    original_seconds: float | None
    returncode: int
    output: str
    script_sha256: str = ""
    script_same: bool = False
    result: dict | None = None

    @property
    def ok(self) -> bool:
        """It ran and every number matched."""
        return self.returncode == 0 and bool(self.checks) and all(c.ok for c in self.checks)


@dataclass(frozen=True)
class BundleFiles:
    """A bundle's files, read as data (nothing of it is run)."""

    name: str
    manifest: dict
    config: PageConfig
    config_bytes: bytes
    result: Any
    result_bytes: bytes
    script: bytes
    data: bytes | None

    @property
    def script_sha256(self) -> str:
        """The SHA-256 of ``rerun.py``."""
        return hashlib.sha256(self.script).hexdigest()


class ScriptRefused(ValueError):
    """The bundle's script is not the one this version writes; ``difference`` shows how."""

    def __init__(self, message: str, difference: list[str]) -> None:
        super().__init__(message)
        self.difference = difference


def _open_zip(path: Path) -> zipfile.ZipFile:
    try:
        return zipfile.ZipFile(path)
    except FileNotFoundError:
        raise ValueError(f"there is no bundle at {path}; check the path.") from None
    except (zipfile.BadZipFile, OSError, ValueError) as exc:
        raise ValueError(f"{path} is not a bundle (not a readable zip: {type(exc).__name__}).") from None


def _check_names(names: list[str], path: Path) -> None:
    for name in names:
        pure = PurePosixPath(name)
        if pure.is_absolute() or ".." in pure.parts or "\\" in name:
            raise ValueError(f"{path} has an entry outside its folder ({name!r}); it is not a bundle.")
    if "bundle.json" not in names:
        raise ValueError(f"{path} is not a bundle: it has no bundle.json.")


def _json_member(archive: zipfile.ZipFile, member: str, name: str) -> tuple[Any, bytes]:
    what = f"{member} in {name}"
    raw = limits.read_member(archive, member, what=name, max_bytes=limits.MAX_JSON_BYTES)
    return limits.load_json(raw, what=what), raw


def _config(data: Any, name: str) -> PageConfig:
    """The bundle's config as a page config; one naming a file on this machine is refused."""
    from core.bundle.configs import read_bundle_config

    what = f"config.json in {name}"
    if not isinstance(data, dict):
        raise ValueError(f"{what} must be a JSON object, got {type(data).__name__}.")
    if isinstance(data.get("schema"), str):
        raise ValueError(f"{what} names a file ({data['schema']!r}) for its schema; a bundle's config holds "
                         "its schema inline and names no path on this machine.")
    limits.check_config_limits(data, what=what)
    try:
        return read_bundle_config(data)
    except (TypeError, ValueError) as exc:
        raise ValueError(f"{what} cannot be used: {exc}") from None


def _data_member(names: list[str], config: PageConfig) -> str | None:
    if config.csv_name is not None and f"{_DATA}{config.csv_name}" in names:
        return f"{_DATA}{config.csv_name}"
    tables = sorted(n for n in names if n.startswith(_DATA) and n.endswith(".csv"))
    return tables[0] if tables else None


def open_bundle(zip_path: str | os.PathLike) -> BundleFiles:
    """A bundle's files read in memory from the zip, every limit checked first.

    Raises
    ------
    ValueError
        One sentence naming the zip or its file: not a zip, an entry outside its folder, a
        limit passed (:mod:`core.limits`), a file missing, not JSON, of another format, or a
        config that names a path.
    """
    path = Path(zip_path)
    with _open_zip(path) as archive:
        limits.check_zip(archive, what=str(path))
        names = archive.namelist()
        _check_names(names, path)
        manifest, _ = _json_member(archive, "bundle.json", path.name)
        try:
            manifest = check_format(manifest, "pux-bundle")
        except (TypeError, ValueError) as exc:
            raise ValueError(f"bundle.json in {path.name}: {exc}") from None
        raw_config, config_bytes = _json_member(archive, "config.json", path.name)
        config = _config(raw_config, path.name)
        result, result_bytes = _json_member(archive, "result.json", path.name)
        script = limits.read_member(archive, "rerun.py", what=path.name, max_bytes=limits.MAX_JSON_BYTES)
        member = _data_member(names, config)
        data = None if member is None else limits.read_member(archive, member, what=path.name)
    return BundleFiles(path.name, manifest, config, config_bytes, result, result_bytes, script, data)


def data_missing(zip_path: str | os.PathLike, *, data: str | os.PathLike | None = None) -> str | None:
    """One sentence saying what data the rerun of a bundle needs, when it has none; else None.

    The data is missing when ``data`` (``--data``) is None and the config's dataset is an
    uploaded table the bundle does not hold, or a public dataset with no ``$PUX_DATA_DIR``
    (:func:`core.bundle.data_needed.missing_data`). Reads only the zip's listing and its
    ``config.json`` (every limit checked first) and loads no page, so ``pux rerun`` refuses in
    one sentence before any work. A zip that is not a bundle is a ValueError in one sentence,
    as :func:`open_bundle`; a config whose dataset is not a name is left to it (None).
    """
    if data is not None:
        return None
    path = Path(zip_path)
    with _open_zip(path) as archive:
        limits.check_zip(archive, what=str(path))
        names = archive.namelist()
        _check_names(names, path)
        raw, _ = _json_member(archive, "config.json", path.name)
    dataset = raw.get("dataset") if isinstance(raw, dict) else None
    if not isinstance(dataset, str):
        return None
    bundled = any(n.startswith(_DATA) and n.endswith(".csv") for n in names)
    return missing_data(dataset, bundled=bundled, given=False)


def expected_script(files: BundleFiles) -> bytes | None:
    """The script this version writes from the bundle's config and manifest (None when the
    manifest's title or data flag is not of its type)."""
    from core.bundle.build import rerun_script

    title, included = files.manifest.get("title"), files.manifest.get("data_included")
    if not isinstance(title, str) or not isinstance(included, bool):
        return None
    return rerun_script(files.config, title=title, data_included=included).encode("utf-8")


def recompute(files: BundleFiles, *, data: str | os.PathLike | None = None) -> dict:
    """``result.json`` recomputed with this process's ``core`` (what the bundle's script does).

    ``data`` is the ``--data`` argument: the CSV of an uploaded table (default: the bundle's
    own copy) or the folder of a public one (default ``$PUX_DATA_DIR``).
    """
    from core.bundle.page_config import load_page_dataset, page_schema
    from core.bundle.pages import page_module
    from core.bundle.run_steps import data_sentence, release_shapes, seeded, unguarded_table
    from core.data.samples import SAMPLES
    from core.papers.reproductions import json_default
    from core.privacy.noise_source import NoiseSource
    from core.validation import DataError

    config = files.config
    csv = data_dir = None
    if config.csv_name is not None:
        csv = data if data is not None else (None if files.data is None else unguarded_table(files.data))
        if csv is None:
            raise DataError(data_sentence(config, bundled=False))
    elif config.dataset not in SAMPLES:
        data_dir = data
    dataset = load_page_dataset(config, data_dir=data_dir, csv=csv)
    schema = page_schema(config, dataset)
    page = page_module(config.page)
    result: dict[str, Any] = {}
    if seeded(config):
        result["numbers"] = page.numbers(dataset, schema, seed=config.seed, settings=config.settings)
    tables = page.releases(dataset, schema, noise=NoiseSource(None), settings=config.settings)
    result["releases"] = release_shapes(tables)
    return json.loads(json.dumps(result, default=json_default))


def rerun_bundle(zip_path: str | os.PathLike, *, data: str | os.PathLike | None = None,
                 rtol: float = RTOL, atol: float = ATOL, run_script: bool = False,
                 timeout: float | None = None) -> Rerun:
    """Recompute a bundle's numbers and compare them with the bundle's, number by number.

    Parameters
    ----------
    zip_path : path
        The bundle.
    data : path, optional
        The data a bundle without it needs: the CSV it was made from, or the folder of a
        public dataset (``--data``).
    rtol, atol : float
        Tolerances for numbers (:func:`core.bundle.check.compare_trees`).
    run_script : bool
        Run the bundle's own ``rerun.py`` instead (:func:`run_bundled_script`): refused with
        :class:`ScriptRefused` unless it is the script this version writes.
    timeout : float, optional
        Seconds before the script is stopped (default :data:`core.limits.MAX_SCRIPT_SECONDS`).

    Raises
    ------
    core.validation.DataError
        The bundle lacks its data and none was given (:func:`data_missing`), before any work.
    """
    if not isinstance(run_script, bool):
        raise TypeError(f"run_script must be True or False, got {type(run_script).__name__}.")
    from core.validation import DataError

    missing = data_missing(zip_path, data=data)
    if missing is not None:  # before the bundle's machinery loads, its script runs or anything is computed
        raise DataError(missing)
    files = open_bundle(zip_path)
    if run_script:
        return run_bundled_script(files, data=data, rtol=rtol, atol=atol, timeout=timeout)
    same = expected_script(files) == files.script
    start = time.perf_counter()
    result = recompute(files, data=data)
    seconds = time.perf_counter() - start
    checks = compare_trees(files.result, result, rtol=rtol, atol=atol)
    return Rerun(checks, seconds, files.manifest.get("seconds"), 0, "", files.script_sha256, same, result)


@contextmanager
def _signals_end_the_run() -> Iterator[None]:
    """SIGTERM and SIGHUP raise KeyboardInterrupt while the script runs, so every ``finally``
    (the child stopped, the folder removed) runs as it does for Ctrl-C."""
    if threading.current_thread() is not threading.main_thread():
        yield
        return

    def stop(signum: int, frame: Any) -> None:
        raise KeyboardInterrupt(f"signal {signum}")

    old = {s: signal.signal(s, stop) for s in (signal.SIGTERM, signal.SIGHUP)}
    try:
        yield
    finally:
        for s, handler in old.items():
            signal.signal(s, handler)


def _stop(proc: subprocess.Popen) -> None:
    """The script and whatever it started, stopped (its own process group)."""
    if proc.poll() is None:
        try:
            os.killpg(proc.pid, signal.SIGKILL)
        except OSError:
            proc.kill()
    proc.wait()


def _lay_out(files: BundleFiles, folder: Path) -> None:
    """Only the files the script reads: the script, config.json, result.json and the table."""
    (folder / "rerun.py").write_bytes(files.script)
    (folder / "config.json").write_bytes(files.config_bytes)
    (folder / "result.json").write_bytes(files.result_bytes)
    if files.data is not None:
        (folder / "data").mkdir()
        (folder / "data" / "bundled.csv").write_bytes(files.data)


def _check_script(files: BundleFiles) -> None:
    expected = expected_script(files)
    if expected == files.script:
        return
    difference = script_difference(expected or b"", files.script)
    raise ScriptRefused(f"the bundle's rerun.py (SHA-256 {files.script_sha256}) is not the script this version "
                        f"writes from its config ({len(difference)} lines of difference); it was not run.",
                        difference)


def _execute(files: BundleFiles, folder: Path, data: str | os.PathLike | None,
             timeout: float) -> tuple[int, str, float]:
    """The script run in ``folder``: its exit status, its last lines and its wall time."""
    _lay_out(files, folder)
    command = [sys.executable, "-I", "rerun.py"] + ([] if data is None else ["--data", str(Path(data).resolve())])
    env = {k: v for k, v in os.environ.items() if k != "PUX_BUNDLE_DATA"}
    start = time.perf_counter()
    proc = subprocess.Popen(command, cwd=folder, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True,
                            env=env, start_new_session=True)
    try:
        output, _ = proc.communicate(timeout=timeout)
    except subprocess.TimeoutExpired:
        return 124, f"the script ran past its limit of {timeout:g} s and was stopped.", time.perf_counter() - start
    finally:
        _stop(proc)
    tail = "\n".join(output.strip().splitlines()[-20:])
    return proc.returncode, tail, time.perf_counter() - start


def run_bundled_script(files: BundleFiles, *, data: str | os.PathLike | None = None, rtol: float = RTOL,
               atol: float = ATOL, timeout: float | None = None) -> Rerun:
    """Run the bundle's ``rerun.py`` when it is the script this version writes, then compare.

    Raises
    ------
    ScriptRefused
        The script differs from the one this version writes from the bundle's config (nothing ran).
    """
    _check_script(files)
    timeout = limits.MAX_SCRIPT_SECONDS if timeout is None else timeout
    with _signals_end_the_run(), tempfile.TemporaryDirectory(prefix="pux-rerun-") as tmp:
        code, output, seconds = _execute(files, Path(tmp), data, timeout)
        produced = Path(tmp) / "rerun.json"
        if not produced.is_file():  # it stopped before writing its numbers
            return Rerun([], seconds, files.manifest.get("seconds"), code or 1, output, files.script_sha256, True)
        if produced.stat().st_size > limits.MAX_JSON_BYTES:
            raise ValueError(f"the script's rerun.json is {produced.stat().st_size:,} bytes; the limit is "
                             f"{limits.MAX_JSON_BYTES:,} bytes.")
        result = limits.load_json(produced.read_bytes(), what="the script's rerun.json")
    checks = compare_trees(files.result, result, rtol=rtol, atol=atol)
    return Rerun(checks, seconds, files.manifest.get("seconds"), code, output, files.script_sha256, True, result)
