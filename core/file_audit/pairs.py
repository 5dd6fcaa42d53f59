"""Neighbouring *files*: two CSV byte strings that differ in one data line.

Under the project's relation (``docs/privacy.md``, "From the file's bytes") the header line
is public and fixed, each data line is one record, n is the number of data lines, and a
replaced line is any byte string without a line break. :func:`file_pair` replaces one line;
:func:`file_pairs` builds the pairs that attack each step between the bytes and a release:

* ``junk cell``: a cell that is not of its column's kind (``x`` in a number);
* ``distinct flip``: a column whose values are all distinct gets one repeated value (what an
  identifier detector reads);
* ``label flip``: the label of one record changes class (what a stratified split reads);
* ``new category``: a value no other record holds (what a category list read from the rows
  shows);
* ``out of range``: a number ten times the declared upper bound (what bounds read from the
  rows show);
* ``empty line``: the record's line is empty (what skipping blank lines shifts);
* ``open quote``: a quote that is never closed (what a CSV parser that reads across lines
  lets swallow the next record);
* ``bad bytes``: bytes that are not UTF-8 and a NUL (what a file-wide encoding guess or a
  binary-file check reads).
"""
from __future__ import annotations

import csv
import io
from dataclasses import dataclass

from core.audit.pairs import NeighbouringPair
from core.data.record_reader import split_records
from core.privacy.schema import PublicSchema

__all__ = ["CSVFile", "FilePair", "file_pair", "file_pairs", "KINDS"]

#: The kinds of pair :func:`file_pairs` builds, in order.
KINDS = ("junk cell", "distinct flip", "label flip", "new category", "out of range", "empty line",
         "open quote", "bad bytes")


@dataclass(frozen=True)
class CSVFile:
    """A file's bytes as the auditor takes them: its length is its number of records (data
    lines), which the relation keeps public and equal on both sides of a pair."""

    raw: bytes

    def __len__(self) -> int:
        return len(split_records(self.raw)[1])


@dataclass(frozen=True)
class FilePair:
    """Two files that differ in data line ``line`` (0-based, after the header).

    Attributes
    ----------
    d0, d1 : bytes
        The two files.
    line : int
        The record whose line differs.
    kind : str
        Which step the pair attacks (:data:`KINDS`).
    description : str
        What differs, in words.
    """

    d0: bytes
    d1: bytes
    line: int
    kind: str
    description: str

    def neighbouring(self) -> NeighbouringPair:
        """The pair as :func:`core.audit.auditor.audit` takes it (each side a :class:`CSVFile`)."""
        return NeighbouringPair(CSVFile(self.d0), CSVFile(self.d1), f"{self.kind}: {self.description}")


def _lines(raw: bytes) -> tuple[bytes, list[bytes]]:
    header, lines = split_records(raw)
    if not lines:
        raise ValueError("the file has no data line to replace.")
    return header, lines


def file_pair(raw: bytes, line: int, new_line: bytes, *, kind: str, description: str) -> FilePair:
    """``raw`` and the same file with data line ``line`` replaced by ``new_line``.

    Raises ValueError when ``new_line`` holds a line break (then it would be two records)
    or ``line`` is not a data line.
    """
    if b"\n" in new_line or b"\r" in new_line:
        raise ValueError("a replaced line cannot hold a line break: it would be more than one record.")
    header, lines = _lines(raw)
    if not 0 <= line < len(lines):
        raise ValueError(f"line must be a data line, 0 to {len(lines) - 1}, got {line}.")
    new = list(lines)
    new[line] = new_line
    return FilePair(raw, b"\n".join([header, *new]) + b"\n", line, kind, description)


def _row(raw: bytes, line: int) -> tuple[list[str], list[str]]:
    header, lines = _lines(raw)
    names = next(csv.reader([header.decode("utf-8", "replace")]))
    cells = next(csv.reader([lines[line].decode("utf-8", "replace")]), [])
    return [n.strip() for n in names], cells + [""] * (len(names) - len(cells))


def _with_cell(raw: bytes, line: int, column: str, value: str) -> bytes:
    names, cells = _row(raw, line)
    cells[names.index(column)] = value
    out = io.StringIO()
    csv.writer(out, lineterminator="").writerow(cells)
    return out.getvalue().encode("utf-8")


def _first(schema: PublicSchema, kind: str, *, skip: tuple = ()) -> str | None:
    return next((c.name for c in schema.columns if c.kind == kind and c.name not in skip), None)


def file_pairs(raw: bytes, schema: PublicSchema, *, line: int = 0, distinct: str | None = None
               ) -> list[FilePair]:
    """One pair of each kind of :data:`KINDS` that ``raw`` and ``schema`` allow, at data line ``line``.

    Parameters
    ----------
    raw : bytes
        The file (header line first).
    schema : PublicSchema
        Its declared schema: which columns are numbers, categories and the label.
    line : int
        The record whose line is replaced.
    distinct : str, optional
        A column whose values are all distinct in ``raw`` (the ``distinct flip`` copies
        another record's value into it); without one that pair is not built.
    """
    label = schema.label
    number = _first(schema, "numeric")
    category = _first(schema, "categorical", skip=(label,))
    other = 1 if line == 0 else 0
    pairs = []
    if number is not None:
        pairs.append(file_pair(raw, line, _with_cell(raw, line, number, "x"), kind="junk cell",
                               description=f"'{number}' holds the text 'x'"))
    if distinct is not None:
        value = _row(raw, other)[1][_row(raw, other)[0].index(distinct)]
        pairs.append(file_pair(raw, line, _with_cell(raw, line, distinct, value), kind="distinct flip",
                               description=f"'{distinct}' repeats another record's value"))
    if label is not None:
        names, cells = _row(raw, line)
        current = cells[names.index(label)].strip()
        flipped = next(str(c) for c in schema[label].categories if str(c) != current)
        pairs.append(file_pair(raw, line, _with_cell(raw, line, label, flipped), kind="label flip",
                               description=f"the label '{label}' becomes '{flipped}'"))
    if category is not None:
        pairs.append(file_pair(raw, line, _with_cell(raw, line, category, "zq_new_category"),
                               kind="new category", description=f"'{category}' holds a value no one else has"))
    if number is not None:
        far = repr(10 * schema[number].upper + 1)
        pairs.append(file_pair(raw, line, _with_cell(raw, line, number, far), kind="out of range",
                               description=f"'{number}' is {far}, far above its declared bound"))
    pairs.append(file_pair(raw, line, b"", kind="empty line", description="the record's line is empty"))
    pairs.append(file_pair(raw, line, b'"' + _lines(raw)[1][line], kind="open quote",
                           description="a quote opened before its first cell and never closed"))
    pairs.append(file_pair(raw, line, b"\xff\xfe\x00" + _lines(raw)[1][line], kind="bad bytes",
                           description="bytes that are not UTF-8, and a NUL, before its first cell"))
    return pairs
