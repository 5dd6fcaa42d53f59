"""Reading a user's CSV into a :class:`Dataset`, turning every bad input into one sentence.

Anything that can be repaired without changing the meaning of the data is repaired and
reported in ``Dataset.notes`` (another delimiter, a legacy encoding, an empty column);
anything that cannot raises :class:`core.validation.DataError` that says what is wrong
and what to do.
"""
from __future__ import annotations

import csv
import io
import os
from pathlib import Path
from typing import IO, Iterable

import numpy as np
import pandas as pd

from core.data.dataset import Dataset, infer_column_types
from core.validation import DataError

__all__ = ["load_csv", "frame_to_dataset", "MIN_ROWS", "MAX_ABS_VALUE", "MAX_BYTES"]

#: Fewer rows than this cannot support any of the methods.
MIN_ROWS = 10
#: Larger magnitudes overflow the squares and products the methods compute.
MAX_ABS_VALUE = 1e15
#: Largest file read (the dashboard's upload limit is set to the same size).
MAX_BYTES = 200 * 1024 * 1024
#: A column is numeric when at least this share of its filled cells parse as numbers.
NUMERIC_SHARE = 0.95
_DELIMITERS = [",", ";", "\t", "|"]
_ENCODINGS = ["utf-8-sig", "cp1252", "latin-1"]


def _read_bytes(src: str | os.PathLike | bytes | IO) -> tuple[bytes, str]:
    if isinstance(src, (bytes, bytearray)):
        return bytes(src), "uploaded data"
    if isinstance(src, (str, os.PathLike)):
        path = Path(src)
        if not path.exists():
            raise DataError(f"No file at {path}; check the path.")
        if path.is_dir():
            raise DataError(f"{path} is a folder; give the path of a CSV file inside it.")
        if path.stat().st_size > MAX_BYTES:
            raise DataError(
                f"{path.name} is larger than {MAX_BYTES // 2**20} MB; pass max_rows or "
                "split the file."
            )
        return path.read_bytes(), path.stem
    if hasattr(src, "read"):
        data = src.read(MAX_BYTES + 1)
        if isinstance(data, str):
            data = data.encode("utf-8")
        if len(data) > MAX_BYTES:
            raise DataError(f"The file is larger than {MAX_BYTES // 2**20} MB; split it.")
        name = Path(getattr(src, "name", "uploaded data")).stem
        return data, name
    raise TypeError(
        f"src must be a path, bytes or a file-like object, got {type(src).__name__}."
    )


def _decode(raw: bytes, notes: list[str]) -> str:
    if b"\x00" in raw[:65536]:
        raise DataError(
            "This file holds binary data (for example a spreadsheet or a zip), not text; "
            "save it as CSV and upload that."
        )
    for enc in _ENCODINGS:
        try:
            text = raw.decode(enc)
        except UnicodeDecodeError:
            continue
        if enc != "utf-8-sig":
            notes.append(f"The file is not UTF-8; it was read as {enc}.")
        return text
    raise DataError("The file's text encoding is not recognised; save it as UTF-8 CSV.")


def _sniff_delimiter(text: str) -> str:
    sample = "\n".join(text.splitlines()[:50])
    try:
        return csv.Sniffer().sniff(sample, delimiters="".join(_DELIMITERS)).delimiter
    except csv.Error:
        first = text.splitlines()[0] if text else ""
        counts = {d: first.count(d) for d in _DELIMITERS}
        best = max(counts, key=counts.get)
        return best if counts[best] > 0 else ","


def _coerce_numeric(frame: pd.DataFrame, notes: list[str]) -> pd.DataFrame:
    out = {}
    for col in frame.columns:
        s = frame[col]
        if pd.api.types.is_numeric_dtype(s) or pd.api.types.is_bool_dtype(s):
            out[col] = s
            continue
        stripped = s.astype(str).where(s.notna()).str.strip()
        stripped = stripped.mask(stripped == "")
        filled = stripped.dropna()
        parsed = pd.to_numeric(filled, errors="coerce")
        share = parsed.notna().mean() if len(filled) else 0.0
        if len(filled) and share >= NUMERIC_SHARE:
            bad = filled[parsed.isna()]
            if len(bad):
                examples = ", ".join(repr(v) for v in bad.unique()[:3])
                notes.append(
                    f"Column '{col}': {len(bad)} non-numeric value(s) ({examples}) "
                    "were treated as missing."
                )
            out[col] = pd.to_numeric(stripped, errors="coerce").astype(float)
        else:
            out[col] = stripped
    return pd.DataFrame(out, index=frame.index)


def _check_values(frame: pd.DataFrame, numeric: Iterable[str]) -> None:
    for col in numeric:
        values = frame[col].to_numpy(dtype=float)
        n_inf = int(np.isinf(values).sum())
        if n_inf:
            raise DataError(
                f"Column '{col}' contains {n_inf} infinite value(s); replace them with "
                "numbers or leave those cells empty."
            )
        finite = values[np.isfinite(values)]
        if finite.size and np.abs(finite).max() > MAX_ABS_VALUE:
            raise DataError(
                f"Column '{col}' holds values too large to analyse (up to "
                f"{np.abs(finite).max():.3g}); values must stay below {MAX_ABS_VALUE:.0e} "
                "in size, so rescale the column (for example to thousands or millions)."
            )


def frame_to_dataset(
    frame: pd.DataFrame,
    *,
    label: str | None = None,
    sensitive: Iterable[str] = (),
    name: str = "dataset",
    notes: Iterable[str] = (),
) -> Dataset:
    """Validate a frame and wrap it into a :class:`Dataset` (the checks of :func:`load_csv`).

    Empty and constant columns are dropped with a note (unless they are the label or
    sensitive, which is an error); identifier-like text columns (a distinct value in every
    row) are dropped with a note; infinite or huge values are errors.
    """
    if not isinstance(frame, pd.DataFrame):
        raise TypeError(f"frame must be a pandas DataFrame, got {type(frame).__name__}.")
    notes = list(notes)
    sensitive = tuple(sensitive)
    if frame.shape[1] == 0:
        raise DataError("The data has no columns.")
    if len(frame) == 0:
        raise DataError("The data has a header but no rows; add data rows below the header.")
    if len(frame) < MIN_ROWS:
        raise DataError(
            f"The data has only {len(frame)} row(s); the methods need at least {MIN_ROWS}."
        )
    frame = frame.copy()
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
    frame = _coerce_numeric(frame, notes)
    keep = []
    for col in frame.columns:
        s = frame[col]
        protected = col == label or col in sensitive
        if s.isna().all():
            if protected:
                raise DataError(f"Column '{col}' is empty; choose another column for its role.")
            notes.append(f"Column '{col}' is empty and was left out.")
            continue
        if s.nunique(dropna=True) < 2 and not protected:
            notes.append(f"Column '{col}' has a single value and was left out.")
            continue
        if (
            not protected
            and not pd.api.types.is_numeric_dtype(s)
            and s.nunique(dropna=True) == len(s)
            and len(s) > MIN_ROWS
        ):
            notes.append(f"Column '{col}' has a different value in every row (an identifier?) and was left out.")
            continue
        keep.append(col)
    if not keep:
        raise DataError("No usable column is left: every column is empty or constant.")
    frame = frame[keep].reset_index(drop=True)
    numeric, categorical = infer_column_types(frame)
    _check_values(frame, numeric)
    if frame.isna().all(axis=1).any():
        n_empty = int(frame.isna().all(axis=1).sum())
        frame = frame[~frame.isna().all(axis=1)].reset_index(drop=True)
        notes.append(f"{n_empty} empty row(s) were left out.")
        if len(frame) < MIN_ROWS:
            raise DataError(
                f"Only {len(frame)} non-empty row(s) remain; the methods need at least {MIN_ROWS}."
            )
    return Dataset(
        frame=frame,
        label=label,
        sensitive=sensitive,
        numeric=numeric,
        categorical=categorical,
        name=name,
        notes=tuple(notes),
    )


def load_csv(
    src: str | os.PathLike | bytes | IO,
    *,
    label: str | None = None,
    sensitive: Iterable[str] = (),
    max_rows: int | None = None,
    name: str | None = None,
) -> Dataset:
    """Read a CSV file (path, bytes or file object) into a validated :class:`Dataset`.

    Parameters
    ----------
    src : path, bytes or file-like
        The CSV. The delimiter (``,`` ``;`` tab ``|``) and the encoding (UTF-8, cp1252,
        latin-1) are detected.
    label : str, optional
        Column to predict.
    sensitive : iterable of str
        Columns to protect.
    max_rows : int, optional
        Read at most this many data rows (a note says when the file was longer).
    name : str, optional
        Display name; defaults to the file name.

    Raises
    ------
    DataError
        With one sentence saying what is wrong and what to do.
    """
    if max_rows is not None and (isinstance(max_rows, bool) or not isinstance(max_rows, int)):
        raise TypeError("max_rows must be an integer or None.")
    if max_rows is not None and max_rows < MIN_ROWS:
        raise ValueError(f"max_rows must be at least {MIN_ROWS}, got {max_rows}.")
    raw, default_name = _read_bytes(src)
    notes: list[str] = []
    if not raw.strip():
        raise DataError("The file is empty; choose a CSV file with a header row and data rows.")
    text = _decode(raw, notes)
    delimiter = _sniff_delimiter(text)
    if delimiter != ",":
        shown = {"\t": "tab", ";": "';'", "|": "'|'"}[delimiter]
        notes.append(f"Columns are separated by {shown}; read accordingly.")
    try:
        frame = pd.read_csv(
            io.StringIO(text),
            sep=delimiter,
            nrows=None if max_rows is None else max_rows + 1,
            dtype=str,
            keep_default_na=False,
            skipinitialspace=True,
            on_bad_lines="error",
        )
    except pd.errors.EmptyDataError:
        raise DataError("The file has no header row; the first line must name the columns.") from None
    except pd.errors.ParserError as exc:
        raise DataError(
            "The rows do not all have the same number of fields "
            f"({str(exc).strip().splitlines()[-1]}); check the delimiter and quoting."
        ) from None
    if max_rows is not None and len(frame) > max_rows:
        frame = frame.iloc[:max_rows]
        notes.append(f"Only the first {max_rows:,} rows were read.")
    if frame.shape[1] == 1 and len(frame) and any(d in text.splitlines()[0] for d in " :"):
        notes.append(
            "Only one column was found; if the file uses another separator, save it as "
            "comma-separated."
        )
    frame = frame.replace({"?": "", "NA": "", "N/A": "", "nan": "", "NaN": "", "null": ""})
    frame = frame.replace("", np.nan)
    return frame_to_dataset(
        frame, label=label, sensitive=sensitive, name=name or default_name, notes=notes
    )
