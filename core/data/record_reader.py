"""Reading a CSV file record by record: one data line, one record; each cell by its declared kind.

Under the project's relation (``docs/privacy.md``, "From the file's bytes") a release
depends on the file, not on a frame someone made of it, so the reading itself must let one
record change only its own cells. :func:`read_records` does that (and
:func:`core.privacy.schema_read.read_csv_by_schema` reads a file by its public schema with it):

* the **header line** is public and fixed: it names the columns and is matched to the
  schema (a column the schema lists and the header lacks, or a repeated name, is refused:
  both are facts of the public header, not of any record);
* **each data line is one record**, and ``n`` is the number of data lines whatever they
  hold: an empty line is a record whose every cell is missing, nothing is skipped or
  dropped, and a file that ends with a line break has no record after it;
* a line is split into cells on its own: a quote that is not closed ends with the line, and
  a line break inside quotes ends the record (a declared schema reads line by line, so no
  record can swallow the next). Cells past the header's width are ignored; missing cells
  are missing. A line longer than :data:`MAX_LINE_BYTES` is cut there (its later cells are
  missing);
* each line is decoded on its own: with the declared encoding, else as UTF-8 when the line
  is UTF-8 and as cp1252 when it is not (a legacy file), so one record's bytes decide its
  own decoding only; a byte that does not decode becomes U+FFFD in that record's cell;
* the delimiter is declared, or taken from the header line alone (the candidate that
  splits it into names covering the schema);
* a **numeric** cell is a number or missing (text, infinities and :data:`NA_TOKENS` are
  missing), clipped to the declared bounds; a **categorical** cell is its declared category
  matched by :func:`~core.data.categories.canonical` (whitespace stripped, numbers as
  numbers, case kept), :data:`~core.data.categories.OTHER` when it matches none, or
  missing when empty or a missing token that is not itself a category; an **identifier**
  cell is kept as text and never used.

Nothing refuses the file because of what one record holds: the refusals name the header,
the number of lines (public) or the schema.
"""
from __future__ import annotations

import csv
from dataclasses import dataclass

import numpy as np
import pandas as pd

from core.data.categories import match_categories
from core.validation import DataError, check_choice

__all__ = ["ColumnRead", "read_records", "split_records", "text_records", "header_delimiter", "MIN_ROWS",
           "MAX_LINE_BYTES", "MAX_RECORDS", "NA_TOKENS", "DELIMITERS", "ENCODINGS"]

#: Fewer records than this cannot support any of the methods (n is public: a refusal by it reads no record).
MIN_ROWS = 10
#: A record's line is cut after this many bytes (its later cells are missing): one record can
#: then add at most this much to what is read, whatever it holds.
MAX_LINE_BYTES = 1 << 16
#: The most data lines read (n is public, so this refusal reads no record).
MAX_RECORDS = 5_000_000
#: Cell texts read as missing (unless the column declares one of them as a category).
NA_TOKENS = frozenset({"", "?", "NA", "N/A", "nan", "NaN", "null"})
#: The delimiters a header line can be split on.
DELIMITERS = (",", ";", "\t", "|")
#: The encodings a schema may declare (one byte per ASCII character, so lines split on b"\n").
ENCODINGS = ("utf-8", "cp1252", "latin-1")


def split_records(raw: bytes) -> tuple[bytes, list[bytes]]:
    """The header line and the data lines of ``raw`` (each without its line break).

    A trailing ``\\r`` is taken off each line; a final line break ends the last record, it
    does not start an empty one. A UTF-8 byte-order mark before the header is dropped.
    """
    if raw.startswith(b"\xef\xbb\xbf"):
        raw = raw[3:]
    lines = raw.split(b"\n")
    if lines and lines[-1] == b"":
        lines.pop()
    lines = [ln[:-1] if ln.endswith(b"\r") else ln for ln in lines]
    if not lines:
        raise DataError("The file is empty; it needs a header line naming the columns.")
    return lines[0], lines[1:]


def _encoding(header: bytes, declared: str | None) -> str | None:
    """The declared encoding, else None (each line decoded on its own, :func:`_decode`)."""
    if declared is not None:
        return check_choice(declared, ENCODINGS, name="encoding", kind=str)
    if header.startswith((b"\xff\xfe", b"\xfe\xff")) or b"\x00" in header:
        raise DataError("The header line is UTF-16 or binary: save the file as UTF-8 CSV to read it "
                        "by its schema.")
    return None


def _decode(raw: bytes, encoding: str | None) -> str:
    """One line's text: the declared encoding, else UTF-8, else cp1252 (this line's bytes only)."""
    if encoding is not None:
        return raw.decode(encoding, errors="replace")
    try:
        return raw.decode("utf-8")
    except UnicodeDecodeError:
        return raw.decode("cp1252", errors="replace")


def _cells(line: str, delimiter: str) -> list[str]:
    """One line's cells: split on its own, so an open quote ends with the line."""
    if '"' not in line:
        return line.split(delimiter)
    return next(csv.reader([line], delimiter=delimiter, strict=False), [])


def _header(header: str, wanted: list[str], declared: str | None) -> tuple[str, list[str]]:
    """The delimiter (declared, or the first that splits the header into names covering the
    schema) and the header's names."""
    candidates = [declared] if declared is not None else list(DELIMITERS)
    if declared is not None:
        check_choice(declared, DELIMITERS, name="delimiter", kind=str)
    for d in candidates:
        names = [c.strip() for c in _cells(header, d)]
        if set(wanted) <= set(names):
            repeated = sorted({n for n in names if names.count(n) > 1 and n in wanted})
            if repeated:
                raise DataError(f"The header names the column(s) {repeated} more than once; give "
                                "every column its own name.")
            return d, names
    lacking = [c for c in wanted if c not in [n.strip() for n in _cells(header, candidates[0])]]
    raise DataError(f"The header line lacks the column(s) {lacking[:5]} that the schema lists: the "
                    "schema describes another table, or the file uses another delimiter.")


def _column_cells(lines: list[bytes], encoding: str | None, delimiter: str, positions: list[int]
                  ) -> list[list[str]]:
    """For each position, the cell text of every record (an empty string where a line is short)."""
    rows = [_cells(_decode(raw[:MAX_LINE_BYTES], encoding), delimiter) for raw in lines]
    return [[r[p] if p < len(r) else "" for r in rows] for p in positions]


def _numeric(cells: list[str], lower: float, upper: float) -> np.ndarray:
    """Numbers, clipped to [lower, upper]; anything that is not a finite number is missing."""
    text = pd.Series(cells, dtype=object).str.strip()
    values = pd.to_numeric(text.where(~text.isin(NA_TOKENS)), errors="coerce").to_numpy(dtype=np.float64, copy=True)
    values[~np.isfinite(values)] = np.nan
    return np.clip(values, lower, upper)


def _categorical(cells: list[str], categories: tuple) -> np.ndarray:
    """Declared categories (canonical match), OTHER, or missing (an empty cell, a missing token
    that is not itself a category)."""
    declared = {str(c).strip() for c in categories}
    missing_tokens = NA_TOKENS - declared
    text = [c.strip() for c in cells]
    blanked = ["" if t in missing_tokens else t for t in text]
    return match_categories(blanked, categories, missing=np.nan)


def _frame(specs: list["ColumnRead"], columns: list[list[str]]) -> pd.DataFrame:
    out = {}
    for spec, cells in zip(specs, columns):
        if spec.kind == "numeric":
            out[spec.name] = _numeric(cells, spec.lower, spec.upper)
        elif spec.kind == "categorical":
            out[spec.name] = pd.Series(_categorical(cells, spec.categories), dtype=object)
        else:
            text = pd.Series([c.strip() for c in cells], dtype=object)
            out[spec.name] = text.where(text != "")
    return pd.DataFrame(out)


@dataclass(frozen=True)
class ColumnRead:
    """How one column's cells are read: its name in the header, its kind ("numeric",
    "categorical" or "identifier"), the bounds of a number, the categories of a category."""

    name: str
    kind: str
    lower: float | None = None
    upper: float | None = None
    categories: tuple | None = None


def read_records(raw: bytes, specs: list[ColumnRead], *, header: list[str] | None = None,
                 encoding: str | None = None, delimiter: str | None = None,
                 max_rows: int | None = None) -> tuple[pd.DataFrame, list[str]]:
    """The records of ``raw`` read by ``specs``, and the header's names that were not read.

    ``header`` None: the file's first line is its header (public), else the file has no
    header line and ``header`` names its columns (a fixed public format such as UCI Adult's).
    Raises DataError only for the header, the number of lines or the arguments.
    """
    if header is None:
        first, lines = split_records(raw)
    else:
        first, lines = None, split_records(b"-\n" + raw)[1]
    if max_rows is not None:
        lines = lines[:max_rows]
    if not MIN_ROWS <= len(lines) <= MAX_RECORDS:
        raise DataError(f"The file has {len(lines):,} data line(s); reading needs {MIN_ROWS} to "
                        f"{MAX_RECORDS:,}.")
    enc = _encoding(first if first is not None else b"", encoding)
    wanted = [s.name for s in specs]
    if first is None:
        d, names = (delimiter or ","), list(header)
    else:
        d, names = _header(_decode(first, enc), wanted, delimiter)
    frame = _frame(specs, _column_cells(lines, enc, d, [names.index(c) for c in wanted]))
    return frame, [n for n in names if n not in wanted]


def header_delimiter(header: str) -> str:
    """The delimiter of a file without a schema, from its header line alone: the candidate
    that occurs most often in it (``,`` when none does)."""
    counts = {d: header.count(d) for d in DELIMITERS}
    best = max(DELIMITERS, key=lambda d: counts[d])
    return best if counts[best] > 0 else ","


def text_records(raw: bytes, *, max_columns: int, max_rows: int | None = None
                 ) -> tuple[list[str], list[list[str]], str, int, int]:
    """A file without a schema read as text, record by record: (header names, one list of cell
    texts per header column, the delimiter, how many lines were not UTF-8, how many columns
    the header names in all).

    The same line-by-line rules as :func:`read_records` (each data line one record, split on
    its own, decoded on its own); the header's first ``max_columns`` columns are read, and
    the first ``max_rows`` records. What becomes of each column (its kind) is inferred later
    from all its rows: a draft, read from the data.
    """
    first, lines = split_records(raw)
    if max_rows is not None:
        lines = lines[:max_rows]
    text = _decode(first, _encoding(first, None))
    delimiter = header_delimiter(text)
    names = [c.strip() for c in _cells(text, delimiter)]
    width, names = len(names), names[:max_columns]
    legacy = sum(1 for ln in lines if not _is_utf8(ln))
    return names, _column_cells(lines, None, delimiter, list(range(len(names)))), delimiter, legacy, width


def _is_utf8(raw: bytes) -> bool:
    try:
        raw.decode("utf-8")
    except UnicodeDecodeError:
        return False
    return True

