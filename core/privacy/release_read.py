"""Reading a release back: the exact table and its metadata, from the zip or the CSV pair.

:func:`read_release` reads what :func:`core.privacy.release.release_zip` wrote (or a CSV
with its JSON sidecar beside it), restores the column types from the sidecar and takes the
formula quotes off (:func:`core.privacy.release_formulas.unguard_release_formulas`). Files of
the old format (``#`` lines before the table) are read too.
"""
from __future__ import annotations

import io
import json
import os
import zipfile
from pathlib import Path
from typing import Any

import pandas as pd

from core.data.formats import check_format, format_version
from core.privacy.release import RELEASE_FORMAT
from core.privacy.release_formulas import _guard_text, unguard_release_formulas

__all__ = ["read_release"]

_LEGACY_FORMAT = "pux-release/0 (# lines before the table)"


def _read_legacy(text: str) -> tuple[pd.DataFrame, dict[str, Any]]:
    """A file of the old format: ``# `` lines, then the table (formula quotes left as they are)."""
    lines = text.splitlines(keepends=True)
    n = 0
    while n < len(lines) and lines[n].startswith("#"):
        n += 1
    header = [line[2:].rstrip("\r\n") if line.startswith("# ") else line[1:].rstrip("\r\n")
              for line in lines[:n]]
    facts = dict(line.split(": ", 1) for line in header if ": " in line)
    meta: dict[str, Any] = {
        "format": _LEGACY_FORMAT, "header": header, "method": facts.get("pux release"),
        "guarantee": facts.get("privacy"), "is_dp": facts.get("is_dp") == "true",
        "noise": facts.get("noise"), "formula_guard": None,
    }
    return pd.read_csv(io.StringIO("".join(lines[n:]))), meta


def _read_pair(csv_text: str, meta: dict[str, Any]) -> tuple[pd.DataFrame, dict[str, Any]]:
    if not isinstance(meta, dict) or (format_version(meta.get("format")) or ("",))[0] != "pux-release":
        raise ValueError(f"This sidecar is not a pux release's (its format is not {RELEASE_FORMAT!r}).")
    meta = check_format(meta, "pux-release")  # a newer or older sidecar: migrated or refused in one sentence
    columns = meta.get("columns") or []
    written = [_guard_text(c["name"]) for c in columns]
    text_cols = {w: object for w, c in zip(written, columns) if c.get("text")}
    frame = pd.read_csv(io.StringIO(csv_text), dtype=text_cols, keep_default_na=False, na_values=[""])
    if [str(c) for c in frame.columns] != written:
        raise ValueError("The CSV's columns are not the ones its sidecar lists: the two files do not belong together.")
    frame = unguard_release_formulas(frame, meta.get("formula_guard") or {})
    frame.columns = [c["name"] for c in columns]
    for i, c in enumerate(columns):
        want = c.get("dtype")
        try:
            if want == "category":
                dtype: Any = pd.CategoricalDtype(c["categories"]) if "categories" in c else "category"
            else:
                dtype = want
            if dtype is not None and str(frame.iloc[:, i].dtype) != str(dtype):
                frame[c["name"]] = frame.iloc[:, i].astype(dtype)
        except (TypeError, ValueError):
            pass  # kept as read (e.g. a missing value in a column of integers)
    return frame, meta


def _zip_pair(data: bytes) -> tuple[pd.DataFrame, dict[str, Any]]:
    with zipfile.ZipFile(io.BytesIO(data)) as zf:
        names = zf.namelist()
        csvs = [n for n in names if n.endswith(".csv")]
        if len(csvs) != 1:
            raise ValueError(f"A release zip holds one CSV; this one holds {len(csvs)}.")
        side = csvs[0][:-4] + ".json"
        if side not in names:
            raise ValueError(f"The zip has no sidecar {side!r} beside its CSV.")
        return _read_pair(zf.read(csvs[0]).decode("utf-8"),
                          json.loads(zf.read(side).decode("utf-8")))


def _from_text(text: str, meta: dict[str, Any] | None) -> tuple[pd.DataFrame, dict[str, Any]]:
    if text.startswith("#"):
        return _read_legacy(text)
    if meta is None:
        raise ValueError("A release CSV is read back with its JSON sidecar: read the zip, or put "
                         "<same name>.json beside the CSV (pandas.read_csv reads the table alone).")
    return _read_pair(text, meta)


def read_release(source: Any, *, sidecar: Any = None) -> tuple[pd.DataFrame, dict[str, Any]]:
    """The table and the metadata of a release: the exact frame that was released.

    Column types come back from the sidecar and the formula quotes of
    :func:`guard_release_formulas` are taken off. A file of the old format (``#`` lines
    before the table) is read too: its lines come back as ``metadata["header"]`` and its
    formula quotes stay.

    Parameters
    ----------
    source : path, bytes or text
        The release zip (path or bytes), or the CSV (path: its sidecar ``<stem>.json``
        beside it is read; bytes or text: give ``sidecar``), or an old-format file.
    sidecar : path, bytes, text or dict, optional
        The sidecar, when ``source`` is a CSV's content or lies apart from its sidecar.

    Returns
    -------
    frame : DataFrame
    metadata : dict
        The sidecar (:func:`release_metadata` and ``columns``, ``rows``,
        ``formula_guard``, ``file``).
    """
    meta = None
    if sidecar is not None:
        if isinstance(sidecar, dict):
            meta = sidecar
        elif isinstance(sidecar, (bytes, bytearray)) or (isinstance(sidecar, str) and sidecar.lstrip().startswith("{")):
            meta = json.loads(sidecar)
        elif isinstance(sidecar, (str, os.PathLike)):
            meta = json.loads(Path(sidecar).read_text(encoding="utf-8"))
        else:
            raise TypeError(f"sidecar must be a path, bytes, text or dict, got {type(sidecar).__name__}.")
    if isinstance(source, (bytes, bytearray)):
        data = bytes(source)
        if data[:4] == b"PK\x03\x04":
            return _zip_pair(data)
        return _from_text(data.decode("utf-8-sig"), meta)
    if isinstance(source, str) and ("\n" in source or source.startswith("#")):
        return _from_text(source, meta)
    if isinstance(source, (str, os.PathLike)):
        path = Path(source)
        data = path.read_bytes()
        if data[:4] == b"PK\x03\x04":
            return _zip_pair(data)
        if meta is None and path.with_suffix(".json").is_file():
            meta = json.loads(path.with_suffix(".json").read_text(encoding="utf-8"))
        return _from_text(data.decode("utf-8-sig"), meta)
    raise TypeError(f"source must be a path, bytes or text, got {type(source).__name__}.")
