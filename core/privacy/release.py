"""Where the noise of a release comes from, and how a released file says what it is.

Two kinds of randomness meet in this project (docs/design.md, "Noise that no viewer can
subtract"):

- **Display noise** follows the sidebar seed, so a teacher gets the same picture twice.
  :func:`display_seed` mixes the seed with what the picture shows (the method, epsilon,
  ...), so two pictures at different epsilons never share noise draws: nobody can subtract
  one from the other to cancel the noise.
- **Release noise** is for anything that leaves the app (a download, an export, a report).
  :class:`NoiseSource` draws it from fresh operating-system entropy, unless the user asks
  for a reproducible release, which is then labelled "not private" in the file name, the
  sidecar and on the page (anyone who knows the seed can regenerate and subtract the noise).

A released table is files other tools read (docs/design.md section 2.6): a plain CSV (the
header on its first line, nothing else: ``pandas.read_csv``, R's ``read.csv`` and
spreadsheets open it as it is) whose name carries its guarantee
(:func:`release_file_name`: ``supplier-sskm_dp-release1-dp-eps1.csv``, ``...-not-dp.csv``,
``...-not-private-reproducible.csv``), a JSON sidecar of the same stem
(:func:`release_metadata`: method, guarantee sentence, ``is_dp`` and the reason when it is
not, public schema, noise source, session total, column types, formula guard) and a short
README.txt, all three in one zip (:func:`release_zip`). :func:`read_release` reads the pair
back, from the zip or from the CSV with its sidecar beside it, and gives the exact table.
Text that a spreadsheet would run as a formula gets a leading quote in the CSV
(:func:`guard_release_formulas`); the sidecar says which columns, and :func:`read_release`
takes the quote off again.
"""
from __future__ import annotations

import hashlib
import io
import json
import math
import os
import re
import zipfile
from dataclasses import dataclass
from datetime import datetime, timezone
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd

from core.data.export import FORMULA_PREFIXES
from core.privacy.mechanisms import NEIGHBOURING_RELATION, PrivacyLedger
from core.runtime.randomness import display_seed
from core.validation import check_positive_int

__all__ = ["NoiseSource", "display_seed", "release_header", "release_csv", "release_files", "release_zip",
           "read_release", "release_file_name", "release_metadata", "guard_release_formulas",
           "unguard_release_formulas", "NOT_DP_TAG", "NOT_PRIVATE_TAG", "RELEASE_FORMAT", "README_NAME"]

#: In the file name of every release that is not differentially private.
NOT_DP_TAG = "not-dp"
#: In the file name of every reproducible release (its noise can be regenerated).
NOT_PRIVATE_TAG = "not-private-reproducible"
#: The sidecar's ``format``; :func:`read_release` refuses a sidecar of another format.
RELEASE_FORMAT = "pux-release/1"
#: The name of the short explanation in every release zip.
README_NAME = "README.txt"
#: The quote put before text a spreadsheet would run as a formula.
GUARD_PREFIX = "'"
GUARD_RULE = ("Text that starts with = + - @, a tab or a carriage return (a spreadsheet would run it as a "
              "formula), and text that starts with a quote, got a leading single quote (') in the CSV; "
              "numbers are unchanged. read_release takes the quote off again.")
_GUARDED_STARTS = tuple(FORMULA_PREFIXES) + (GUARD_PREFIX,)


@dataclass(frozen=True)
class NoiseSource:
    """The randomness of one release that leaves the app.

    Parameters
    ----------
    reproducible_seed : int or None
        None (the default) draws fresh operating-system entropy: nobody, the operator
        included, can regenerate the noise. An int makes the release reproducible, and so
        **not private**: anyone who knows the seed can subtract the noise.
    """

    reproducible_seed: int | None = None

    def __post_init__(self) -> None:
        if self.reproducible_seed is not None:
            check_positive_int(self.reproducible_seed, name="reproducible_seed", minimum=0)

    @property
    def private(self) -> bool:
        """True when the noise cannot be regenerated (fresh entropy)."""
        return self.reproducible_seed is None

    def generator(self) -> np.random.Generator:
        """A new generator for this release (fresh entropy, or the reproducible seed)."""
        if self.reproducible_seed is None:
            return np.random.default_rng(np.random.SeedSequence())  # OS entropy
        return np.random.default_rng(self.reproducible_seed)

    def describe(self) -> str:
        """One sentence about the noise, for a page and a file header."""
        if self.private:
            return "Noise drawn from fresh operating-system entropy (cannot be regenerated)."
        return (f"REPRODUCIBLE release from seed {self.reproducible_seed}: NOT PRIVATE, anyone who "
                "knows the seed can regenerate the noise and remove it.")


def _guarantee(ledger: PrivacyLedger, noise: NoiseSource | None) -> str:
    guarantee = ledger.describe()
    if noise is not None and not noise.private and ledger.is_dp:
        guarantee = "NOT PRIVATE as released (reproducible noise). Otherwise: " + guarantee
    return guarantee


def _total_text(session_total: tuple[float, float]) -> str:
    eps, dlt = session_total
    return "none (a release without a guarantee)" if math.isinf(eps) else (
        f"epsilon = {eps:.4g}" + (f", delta = {dlt:.2g}" if dlt else ""))


def release_header(*, method: str, ledger: PrivacyLedger, noise: NoiseSource | None,
                   session_total: tuple[float, float] | None = None) -> list[str]:
    """Lines that say what a released file is: method, guarantee, noise, relation.

    The release zip's README.txt lists them (the CSV itself holds nothing but the table).

    Parameters
    ----------
    method : str
        What produced the release ("SSKM_DP (sound mode)", ...).
    ledger : PrivacyLedger
        The release's own ledger: its :meth:`~PrivacyLedger.describe` is the guarantee.
    noise : NoiseSource or None
        Where the noise came from; None for a release with no noise of its own.
    session_total : (float, float), optional
        What the session has released in all, this release included.
    """
    if not isinstance(ledger, PrivacyLedger):
        raise TypeError(f"ledger must be a PrivacyLedger, got {type(ledger).__name__}.")
    lines = [
        f"pux release: {method}",
        f"created: {datetime.now(timezone.utc).strftime('%Y-%m-%d %H:%M UTC')}",
        f"privacy: {_guarantee(ledger, noise)}",
        f"is_dp: {'true' if ledger.is_dp else 'false'}",
    ]
    if not ledger.is_dp:
        lines.append("not differentially private: " + " ".join(ledger.not_dp_reasons))
    lines += [f"not covered: {a}" for a in ledger.assumptions]
    if noise is not None:
        lines.append(f"noise: {noise.describe()}")
    if session_total is not None:
        lines.append(f"session total so far: {_total_text(session_total)}")
    lines.append(f"relation: {NEIGHBOURING_RELATION}")
    return [line.replace("\r", " ").replace("\n", " ") for line in lines]


def _jsonable(value: Any) -> Any:
    """``value`` as strict JSON: numpy scalars as Python numbers, non-finite floats as text."""
    if isinstance(value, dict):
        return {str(k): _jsonable(v) for k, v in value.items()}
    if isinstance(value, (list, tuple)):
        return [_jsonable(v) for v in value]
    if isinstance(value, np.generic):
        value = value.item()
    if isinstance(value, float) and not math.isfinite(value):
        return str(value)
    if value is None or isinstance(value, (str, bool, int, float)):
        return value
    return str(value)


def _schema_dict(schema: Any, columns: list[str] | None) -> dict[str, Any] | None:
    """The public schema as JSON, limited to the released ``columns`` when it names them."""
    if schema is None:
        return None
    if hasattr(schema, "to_dict"):
        schema = schema.to_dict()
    if not isinstance(schema, dict):
        raise TypeError(f"schema must be a PublicSchema or a dict, got {type(schema).__name__}.")
    out = dict(schema)
    if columns is not None and isinstance(out.get("columns"), list):
        kept = [c for c in out["columns"] if isinstance(c, dict) and c.get("name") in columns]
        if kept:
            out["columns"] = kept
    return _jsonable(out)


def release_metadata(*, method: str, ledger: PrivacyLedger, noise: NoiseSource | None,
                     session_total: tuple[float, float] | None = None,
                     schema: Any = None) -> dict[str, Any]:
    """What a released file is, as a JSON-ready object (the facts of :func:`release_header`).

    ``is_dp`` is False for a release that is not differentially private, with
    ``not_dp_reason`` in words and ``epsilon`` None (the epsilon it names is only
    ``nominal_epsilon``, no guarantee); a reproducible release of a DP mechanism keeps
    ``is_dp`` True but has ``private`` False and a guarantee that starts "NOT PRIVATE".

    Parameters
    ----------
    method, ledger, noise, session_total
        As in :func:`release_header`.
    schema : PublicSchema or dict, optional
        The public schema the release was built from (``public_schema`` in the result).
    """
    if not isinstance(ledger, PrivacyLedger):
        raise TypeError(f"ledger must be a PrivacyLedger, got {type(ledger).__name__}.")
    eps, dlt = ledger.total()
    nom_eps, nom_dlt = ledger.nominal()
    out: dict[str, Any] = {
        "format": RELEASE_FORMAT,
        "method": str(method),
        "created": datetime.now(timezone.utc).strftime("%Y-%m-%dT%H:%M:%SZ"),
        "is_dp": bool(ledger.is_dp),
        "not_dp_reason": None if ledger.is_dp else " ".join(ledger.not_dp_reasons),
        "guarantee": _guarantee(ledger, noise),
        "epsilon": eps if ledger.is_dp else None,
        "delta": dlt if ledger.is_dp else None,
        "nominal_epsilon": nom_eps,
        "nominal_delta": nom_dlt,
        "not_covered": list(ledger.assumptions),
        "floating_point": list(ledger.floating_point),
        "private": noise is None or noise.private,
        "noise": None if noise is None else noise.describe(),
        "relation": NEIGHBOURING_RELATION,
        "public_schema": _schema_dict(schema, None),
    }
    if session_total is not None:
        s_eps, s_dlt = session_total
        out["session_total"] = None if math.isinf(s_eps) else {"epsilon": s_eps, "delta": s_dlt}
        out["session_total_text"] = _total_text(session_total)
    return _jsonable(out)


def _safe_part(text: str) -> str:
    """A piece of a file name: letters, digits, ``_`` and ``.``; anything else becomes ``_``."""
    return re.sub(r"[^A-Za-z0-9_.]+", "_", str(text)).strip("._")


def release_file_name(file_name: str, *, ledger: PrivacyLedger, noise: NoiseSource | None = None,
                      number: int | None = None, dataset: str | None = None) -> str:
    """The name of a released CSV: it carries the release's guarantee.

    ``<dataset>-<stem>-release<number>-<guarantee>.csv``, the guarantee being
    ``dp-eps1`` (``dp-eps1-delta1e-05`` with a delta) for a differentially private
    release, ``not-dp`` for one that is not, followed by ``not-private-reproducible`` when
    the noise came from a seed: ``supplier-sskm_dp-release3-dp-eps1.csv``,
    ``census_imposter-release1-not-dp.csv``. The sidecar and the zip take the same stem.

    Parameters
    ----------
    file_name : str
        The page's name for the file ("sskm_dp_release.csv"; a trailing "release" in the
        stem is dropped, the number takes its place).
    ledger : PrivacyLedger
        The release's ledger.
    noise : NoiseSource, optional
        Where the noise came from.
    number : int, optional
        The release's number in the session.
    dataset : str, optional
        The dataset's name, put first unless the stem already starts with it.
    """
    if not isinstance(file_name, str) or not file_name:
        raise TypeError("file_name must be a non-empty str.")
    if not isinstance(ledger, PrivacyLedger):
        raise TypeError(f"ledger must be a PrivacyLedger, got {type(ledger).__name__}.")
    stem, dot, ext = file_name.rpartition(".")
    if not dot:
        stem, ext = file_name, "csv"
    stem = _safe_part(re.sub(r"[_-]?release$", "", stem)) or "release"
    parts = []
    if dataset and _safe_part(dataset) and not stem.startswith(_safe_part(dataset)):
        parts.append(_safe_part(dataset))
    parts.append(stem)
    if number is not None:
        parts.append(f"release{int(number)}")
    if ledger.is_dp:  # the tags: letters, digits, '-' and '.' only
        eps, dlt = ledger.total()
        parts.append(f"dp-eps{eps:g}" + (f"-delta{dlt:g}" if dlt else ""))
    else:
        parts.append(NOT_DP_TAG)
    if noise is not None and not noise.private:
        parts.append(NOT_PRIVATE_TAG)
    return "-".join(parts) + "." + (_safe_part(ext) or "csv")


# ------------------------------------------------------------------ spreadsheet formulas
def _guard_text(value: Any) -> Any:
    """``value`` with a leading quote when a spreadsheet would run it as a formula (or when it
    already starts with a quote, so that :func:`_unguard_text` undoes exactly one)."""
    if isinstance(value, str) and value.startswith(_GUARDED_STARTS):
        return GUARD_PREFIX + value
    return value


def _unguard_text(value: Any) -> Any:
    if isinstance(value, str) and value.startswith(GUARD_PREFIX):
        return value[len(GUARD_PREFIX):]
    return value


def _is_text(series: pd.Series) -> bool:
    """True for a column of text (object, string or category), False for numbers, booleans and
    times: ``-3.5`` in a numeric column is a number, not a formula, and stays as it is."""
    return not (pd.api.types.is_numeric_dtype(series) or pd.api.types.is_bool_dtype(series)
                or pd.api.types.is_datetime64_any_dtype(series))


def guard_release_formulas(frame: pd.DataFrame) -> tuple[pd.DataFrame, dict[str, Any]]:
    """A copy of ``frame`` that a spreadsheet cannot run, and a record of what changed.

    OWASP's rule for CSV injection: text that starts with ``=``, ``+``, ``-``, ``@``, a tab
    or a carriage return gets a leading single quote; so does text that already starts with
    a quote, so the change can be undone exactly (:func:`unguard_release_formulas`). Column
    names are treated the same way. Numbers are left alone: ``-3.5`` in a numeric column
    stays a number.

    Parameters
    ----------
    frame : DataFrame
        The released table.

    Returns
    -------
    guarded : DataFrame
        The table as the CSV holds it (column names as str).
    record : dict
        ``prefix`` (the quote), ``rule`` (in words), ``columns`` (the columns, by their
        original names, whose cells changed) and ``header`` (the column names that changed).
        The sidecar keeps it as ``formula_guard``.
    """
    if not isinstance(frame, pd.DataFrame):
        raise TypeError(f"frame must be a pandas DataFrame, got {type(frame).__name__}.")
    names = [str(c) for c in frame.columns]
    if len(set(names)) != len(names):
        raise ValueError("A release needs distinct column names: two of its columns have the same name.")
    out = frame.copy()
    out.columns = names
    changed: list[str] = []
    for i, col in enumerate(names):
        series = out.iloc[:, i]
        if not _is_text(series):
            continue
        values = series.astype(object)
        if values.map(lambda v: isinstance(v, str) and v.startswith(_GUARDED_STARTS)).any():
            changed.append(col)
            out[col] = values.map(_guard_text)
    header = [c for c in names if _guard_text(c) != c]
    out.columns = [_guard_text(c) for c in names]
    return out, {"prefix": GUARD_PREFIX, "rule": GUARD_RULE, "columns": changed, "header": header}


def unguard_release_formulas(frame: pd.DataFrame, record: dict[str, Any]) -> pd.DataFrame:
    """Undo :func:`guard_release_formulas` on a table read back from its CSV.

    Parameters
    ----------
    frame : DataFrame
        The table as read from the CSV (guarded column names).
    record : dict
        The sidecar's ``formula_guard``.
    """
    if not isinstance(frame, pd.DataFrame):
        raise TypeError(f"frame must be a pandas DataFrame, got {type(frame).__name__}.")
    if not isinstance(record, dict):
        raise TypeError(f"record must be a dict, got {type(record).__name__}.")
    guarded_names = {_guard_text(h): h for h in record.get("header", [])}
    out = frame.copy()
    out.columns = [guarded_names.get(c, c) for c in out.columns]
    for col in record.get("columns", []):
        if col not in out.columns:
            raise ValueError(f"The sidecar names a guarded column {col!r} that the CSV does not have.")
        out[col] = out[col].astype(object).map(_unguard_text)
    return out


# ------------------------------------------------------------------ the files
def _column_types(frame: pd.DataFrame) -> list[dict[str, Any]]:
    out = []
    for i, name in enumerate(frame.columns):
        series = frame.iloc[:, i]
        entry: dict[str, Any] = {"name": str(name), "dtype": str(series.dtype), "text": _is_text(series)}
        if isinstance(series.dtype, pd.CategoricalDtype):
            entry["categories"] = [str(c) for c in series.cat.categories]
        out.append(entry)
    return out


def release_csv(frame: pd.DataFrame) -> tuple[bytes, dict[str, Any]]:
    """The UTF-8 CSV of a release (header on the first line, no index, CRLF line ends as in
    RFC 4180, so that a carriage return inside a cell is quoted) and its formula record.

    Text a spreadsheet would run as a formula gets a leading quote
    (:func:`guard_release_formulas`); the record goes into the sidecar.
    """
    guarded, record = guard_release_formulas(frame)
    return guarded.to_csv(index=False, lineterminator="\r\n").encode("utf-8"), record


def _readme(csv_name: str, json_name: str, meta: dict[str, Any], header: list[str]) -> str:
    guard = meta["formula_guard"]
    if guard["columns"] or guard["header"]:
        touched = ", ".join(repr(c) for c in dict.fromkeys([*guard["header"], *guard["columns"]]))
        guard_text = (f"Spreadsheet formulas: text that starts with = + - @ (or a tab or carriage return) "
                      f"got a leading single quote in the CSV so that no spreadsheet runs it, in: {touched}. "
                      f"Text that already started with a quote got a second one. {json_name} lists them "
                      "under formula_guard; read_release takes the quote off again.")
    else:
        guard_text = "Spreadsheet formulas: no text in this table starts like a formula; nothing was changed."
    lines = [
        f"{csv_name}: a table released by the privacy-utility explorer (pux).",
        "",
        f"Privacy: {meta['guarantee']}",
        "",
        "Files in this zip:",
        f"  {csv_name}  the table: a plain CSV, column names on the first line, UTF-8.",
        "      Python: pandas.read_csv(\"" + csv_name + "\")   R: read.csv(\"" + csv_name + "\")",
        f"  {json_name}  what the table is, as JSON: method, guarantee, is_dp (and the reason when",
        "      false), epsilon, public schema, noise source, session total, column types.",
        f"  {README_NAME}  this note.",
        "",
        "The file name says the guarantee: dp-eps<epsilon> (differentially private at that",
        "epsilon), not-dp (no guarantee), not-private-reproducible (the noise came from a seed:",
        "anyone who knows it can remove the noise).",
        "",
        guard_text,
        "",
        "To get the exact table back (types and formula quotes undone), in the project:",
        "  from core.privacy.release import read_release; frame, metadata = read_release(\"<this zip>\")",
        "",
        "Facts:",
        *[f"  {line}" for line in header],
        "",
    ]
    return "\n".join(lines)


def release_files(frame: pd.DataFrame, *, file_name: str, method: str, ledger: PrivacyLedger,
                  noise: NoiseSource | None, session_total: tuple[float, float] | None = None,
                  schema: Any = None) -> dict[str, bytes]:
    """The three files of a release, by name: ``<stem>.csv``, ``<stem>.json``, README.txt.

    Parameters
    ----------
    frame : DataFrame
        The released table.
    file_name : str
        The CSV's name, from :func:`release_file_name`.
    method, ledger, noise, session_total
        As in :func:`release_header`.
    schema : PublicSchema or dict, optional
        The public schema the release was built from; the sidecar keeps its entries for the
        released columns.
    """
    if not isinstance(frame, pd.DataFrame):
        raise TypeError(f"frame must be a pandas DataFrame, got {type(frame).__name__}.")
    if not isinstance(file_name, str) or not file_name.endswith(".csv") or "/" in file_name:
        raise ValueError("file_name must be a plain name ending in .csv (see release_file_name).")
    stem = file_name[:-4]
    csv_bytes, record = release_csv(frame)
    meta = release_metadata(method=method, ledger=ledger, noise=noise, session_total=session_total)
    meta["public_schema"] = _schema_dict(schema, [str(c) for c in frame.columns])
    meta.update(_jsonable({"file": file_name, "rows": int(len(frame)), "columns": _column_types(frame),
                           "formula_guard": record}))
    header = release_header(method=method, ledger=ledger, noise=noise, session_total=session_total)
    json_name = f"{stem}.json"
    return {
        file_name: csv_bytes,
        json_name: (json.dumps(meta, indent=2, allow_nan=False, ensure_ascii=False) + "\n").encode("utf-8"),
        README_NAME: _readme(file_name, json_name, meta, header).encode("utf-8"),
    }


def release_zip(frame: pd.DataFrame, *, file_name: str, method: str, ledger: PrivacyLedger,
                noise: NoiseSource | None, session_total: tuple[float, float] | None = None,
                schema: Any = None) -> bytes:
    """The release as one zip: the CSV, its JSON sidecar and README.txt (:func:`release_files`).

    Name the zip ``<stem>.zip`` (the CSV's name with ``.zip``) so the guarantee stays in
    its name too.
    """
    files = release_files(frame, file_name=file_name, method=method, ledger=ledger, noise=noise,
                          session_total=session_total, schema=schema)
    buf = io.BytesIO()
    with zipfile.ZipFile(buf, "w", compression=zipfile.ZIP_DEFLATED) as zf:
        for name, data in files.items():
            info = zipfile.ZipInfo(name, date_time=datetime.now(timezone.utc).timetuple()[:6])
            info.compress_type = zipfile.ZIP_DEFLATED
            info.external_attr = 0o644 << 16
            zf.writestr(info, data)
    return buf.getvalue()


# ------------------------------------------------------------------ reading a release back
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
    if not isinstance(meta, dict) or meta.get("format") != RELEASE_FORMAT:
        raise ValueError(f"This sidecar is not a pux release's (its format is not {RELEASE_FORMAT!r}).")
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
