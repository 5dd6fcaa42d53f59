"""Spreadsheet formulas in a released CSV: guarded on the way out, unguarded on the way back.

OWASP's rule for CSV injection: text that a spreadsheet would run as a formula (it starts
with ``=``, ``+``, ``-``, ``@``, a tab or a carriage return) gets a leading single quote
in the CSV (:func:`guard_release_formulas`); the sidecar records which columns, and
:func:`unguard_release_formulas` takes the quote off again when a release is read back.
"""
from __future__ import annotations

from typing import Any

import pandas as pd

from core.data.export import FORMULA_PREFIXES

__all__ = ["GUARD_PREFIX", "GUARD_RULE", "guard_release_formulas", "unguard_release_formulas"]

#: The quote put before text a spreadsheet would run as a formula.
GUARD_PREFIX = "'"
GUARD_RULE = ("Text that starts with = + - @, a tab or a carriage return (a spreadsheet would run it as a "
              "formula), and text that starts with a quote, got a leading single quote (') in the CSV; "
              "numbers are unchanged. read_release takes the quote off again.")
_GUARDED_STARTS = tuple(FORMULA_PREFIXES) + (GUARD_PREFIX,)


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

