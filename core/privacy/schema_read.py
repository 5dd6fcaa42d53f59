"""Reading a CSV file by its public schema: one data line, one record; each cell by its declared kind.

Under the project's relation (``docs/privacy.md``, "From the file's bytes") a release
depends on the file, not on a frame someone made of it, so the reading itself must let one
record change only its own cells. :func:`read_csv_by_schema` does that:

* the **header line** is public and fixed: it names the columns and is matched to the
  schema (a column the schema lists and the header lacks, or a repeated name, is refused:
  both are facts of the public header, not of any record);
* **each data line is one record**, and ``n`` is the number of data lines whatever they
  hold: an empty line is a record whose every cell is missing, nothing is skipped or
  dropped, and a file that ends with a line break has no record after it;
* a line is split into cells on its own: a quote that is not closed ends with the line, and
  a line break inside quotes ends the record (a declared schema reads line by line, so no
  record can swallow the next). Cells past the header's width are ignored; missing cells
  are missing. A line longer than :data:`~core.data.record_reader.MAX_LINE_BYTES` is cut there (its later cells are
  missing);
* each line is decoded on its own with the file's encoding (declared, or taken from the
  header line alone: UTF-8 when the header decodes as UTF-8, else cp1252); a byte that does
  not decode becomes U+FFFD in that record's cell only;
* the delimiter is declared, or taken from the header line alone (the candidate that
  splits it into names covering the schema);
* a **numeric** cell is a number or missing (text, infinities and :data:`~core.data.record_reader.NA_TOKENS` are
  missing), clipped to the declared bounds; a **categorical** cell is its declared category
  matched by :func:`~core.privacy.schema_columns.canonical` (whitespace stripped, numbers as
  numbers, case kept), :data:`~core.privacy.schema_columns.OTHER` when it matches none, or
  missing when empty or a missing token that is not itself a category; an **identifier**
  cell is kept as text and never used.

Nothing refuses the file because of what one record holds: the refusals name the header,
the number of lines (public) or the schema.
"""
from __future__ import annotations

import os
from typing import IO, Iterable

from core.data.csv_loader import _read_bytes
from core.data.dataset import MAX_LABEL_CLASSES, Dataset
from core.data.record_reader import ColumnRead, read_records
from core.privacy.schema import PublicSchema
from core.privacy.schema_columns import OTHER
from core.validation import DataError

__all__ = ["read_csv_by_schema", "column_reads"]


def column_reads(schema: PublicSchema) -> list[ColumnRead]:
    """How each column of ``schema`` is read (:class:`core.data.record_reader.ColumnRead`)."""
    return [ColumnRead(c.name, c.kind, c.lower, c.upper, c.categories) for c in schema.columns]


def _check_roles(schema: PublicSchema, label: str | None, sensitive: tuple[str, ...]) -> None:
    """Roles checked against the schema (public), never against the rows."""
    for role, col in [("label", label), *[("sensitive column", s) for s in sensitive]]:
        if col is None:
            continue
        if col not in schema:
            raise DataError(f"The {role} '{col}' is not in the schema.")
        if schema[col].kind != "categorical" and role == "label":
            raise DataError(f"The label '{col}' must be declared categorical in the schema.")
        if schema[col].kind == "identifier":
            raise DataError(f"The {role} '{col}' is an identifier in the schema.")
    if label is not None and len(schema[label].categories) > MAX_LABEL_CLASSES:
        raise DataError(f"The schema declares {len(schema[label].categories)} classes for the label "
                        f"'{label}'; at most {MAX_LABEL_CLASSES} are supported.")


def read_csv_by_schema(
    src: str | os.PathLike | bytes | IO,
    schema: PublicSchema,
    *,
    label: str | None | type(...) = ...,
    sensitive: Iterable[str] | type(...) = ...,
    name: str | None = None,
    encoding: str | None = None,
    delimiter: str | None = None,
    max_rows: int | None = None,
    notes: Iterable[str] = (),
) -> Dataset:
    """A CSV file read record by record into the domain of its public ``schema``.

    Parameters
    ----------
    src : path, bytes or file-like
        The file. No byte limit applies here (a record's line is cut at
        :data:`MAX_LINE_BYTES` instead); the browser's upload limit is the transport's.
    schema : PublicSchema
        The declared (or built-in, or estimated) schema: it alone decides the columns, their
        kinds, categories, bounds and the identifier roles. A column of the header that the
        schema does not list is not read.
    label, sensitive : optional
        The roles; default the schema's. Checked against the schema, never the rows.
    name : str, optional
        Display name (default the file's name, else the schema's).
    encoding, delimiter : str, optional
        Declared; default taken from the header line alone.
    max_rows : int, optional
        Read the first ``max_rows`` records (a public cut: it depends on positions only).
    notes : iterable of str
        Notes to keep beside the ones reading adds.

    Returns
    -------
    Dataset
        Columns in the schema's order, identifiers marked by the schema; numbers as float64
        (missing as NaN), categories as the schema's own values, :data:`OTHER` or missing.

    Raises
    ------
    DataError
        For the header (a column the schema lists is absent, a name repeated), the number of
        lines (fewer than :data:`~core.data.csv_loader.MIN_ROWS` or more than
        :data:`~core.data.record_reader.MAX_RECORDS`), or roles the schema contradicts: never for a record's content.
    """
    if not isinstance(schema, PublicSchema):
        raise TypeError(f"schema must be a PublicSchema, got {type(schema).__name__}.")
    raw, default_name = _read_bytes(src, None)
    label = schema.label if label is ... else label
    sensitive = tuple(schema.sensitive if sensitive is ... else sensitive)
    _check_roles(schema, label, sensitive)
    frame, ignored = read_records(raw, column_reads(schema), encoding=encoding, delimiter=delimiter,
                                  max_rows=max_rows)
    notes = list(notes) + [f"Read by its public schema: {len(frame):,} records, one per data line; "
                           "cells that do not fit their declared kind are missing or "
                           f"'{OTHER}'."]
    if ignored:
        notes.append(f"{len(ignored)} column(s) of the header are not in the schema and were not read.")
    return Dataset(
        frame=frame, label=label, sensitive=sensitive, numeric=tuple(schema.numeric),
        categorical=tuple(schema.categorical) + tuple(schema.identifiers),
        name=name or (default_name if default_name != "uploaded data" else schema.name or "dataset"),
        notes=tuple(notes), identifiers=tuple(schema.identifiers), declared=True,
    )


def load_named_by_schema(dataset: str, *, schema: PublicSchema | None, csv_name: str | None,
                         data_dir: str | os.PathLike | None, csv: str | os.PathLike | None,
                         verb: str) -> Dataset:
    """The dataset a config names (:func:`core.data.config_files.load_named`), where a CSV
    with a declared ``schema`` is read by it (:func:`read_csv_by_schema`).

    The schema then decides the columns, their kinds and the identifiers: nothing is
    inferred across rows and no column is dropped because of its values. Without a schema
    the CSV is read as an upload is (types inferred, identifiers detected): a draft, whose
    releases say they are not differentially private. Samples and the public datasets are
    read by their own shipped schemas either way.
    """
    from core.data.config_files import PUBLIC, load_named
    from core.data.samples import SAMPLES

    if schema is None or dataset in SAMPLES or dataset in PUBLIC or csv is None:
        return load_named(dataset, csv_name=csv_name, data_dir=data_dir, csv=csv, verb=verb)
    return read_csv_by_schema(csv, schema, label=None, sensitive=(), name=csv_name)
