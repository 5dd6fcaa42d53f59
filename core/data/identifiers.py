"""Telling identifier columns (row numbers, IDs, keys) from data.

An identifier holds a different value in every row: it says which record a row is and
nothing about it. Used as a feature it lets a model memorise rows, synthesized or published
it links a release back to the records, so it is given the role "identifier" and left out
of features, synthesis, attacks and releases (:attr:`core.data.Dataset.identifiers`).

The rule (:func:`detect_identifiers`), for a column that has no other role, at least
:data:`MIN_ROWS_FOR_IDENTIFIER` rows, at most :data:`MAX_MISSING_SHARE` of its cells
missing and a different value in every filled cell:

* **text** (or a category): an identifier (a key, a name, a code);
* **whole numbers** (integers, or floats whose values are all whole: an integer column
  with missing cells): an identifier when its name reads like one (``id``, ``ID``,
  ``customer_id``, ``PatientId``, ``index``, ``key``, ``row``, ``uuid``, ``Unnamed: 0`` as
  pandas writes its index, ``rownames`` as R writes its row names, R's unnamed first column
  ``""``, readr's ``...1``), or when the values fill at least
  :data:`MIN_DENSITY` of the range between their minimum and maximum (a row number with
  gaps, in any order), or when they increase (or decrease) down the rows (a running
  number, a sorted key);
* **numbers with decimals**: never (by its values; a name like an ID proposes any column,
  :func:`identifiers_by_name`). A float column with a different value in every row is
  a continuous measurement (an income with cents, a weight), not a key.

Known false positives (override them on the Data page): a whole-number measurement whose
values happen to be all distinct and dense (20 people with 20 different ages between 20
and 45) or that the file is sorted by; a free-text column (comments) -- left out too, which
is what the methods need anyway. Known misses (mark them on the Data page): a key with
decimals, a random numeric key whose name does not read like one (sparse, unsorted), a key
with more than 5% missing cells, a group key that repeats (a household number).
"""
from __future__ import annotations

import re
from typing import Iterable

import numpy as np
import pandas as pd

__all__ = ["detect_identifiers", "identifiers_by_name", "propose_identifiers", "looks_like_identifier_name", "MIN_ROWS_FOR_IDENTIFIER",
           "MAX_MISSING_SHARE", "MIN_DENSITY"]

#: Below this many rows, distinct values say nothing (a tiny table has distinct ages).
MIN_ROWS_FOR_IDENTIFIER = 20
#: A key may have a few missing cells (a record entered without one).
MAX_MISSING_SHARE = 0.05
#: Whole numbers filling at least this share of their range are a row number with gaps.
MIN_DENSITY = 0.5

_ID_TOKENS = frozenset({
    "id", "ids", "index", "idx", "key", "row", "rownum", "rowid", "rownumber", "uuid", "guid",
    "serial", "seq", "record", "recordid", "unnamed", "pk", "identifier", "rownames", "rowname",
})


def _tokens(name: str) -> list[str]:
    """'customerID' -> ['customer', 'id']; 'row_no.2' -> ['row', 'no', '2']."""
    spaced = re.sub(r"([a-z0-9])([A-Z])", r"\1 \2", str(name))
    return [t.lower() for t in re.split(r"[^A-Za-z0-9]+", spaced) if t]


def looks_like_identifier_name(name: str) -> bool:
    """True for a column name that reads like a key: ``id``, ``customer_id``, ``PatientID``,
    ``index``, ``row``, ``key``, ``uuid``, ``Unnamed: 0`` (pandas' written index),
    ``rownames`` / ``row.names`` (R's row names, as ``write.csv`` and Rdatasets write them),
    ``#``, an empty name (R's ``write.csv`` leaves the row names' header empty) or ``...1``
    (readr's name for that unnamed column)."""
    text = str(name).strip()
    if text in ("", "#") or re.fullmatch(r"unnamed:?\s*\d*|\.\.\.\d+", text, flags=re.IGNORECASE):
        return True
    return any(t in _ID_TOKENS for t in _tokens(text))


def identifiers_by_name(columns: Iterable[str], *, exclude: Iterable[str] = ()) -> list[str]:
    """The columns whose *name* reads like a key (:func:`looks_like_identifier_name`), in order.

    A proposal from the public header alone: it reads no value, so it costs nothing under the
    project's relation (a role proposed from the values -- all distinct, in running order --
    is a read of the rows: :func:`detect_identifiers`). ``exclude``: columns with another role.
    """
    skip = set(exclude)
    return [c for c in columns if c not in skip and looks_like_identifier_name(str(c))]


def _why(s: pd.Series, name: str, min_rows: int) -> str | None:
    """Why ``s`` is an identifier, in words, or None."""
    n = len(s)
    if n < min_rows or pd.api.types.is_bool_dtype(s):
        return None
    filled = s.dropna()
    if len(filled) < min_rows or n - len(filled) > MAX_MISSING_SHARE * n:
        return None
    if filled.nunique() != len(filled):
        return None
    rows = f"every filled row ({n - len(filled)} missing)" if len(filled) < n else "every row"
    if not pd.api.types.is_numeric_dtype(s):
        return f"a different text in {rows}, a key or a name"
    values = filled.to_numpy(dtype=np.float64)
    if not np.all(np.isfinite(values)) or not np.array_equal(values, np.round(values)):
        return None  # decimals: a continuous measurement, never a key
    if looks_like_identifier_name(name):
        return f"a different whole number in {rows} and a name like an ID"
    span = float(values.max() - values.min()) + 1.0
    if len(values) / span >= MIN_DENSITY:
        return f"a different whole number in {rows}, filling its range like a row number"
    steps = np.diff(values)
    if np.all(steps > 0) or np.all(steps < 0):
        return f"a different whole number in {rows}, in running order like a row number"
    return None


def detect_identifiers(frame: pd.DataFrame, *, exclude: Iterable[str] = (),
                       min_rows: int = MIN_ROWS_FOR_IDENTIFIER) -> dict[str, str]:
    """The identifier columns of ``frame``, each with the reason in words (see the module's rule).

    Parameters
    ----------
    frame : pandas.DataFrame
        The table as loaded (numbers already parsed).
    exclude : iterable of str
        Columns with another role (the label, the sensitive columns): never identifiers.
    min_rows : int
        Tables shorter than this have no identifier (distinct values say nothing there).

    Returns
    -------
    dict
        Column name -> why it reads as an identifier, in the frame's column order.
    """
    if not isinstance(frame, pd.DataFrame):
        raise TypeError(f"frame must be a pandas DataFrame, got {type(frame).__name__}.")
    if isinstance(min_rows, bool) or not isinstance(min_rows, int):
        raise TypeError("min_rows must be an int.")
    if min_rows < 2:
        raise ValueError(f"min_rows must be at least 2, got {min_rows}.")
    skip = set(exclude)
    out: dict[str, str] = {}
    for col in frame.columns:
        if col in skip:
            continue
        why = _why(frame[col], str(col), min_rows)
        if why is not None:
            out[col] = why
    return out


def propose_identifiers(frame: pd.DataFrame, *, exclude: Iterable[str] = ()) -> dict[str, str]:
    """Every identifier proposal for ``frame``, column -> why, in the frame's order: by its
    values (:func:`detect_identifiers`, a read of the rows) or by its name alone
    (:func:`identifiers_by_name`, public)."""
    found = detect_identifiers(frame, exclude=exclude)
    for c in identifiers_by_name(frame.columns, exclude=exclude):
        found.setdefault(c, "a name like an ID")
    return {c: found[c] for c in frame.columns if c in found}

