"""A public schema as a table to review and edit (the Data page's schema editor).

:func:`schema_frame` lays a schema out one row per column (:data:`TABLE_COLUMNS`);
:func:`edited_columns` reads the user's edits of that table back into new
:class:`~core.privacy.schema_columns.ColumnSchema` entries, declared public, for
:meth:`PublicSchema.with_edits <core.privacy.schema.PublicSchema.with_edits>`.

A numeric entry drafted from the rows (source "read from data") shows **empty** bounds: its
drafted bounds are the rows' exact minimum and maximum, statistics of the private records,
and a table the user edits must neither show them nor invite declaring them (typing one
bound would otherwise declare the other exact extreme). Left empty, the entry stays as it
is; typed, both bounds are declared (docs/design.md section 2.3).
"""
from __future__ import annotations

import numbers
from typing import Any, Mapping

import pandas as pd

from core.privacy.schema_columns import ColumnSchema, _missing

__all__ = ["TABLE_COLUMNS", "schema_frame", "edited_columns"]

#: The columns of :meth:`PublicSchema.to_frame`, the table the Data page edits.
TABLE_COLUMNS = ("column", "kind", "lower", "upper", "categories", "source", "note")


def _shown_bounds(entry: ColumnSchema) -> bool:
    """Whether the table may show ``entry``'s bounds: a number's, unless drafted from the rows
    (then they are the rows' exact minimum and maximum)."""
    return entry.kind == "numeric" and entry.public


def schema_frame(schema: Any) -> pd.DataFrame:
    """One row per column of ``schema``, for review and editing.

    Parameters
    ----------
    schema : PublicSchema
        The schema to lay out.

    Returns
    -------
    pandas.DataFrame
        Columns :data:`TABLE_COLUMNS`: column, kind, lower, upper, categories (joined by
        ", "), source, note. ``lower`` and ``upper`` are empty (NaN) for an entry that is not
        numeric and for a numeric entry read from the data, whose drafted bounds are the
        rows' exact extremes and are never shown.
    """
    rows = []
    for c in schema.columns:
        rows.append({
            "column": c.name,
            "kind": c.kind,
            "lower": c.lower if _shown_bounds(c) else None,
            "upper": c.upper if _shown_bounds(c) else None,
            "categories": ", ".join(str(v) for v in c.categories) if c.kind == "categorical" else "",
            "source": c.source,
            "note": c.note,
        })
    frame = pd.DataFrame(rows, columns=list(TABLE_COLUMNS))
    frame["lower"] = frame["lower"].astype(float)
    frame["upper"] = frame["upper"].astype(float)
    return frame


def _unchanged(row: Mapping[str, Any], entry: ColumnSchema, old: Mapping[str, Any]) -> bool:
    """Nothing that matters for the entry's kind changed in its table row."""
    kind = entry.kind
    return _same_cell(row["kind"], kind) and (
        (kind == "numeric" and _same_cell(row["lower"], old["lower"])
         and _same_cell(row["upper"], old["upper"]))
        or (kind == "categorical" and _same_cell(row["categories"] or "", old["categories"] or ""))
        or kind == "identifier"
    )


def edited_columns(schema: Any, frame: pd.DataFrame) -> dict[str, ColumnSchema]:
    """The entries the user changed in :func:`schema_frame`'s table, by column name.

    A row whose kind, bounds or categories differ from :func:`schema_frame`'s becomes a new
    entry with source "declared"; unchanged rows are left out (a numeric entry read from the
    data whose bounds are left empty stays as it is). Raises TypeError when ``frame``
    is not a DataFrame, ValueError (in one sentence naming the column) for a row that
    names no column of the schema or an edited entry that breaks a rule.
    """
    if not isinstance(frame, pd.DataFrame):
        raise TypeError(f"frame must be a DataFrame, got {type(frame).__name__}.")
    missing = [c for c in ("column", "kind", "lower", "upper", "categories") if c not in frame.columns]
    if missing:
        raise ValueError(f"the schema table needs the column(s) {missing}.")
    current = schema_frame(schema).set_index("column")
    changed: dict[str, ColumnSchema] = {}
    for _, row in frame.iterrows():
        name = row["column"]
        if name not in schema:
            raise ValueError(f"the schema table lists {name!r}, which is not a column of the table.")
        if not _unchanged(row, schema[name], current.loc[name]):
            changed[name] = _edited_entry(schema[name], row)
    return changed


def _same_cell(a: Any, b: Any) -> bool:
    """Two table cells hold the same thing (missing equals missing, numbers compared as floats)."""
    if _missing(a) and _missing(b):
        return True
    if _missing(a) or _missing(b):
        return False
    if isinstance(a, numbers.Real) and isinstance(b, numbers.Real):
        return float(a) == float(b)
    return str(a).strip() == str(b).strip()


def _parse_categories(text: Any, old: tuple | None) -> tuple:
    if _missing(text) or not str(text).strip():
        return ()
    known = {str(c): c for c in (old or ())}
    numeric_list = bool(old) and all(isinstance(c, numbers.Real) and not isinstance(c, bool) for c in old)
    out = []
    for token in (t.strip() for t in str(text).split(",")):
        if not token:
            continue
        if token in known:
            out.append(known[token])
        elif numeric_list:
            try:
                value = float(token)
            except ValueError:
                out.append(token)
            else:
                out.append(int(value) if value.is_integer() else value)
        else:
            out.append(token)
    return tuple(out)


def _edited_entry(old: ColumnSchema, row: Mapping[str, Any]) -> ColumnSchema:
    """The entry a user's edited table row describes (source "declared")."""
    kind = str(row["kind"]).strip() if not _missing(row["kind"]) else ""
    note = "edited by the user on the Data page"
    try:
        if kind == "numeric":
            lo, hi = row["lower"], row["upper"]
            if _missing(lo) or _missing(hi):
                raise ValueError(f"numeric column '{old.name}' needs a lower and an upper bound"
                                 + ("" if old.public else " (type both: bounds read from your data "
                                    "are never filled in)") + ".")
            return ColumnSchema(old.name, "numeric", lower=float(lo), upper=float(hi),
                                integer=old.integer if old.kind == "numeric" else False,
                                source="declared", note=note)
        if kind == "categorical":
            cats = _parse_categories(row["categories"], old.categories)
            if not cats:
                raise ValueError(f"categorical column '{old.name}' needs its list of categories "
                                 "(separated by commas).")
            return ColumnSchema(old.name, "categorical", categories=cats, source="declared", note=note)
        return ColumnSchema(old.name, kind, source="declared", note=note)
    except TypeError as exc:
        raise ValueError(f"the entry of '{old.name}' is not valid: {exc}") from None

