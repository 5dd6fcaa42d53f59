"""How a released file says what it is: its name, its JSON sidecar, its README, one zip.

A released table is files other tools read (docs/design.md section 2.6): a plain CSV (the
header on its first line, nothing else: ``pandas.read_csv``, R's ``read.csv`` and
spreadsheets open it as it is) whose name carries its guarantee
(:func:`release_file_name`: ``supplier-sskm_dp-release1-dp-eps1.csv``, ``...-not-dp.csv``,
``...-not-private-reproducible.csv``), a JSON sidecar of the same stem
(:func:`release_metadata`: method, guarantee sentence, ``is_dp`` and the reason when it is
not, public schema, noise source, session total, column types, formula guard) and a short
README.txt, all three in one zip (:func:`release_zip`). The noise of a release comes from a
:class:`~core.privacy.noise_source.NoiseSource`; text that a spreadsheet would run as a
formula gets a leading quote in the CSV (:mod:`core.privacy.release_formulas`);
:func:`core.privacy.release_read.read_release` reads the pair back and gives the exact table.
"""
from __future__ import annotations

import io
import json
import math
import re
import zipfile
from datetime import datetime, timezone
from typing import Any

import numpy as np
import pandas as pd

from core.privacy.ledger import NEIGHBOURING_RELATION, PrivacyLedger
from core.privacy.noise_source import NoiseSource
from core.privacy.release_formulas import _is_text, guard_release_formulas

__all__ = ["release_header", "release_csv", "release_files", "release_zip", "release_file_name",
           "release_metadata", "NOT_DP_TAG", "NOT_PRIVATE_TAG", "RELEASE_FORMAT", "README_NAME"]

#: In the file name of every release that is not differentially private.
NOT_DP_TAG = "not-dp"
#: In the file name of every reproducible release (its noise can be regenerated).
NOT_PRIVATE_TAG = "not-private-reproducible"
#: The sidecar's ``format``; :func:`~core.privacy.release_read.read_release` refuses a sidecar
#: of another format.
RELEASE_FORMAT = "pux-release/1"
#: The name of the short explanation in every release zip.
README_NAME = "README.txt"


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
        "  from core.privacy.release_read import read_release; frame, metadata = read_release(\"<this zip>\")",
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

