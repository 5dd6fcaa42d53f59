"""Exporting tables safely: CSV that a spreadsheet will not execute.

A cell that starts with ``=``, ``+``, ``-``, ``@`` (or a tab / carriage return) is read as
a formula by spreadsheet programs ("CSV injection"). Such text cells get a leading single
quote. Numbers are left alone: ``-3.5`` stays a number.
"""
from __future__ import annotations

import pandas as pd

__all__ = ["guard_formulas", "to_csv_bytes", "FORMULA_PREFIXES"]

FORMULA_PREFIXES = ("=", "+", "-", "@", "\t", "\r")


def _guard_cell(value):
    if isinstance(value, str) and value.startswith(FORMULA_PREFIXES):
        return "'" + value
    return value


def guard_formulas(frame: pd.DataFrame) -> pd.DataFrame:
    """A copy of ``frame`` whose text cells cannot be read as spreadsheet formulas.

    Column names are guarded too.
    """
    if not isinstance(frame, pd.DataFrame):
        raise TypeError(f"frame must be a pandas DataFrame, got {type(frame).__name__}.")
    out = frame.copy()
    for col in out.columns:
        if not pd.api.types.is_numeric_dtype(out[col]):
            out[col] = out[col].map(_guard_cell)
    out.columns = [_guard_cell(str(c)) for c in out.columns]
    return out


def to_csv_bytes(frame: pd.DataFrame) -> bytes:
    """UTF-8 CSV of ``frame`` with formulas guarded, ready for a download button."""
    return guard_formulas(frame).to_csv(index=False).encode("utf-8")
