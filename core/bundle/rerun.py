"""``pux rerun``: unpack a bundle, run its script in a fresh process, compare number by number.

The script runs with this interpreter in a temporary folder holding the unpacked bundle, so
nothing of this process (no cache, no state) reaches it; its ``rerun.json`` is then compared
with the bundle's ``result.json`` (:func:`core.bundle.check.compare_trees`). A zip whose
entries would land outside that folder is refused.
"""
from __future__ import annotations

import json
import os
import subprocess
import sys
import tempfile
import time
import zipfile
from dataclasses import dataclass
from pathlib import Path, PurePosixPath

from core.bundle.check import ATOL, RTOL, Check, compare_trees
from core.data.formats import check_format

__all__ = ["Rerun", "rerun_bundle", "unpack"]


@dataclass(frozen=True)
class Rerun:
    """What a rerun found.

    Attributes
    ----------
    checks : list of Check
        One per number (empty when the script failed).
    seconds : float
        The script's wall time.
    original_seconds : float or None
        The bundle's own computing time, when it recorded one.
    returncode : int
        The script's exit status.
    output : str
        The script's last lines (stdout and stderr).
    """

    checks: list[Check]
    seconds: float
    original_seconds: float | None
    returncode: int
    output: str

    @property
    def ok(self) -> bool:
        """The script ran and every number matched."""
        return self.returncode == 0 and bool(self.checks) and all(c.ok for c in self.checks)


def unpack(zip_path: str | os.PathLike, folder: str | os.PathLike) -> dict:
    """Unpack a bundle into ``folder``; its manifest (``bundle.json``) checked for its format.

    Raises
    ------
    ValueError
        Not a zip, no manifest, an entry that would land outside ``folder``, or a manifest
        of a format this version cannot read, in one sentence.
    """
    path = Path(zip_path)
    try:
        archive = zipfile.ZipFile(path)
    except FileNotFoundError:
        raise ValueError(f"there is no bundle at {path}; check the path.") from None
    except (zipfile.BadZipFile, OSError) as exc:
        raise ValueError(f"{path} is not a bundle (not a readable zip: {type(exc).__name__}).") from None
    with archive:
        for name in archive.namelist():
            pure = PurePosixPath(name)
            if pure.is_absolute() or ".." in pure.parts:
                raise ValueError(f"{path} has an entry outside its folder ({name!r}); it is not a bundle.")
        if "bundle.json" not in archive.namelist():
            raise ValueError(f"{path} is not a bundle: it has no bundle.json.")
        manifest = check_format(json.loads(archive.read("bundle.json")), "pux-bundle")
        archive.extractall(folder)
    return manifest


def rerun_bundle(zip_path: str | os.PathLike, *, data: str | os.PathLike | None = None,
                 rtol: float = RTOL, atol: float = ATOL, timeout: float | None = None) -> Rerun:
    """Rerun a bundle's script in a fresh process and compare its numbers with the bundle's.

    Parameters
    ----------
    zip_path : path
        The bundle.
    data : path, optional
        The data a bundle without it needs: the CSV it was made from, or the folder of a
        public dataset (``--data``).
    rtol, atol : float
        Tolerances for numbers (:func:`core.bundle.check.compare_trees`).
    timeout : float, optional
        Seconds before the script is stopped (None: no limit).
    """
    with tempfile.TemporaryDirectory(prefix="pux-rerun-") as tmp:
        manifest = unpack(zip_path, tmp)
        command = [sys.executable, "rerun.py"] + ([] if data is None else ["--data", str(Path(data).resolve())])
        start = time.perf_counter()
        try:
            proc = subprocess.run(command, cwd=tmp, capture_output=True, text=True, timeout=timeout)
        except subprocess.TimeoutExpired:
            return Rerun([], time.perf_counter() - start, manifest.get("seconds"), 124,
                         f"the rerun took more than {timeout:g} s and was stopped.")
        seconds = time.perf_counter() - start
        output = "\n".join((proc.stdout + proc.stderr).strip().splitlines()[-20:])
        rerun_file = Path(tmp) / "rerun.json"
        if not rerun_file.is_file():
            return Rerun([], seconds, manifest.get("seconds"), proc.returncode or 1, output)
        expected = json.loads((Path(tmp) / "result.json").read_text(encoding="utf-8"))
        checks = compare_trees(expected, json.loads(rerun_file.read_text(encoding="utf-8")), rtol=rtol, atol=atol)
    return Rerun(checks, seconds, manifest.get("seconds"), proc.returncode, output)
