"""Reading a CSV file by its public schema: one data line, one record; each cell by its declared kind.

Under the project's relation (``docs/privacy.md``, "From the file's bytes") a release
depends on the file, so the reading must let one record change only its own cells:
:func:`read_csv_by_schema` reads each data line as one record and each cell by its
column's kind in ``schema`` (:mod:`core.data.record_reader` says how, rule by rule), marks
the schema's identifiers, and checks the roles against the schema, never the rows.
:func:`load_named_by_schema` is what the command line's configs use (``pux compare``,
``solve``, ``bundle``): a CSV with a declared schema is read by it.
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
    inferred across rows and no column is dropped because of its values. Without a schema,
    or with one that still has entries read from the data (a draft: its releases say they
    are not differentially private either way), the CSV is read as an upload is (types
    inferred, identifiers proposed), which is what the Data page does until every entry is
    public, so a page's config reruns on the same table. Samples and the public datasets are
    read by their own shipped schemas either way.
    """
    from core.data.config_files import PUBLIC, load_named
    from core.data.samples import SAMPLES

    if schema is None or not schema.is_public() or dataset in SAMPLES or dataset in PUBLIC or csv is None:
        return load_named(dataset, csv_name=csv_name, data_dir=data_dir, csv=csv, verb=verb)
    return read_csv_by_schema(csv, schema, label=None, sensitive=(), name=csv_name)
