"""CSV export of a published table with spreadsheet formulas defused.

A cell that starts with ``=``, ``+``, ``-`` or ``@`` (or a tab / carriage return) would be
run as a formula by a spreadsheet; such text cells get a leading apostrophe. Numbers are
left as they are (a negative number is data, not a formula).
"""
from __future__ import annotations

import pandas as pd

__all__ = ["guard_formulas", "to_csv_bytes"]

_TRIGGERS = ("=", "+", "-", "@", "\t", "\r")


def _guard(value):
    if isinstance(value, str) and value.startswith(_TRIGGERS):
        return "'" + value
    return value


def guard_formulas(frame: pd.DataFrame) -> pd.DataFrame:
    """A copy of ``frame`` whose text cells (and column names) cannot start a formula."""
    if not isinstance(frame, pd.DataFrame):
        raise TypeError(f"frame must be a pandas DataFrame, got {type(frame).__name__}.")
    out = frame.copy()
    for col in out.columns:
        if not (pd.api.types.is_numeric_dtype(out[col]) or pd.api.types.is_bool_dtype(out[col])):
            out[col] = out[col].map(_guard)
    out.columns = [_guard(str(c)) for c in out.columns]
    return out


def to_csv_bytes(frame: pd.DataFrame) -> bytes:
    """UTF-8 CSV of ``frame`` after :func:`guard_formulas`, without the index."""
    return guard_formulas(frame).to_csv(index=False).encode("utf-8")
