"""Exporting tables for people to open: CSV with spreadsheet formulas neutralised.

A cell that starts with ``=``, ``+``, ``-`` or ``@`` (or a tab / carriage return) is run
as a formula by Excel, LibreOffice and Google Sheets ("CSV injection"). Synthetic or
uploaded data can contain such text, so every export goes through :func:`guard_formulas`,
which puts a leading single quote in front of those cells. Numbers are left alone: a
negative number is a value, not a formula.
"""
from __future__ import annotations

import pandas as pd

__all__ = ["FORMULA_PREFIXES", "guard_cell", "guard_formulas", "to_safe_csv"]

#: First characters that make a spreadsheet treat a text cell as a formula.
FORMULA_PREFIXES = ("=", "+", "-", "@", "\t", "\r")


def guard_cell(value: object) -> object:
    """``value`` with a leading ``'`` when it is text that a spreadsheet would run."""
    if isinstance(value, str) and value.startswith(FORMULA_PREFIXES):
        return "'" + value
    return value


def guard_formulas(frame: pd.DataFrame) -> pd.DataFrame:
    """A copy of ``frame`` whose text cells (and text column names) cannot run as formulas.

    Parameters
    ----------
    frame : pandas.DataFrame
        The table to export. Numeric columns are returned unchanged.
    """
    if not isinstance(frame, pd.DataFrame):
        raise TypeError(f"frame must be a pandas DataFrame, got {type(frame).__name__}.")
    out = frame.copy()
    for col in out.columns:
        s = out[col]
        if pd.api.types.is_numeric_dtype(s) or pd.api.types.is_bool_dtype(s):
            continue
        out[col] = s.map(guard_cell)
    out.columns = [guard_cell(c) for c in out.columns]
    return out


def to_safe_csv(frame: pd.DataFrame) -> bytes:
    """UTF-8 CSV bytes of ``frame`` after :func:`guard_formulas` (no index column)."""
    return guard_formulas(frame).to_csv(index=False).encode("utf-8")
