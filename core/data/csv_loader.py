"""Reading a user's CSV into a :class:`Dataset`, turning every bad input into one sentence.

Anything that can be repaired without changing the meaning of the data is repaired and
reported in ``Dataset.notes`` (another delimiter, a legacy encoding, an empty column);
anything that cannot raises :class:`core.validation.DataError` that says what is wrong
and what to do.
"""
from __future__ import annotations

import codecs
import math
import os
from pathlib import Path
from typing import IO, Iterable

import numpy as np
import pandas as pd

from core.data.dataset import Dataset, infer_column_types
from core.data.identifiers import propose_identifiers
from core.data.record_reader import MIN_ROWS, split_records, text_records
from core.limits import MAX_BYTES, MAX_COLUMNS, MAX_UPLOAD_MB  # the upload limits' home
from core.validation import DataError

__all__ = [
    "load_csv", "frame_to_dataset", "export_frame", "MIN_ROWS", "MAX_ABS_VALUE", "MAX_BYTES",
    "MAX_UPLOAD_MB", "MAX_COLUMNS",
]

#: Larger magnitudes overflow the squares and products the methods compute.
MAX_ABS_VALUE = 1e15
#: A text column becomes numeric when at least this share of its filled cells parse as
#: numbers; the other cells become missing, with a note.
NUMERIC_SHARE = 0.90
_SHOWN = {"\t": "tab", ";": "';'", "|": "'|'"}
_NA_TOKENS = ["", "?", "NA", "N/A", "nan", "NaN", "null"]
_EMPTY_FILE = "The file is empty; choose a CSV file with a header row and data rows."
_TOO_BIG = (
    "The file is larger than the upload limit of {mb} MB; keep fewer rows or columns, or "
    "split it."
)


def _read_bytes(src: str | os.PathLike | bytes | IO, limit: int | None | str = "upload") -> tuple[bytes, str]:
    limit = MAX_BYTES if limit == "upload" else limit
    cap = math.inf if limit is None else limit
    if isinstance(src, (bytes, bytearray, memoryview)):
        if len(src) > cap:
            raise DataError(_TOO_BIG.format(mb=MAX_UPLOAD_MB))
        return bytes(src), "uploaded data"
    if isinstance(src, (str, os.PathLike)):
        path = Path(src)
        if not path.exists():
            raise DataError(f"No file at {path}; check the path.")
        if path.is_dir():
            raise DataError(f"{path} is a folder; give the path of a CSV file inside it.")
        if path.stat().st_size > cap:
            raise DataError(_TOO_BIG.format(mb=MAX_UPLOAD_MB))
        return path.read_bytes(), path.stem
    if hasattr(src, "read"):
        data = src.read() if limit is None else src.read(limit + 1)
        if isinstance(data, str):
            data = data.encode("utf-8")
        if len(data) > cap:
            raise DataError(_TOO_BIG.format(mb=MAX_UPLOAD_MB))
        name = Path(getattr(src, "name", "uploaded data")).stem
        return data, name
    raise TypeError(
        f"src must be a path, bytes or a file-like object, got {type(src).__name__}."
    )


def _blank(raw: bytes) -> bool:
    """Whether ``raw`` holds nothing but ASCII whitespace (``not raw.strip()`` without
    its full-size copy)."""
    return not raw or raw.isspace()


def _utf16_without_bom(head: bytes) -> str | None:
    """'utf-16-le' / 'utf-16-be' when every other byte of ``head`` is NUL (ASCII text)."""
    head = head[: len(head) // 2 * 2]
    if len(head) < 8:
        return None
    if head[1::2].count(0) >= 0.9 * (len(head) // 2) and head[0::2].count(0) == 0:
        return "utf-16-le"
    if head[0::2].count(0) >= 0.9 * (len(head) // 2) and head[1::2].count(0) == 0:
        return "utf-16-be"
    return None


def _coerce_numeric(frame: pd.DataFrame, notes: list[str]) -> pd.DataFrame:
    """Text columns that are mostly numbers become numeric (the rest missing, noted).

    Integer columns stay integers (``int64``; with missing cells ``float64`` in memory,
    written back as integers by :func:`export_frame`).
    """
    out = {}
    for col in frame.columns:
        s = frame[col]
        if pd.api.types.is_bool_dtype(s):
            out[col] = s.map({True: "True", False: "False"})  # a category, as typed
            continue
        if pd.api.types.is_numeric_dtype(s):
            out[col] = s
            continue
        stripped = s.astype(str).where(s.notna()).str.strip()
        stripped = stripped.mask(stripped.isin(_NA_TOKENS))
        filled = stripped.dropna()
        parsed = pd.to_numeric(filled, errors="coerce")
        share = parsed.notna().mean() if len(filled) else 0.0
        if len(filled) and share >= NUMERIC_SHARE:
            bad = filled[parsed.isna()]
            if len(bad):
                examples = ", ".join(repr(v) for v in bad.unique()[:3])
                notes.append(
                    f"Column '{col}' is numeric but {len(bad):,} of its {len(filled):,} filled "
                    f"cell(s) are not numbers ({examples}); they were treated as missing."
                )
            out[col] = pd.to_numeric(stripped, errors="coerce")
        else:
            out[col] = stripped
    # the columns as they are (numbers stay views of the parsed blocks): copying them into
    # one block per type doubled the table for a moment (35 MB for a 47 MB file)
    return pd.DataFrame(out, index=frame.index, copy=False)


def export_frame(frame: pd.DataFrame) -> pd.DataFrame:
    """``frame`` for writing out: float columns holding only whole numbers (integer
    columns that had missing cells) become nullable ``Int64``, so ``7`` stays ``7``, not
    ``7.0``. Other columns are shared, not copied."""
    out = {}
    for col in frame.columns:
        s = frame[col]
        if pd.api.types.is_float_dtype(s) and s.notna().any():
            values = s.to_numpy()
            finite = values[~np.isnan(values)]
            if (
                np.isfinite(finite).all()
                and np.abs(finite).max() < 2**53
                and np.array_equal(finite, np.round(finite))
            ):
                out[col] = s.astype("Int64")
                continue
        out[col] = s
    return pd.DataFrame(out, index=frame.index)


def _check_values(frame: pd.DataFrame, numeric: Iterable[str], notes: list[str]) -> pd.DataFrame:
    """Infinite values and magnitudes past :data:`MAX_ABS_VALUE` become missing cells (noted):
    one record's value never refuses the file."""
    out = {}
    for col in frame.columns:
        s = frame[col]
        if col in set(numeric):
            values = s.to_numpy(dtype=float)
            bad = ~np.isfinite(values) & ~np.isnan(values) | (np.abs(np.nan_to_num(values)) > MAX_ABS_VALUE)
            if bad.any():
                notes.append(f"Column '{col}' has {int(bad.sum())} infinite or too large value(s) (past "
                             f"{MAX_ABS_VALUE:.0e}); they were read as missing.")
                s = pd.Series(np.where(bad, np.nan, values), index=s.index)
        out[col] = s
    return pd.DataFrame(out, index=frame.index, copy=False)


def _check_frame_size(frame: pd.DataFrame) -> None:
    """Refuse a frame with no columns, no rows or fewer than :data:`MIN_ROWS` rows."""
    if frame.shape[1] == 0:
        raise DataError("The data has no columns.")
    if len(frame) == 0:
        raise DataError("The data has a header but no rows; add data rows below the header.")
    if len(frame) < MIN_ROWS:
        raise DataError(
            f"The data has only {len(frame)} row(s); the methods need at least {MIN_ROWS}."
        )


def _with_clean_column_names(
    frame: pd.DataFrame, label: str | None, sensitive: tuple[str, ...]
) -> pd.DataFrame:
    """A shallow copy of ``frame`` with stripped text column names, checked to be unique
    and to include the label and sensitive columns."""
    frame = frame.copy(deep=False)  # the columns are replaced below, never edited in place
    frame.columns = [str(c).strip() for c in frame.columns]
    if frame.columns.duplicated().any():
        dups = sorted(set(frame.columns[frame.columns.duplicated()]))
        raise DataError(
            f"Column name(s) {', '.join(repr(d) for d in dups)} appear more than once; "
            "give every column its own name."
        )
    for role_col in ([label] if label else []) + list(sensitive):
        if role_col not in frame.columns:
            raise DataError(f"There is no column '{role_col}' in the data.")
    return frame


def _usable_columns(
    frame: pd.DataFrame, label: str | None, sensitive: tuple[str, ...], notes: list[str]
) -> list[str]:
    """Every column: an empty or constant one is kept with a note (which columns a table has
    is the header's, never its values'); an empty label or sensitive column is an error."""
    for col in frame.columns:
        s = frame[col]
        protected = col == label or col in sensitive
        if s.isna().all():
            if protected:
                raise DataError(f"Column '{col}' is empty; choose another column for its role.")
            notes.append(f"Column '{col}' is empty in every row (kept: which columns a table has "
                         "comes from its header, not its values).")
        elif s.nunique(dropna=True) < 2 and not protected:
            notes.append(f"Column '{col}' has a single value (kept).")
    return list(frame.columns)


def _without_empty_rows(frame: pd.DataFrame, notes: list[str]) -> pd.DataFrame:
    """``frame`` as it is: an all-missing row is a record (n is the number of data lines, and
    dropping it would let one record's content change n); noted."""
    n_empty = int(frame.isna().all(axis=1).sum())
    if n_empty:
        notes.append(f"{n_empty} row(s) are empty in every column; each is kept as a record with "
                     "every value missing.")
    return frame


def frame_to_dataset(
    frame: pd.DataFrame,
    *,
    label: str | None = None,
    sensitive: Iterable[str] = (),
    name: str = "dataset",
    notes: Iterable[str] = (),
    identifiers: Iterable[str] | None = None,
) -> Dataset:
    """Validate a frame and wrap it into a :class:`Dataset` (the checks of :func:`load_csv`).

    Empty and constant columns are kept with a note (an empty label or sensitive column is an
    error); infinite or huge values become missing with a note. Identifier columns
    (row numbers, IDs, keys: :func:`core.data.identifiers.detect_identifiers`) are kept in
    the frame with the role "identifier" and a note each, unless ``identifiers`` names them
    (a list, possibly empty: those columns and no detection).
    """
    if not isinstance(frame, pd.DataFrame):
        raise TypeError(f"frame must be a pandas DataFrame, got {type(frame).__name__}.")
    notes = list(notes)
    sensitive = tuple(sensitive)
    _check_frame_size(frame)
    frame = _with_clean_column_names(frame, label, sensitive)
    frame = _coerce_numeric(frame, notes)
    keep = _usable_columns(frame, label, sensitive, notes)
    frame = frame[keep].reset_index(drop=True)
    numeric, categorical = infer_column_types(frame)
    frame = _check_values(frame, numeric, notes)
    frame = _without_empty_rows(frame, notes)
    if identifiers is None:
        found = propose_identifiers(frame, exclude=(label, *sensitive))
        for col, why in found.items():
            notes.append(f"Column '{col}' has {why}: it is marked as an identifier, so no method "
                         "uses it as a feature, synthesizes, attacks or publishes it (the Data page "
                         "can change that).")
        identifiers = tuple(found)
    elif isinstance(identifiers, str):
        raise TypeError("identifiers must be a list of column names, not one string.")
    return Dataset(
        frame=frame,
        label=label,
        sensitive=sensitive,
        numeric=numeric,
        categorical=categorical,
        name=name,
        notes=tuple(notes),
        identifiers=tuple(identifiers),
    )


def _check_max_rows(max_rows: int | None) -> None:
    """Refuse a ``max_rows`` that is not None or an integer of at least :data:`MIN_ROWS`."""
    if max_rows is not None and (isinstance(max_rows, bool) or not isinstance(max_rows, int)):
        raise TypeError("max_rows must be an integer or None.")
    if max_rows is not None and max_rows < MIN_ROWS:
        raise ValueError(f"max_rows must be at least {MIN_ROWS}, got {max_rows}.")


def _transcode(raw: bytes, notes: list[str]) -> bytes:
    """UTF-8 bytes of ``raw``: UTF-16 (a byte-order mark, or every other byte NUL in the header
    line) is decoded and re-encoded; a header line with a NUL otherwise is binary. Both are
    decided by the header's bytes (public), never by a record's."""
    head = raw[:4096].split(b"\n", 1)[0] if not raw.startswith((codecs.BOM_UTF16_LE, codecs.BOM_UTF16_BE)) else raw[:4096]
    utf16 = "utf-16" if raw.startswith((codecs.BOM_UTF16_LE, codecs.BOM_UTF16_BE)) else _utf16_without_bom(raw[:4096])
    if utf16:
        notes.append("The file is UTF-16 text; it was read as such.")
        return raw.decode(utf16, errors="replace").encode("utf-8")
    if b"\x00" in head:
        raise DataError(
            "This file holds binary data (for example a spreadsheet or a zip), not text; "
            "save it as CSV and upload that."
        )
    return raw


def _renamed(header: list[str], notes: list[str]) -> list[str]:
    """Header names made unique (``a``, ``a.1``, ...), each repeat noted; an empty name is
    ``Unnamed: <position>``, as pandas names it."""
    seen: dict[str, int] = {}
    out = []
    for i, h in enumerate(header):
        h = h or f"Unnamed: {i}"
        k = seen.get(h, 0)
        seen[h] = k + 1
        out.append(h if k == 0 else f"{h}.{k}")
    for h, k in seen.items():
        if k > 1:
            copies = [f"{h}.{i}" for i in range(1, k)]
            notes.append(f"Column name '{h}' appears {k} times; the repeats were renamed "
                         f"{', '.join(repr(c) for c in copies)}.")
    return out


def _parse(raw: bytes, *, max_rows: int | None, notes: list[str]) -> pd.DataFrame:
    """The file as a frame of text cells, one record per data line (:func:`text_records`):
    an empty line is a record of missing cells, a line with a quote that is never closed
    ends with itself, a line with more cells than the header has its extra cells ignored and
    one with fewer has the rest missing. Only the header (public) or n can refuse the file."""
    names, columns, delimiter, legacy, width = text_records(raw, max_columns=MAX_COLUMNS, max_rows=max_rows)
    if not any(names) and len(names) < 2:
        raise DataError("The file has no header row; the first line must name the columns.")
    if delimiter != ",":
        notes.append(f"Columns are separated by {_SHOWN[delimiter]}; read accordingly.")
    if width > MAX_COLUMNS:
        notes.append(f"The file has {width:,} columns; only the first {MAX_COLUMNS} were read.")
    if legacy:
        notes.append(f"{legacy:,} line(s) are not UTF-8; each was read as cp1252 on its own.")
    names = _renamed(names, notes)
    frame = pd.DataFrame({n: pd.Series(c, dtype=object) for n, c in zip(names, columns)})
    text = frame.apply(lambda col: col.str.strip())
    return frame.mask(text.isin(_NA_TOKENS))


def load_csv(
    src: str | os.PathLike | bytes | IO,
    *,
    label: str | None = None,
    sensitive: Iterable[str] = (),
    max_rows: int | None = None,
    name: str | None = None,
    max_bytes: int | None | str = "upload",
) -> Dataset:
    """Read a CSV file (path, bytes or file object) into a validated :class:`Dataset`.

    Parameters
    ----------
    src : path, bytes or file-like
        The CSV, at most :data:`MAX_BYTES`. The delimiter (``,`` ``;`` tab ``|``) and the
        encoding (UTF-8, UTF-16 with or without BOM, cp1252, latin-1) are detected.
        Columns past :data:`MAX_COLUMNS` are left out (noted); repeated column names are
        renamed (noted); text columns that are at least 90% numbers become numeric, the
        rest of their cells missing (noted).
    label : str, optional
        Column to predict.
    sensitive : iterable of str
        Columns to protect.
    max_rows : int, optional
        Read at most this many data rows (a note says when the file was longer).
    name : str, optional
        Display name; defaults to the file name.
    max_bytes : int, None or "upload"
        The largest file read: ``"upload"`` (default) is the browser's upload limit,
        :data:`MAX_BYTES`; None reads a file of any size (the command line's large tables).

    Raises
    ------
    DataError
        With one sentence saying what is wrong and what to do.
    """
    _check_max_rows(max_rows)
    raw, default_name = _read_bytes(src, max_bytes)
    notes: list[str] = []
    if _blank(raw):
        raise DataError(_EMPTY_FILE)
    raw = _transcode(raw, notes)
    if _blank(raw):
        raise DataError(_EMPTY_FILE)
    n_lines = len(split_records(raw)[1])
    if max_rows is not None and n_lines > max_rows:
        notes.append(f"Only the first {max_rows:,} rows were read.")
    frame = _parse(raw, max_rows=max_rows, notes=notes)
    if frame.shape[1] == 1 and len(frame) and any(d in frame.columns[0] for d in " :"):
        notes.append(
            "Only one column was found; if the file uses another separator, save it as "
            "comma-separated."
        )
    return frame_to_dataset(
        frame, label=label, sensitive=sensitive, name=name or default_name, notes=notes
    )
