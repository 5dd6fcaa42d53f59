"""Neighbouring pairs: two datasets that differ in one record, and the builders that make one.

The auditor (:mod:`core.audit.auditor`) runs a mechanism on both datasets of a
:class:`NeighbouringPair`. Under the project's one relation
(:data:`core.privacy.ledger.NEIGHBOURING_RELATION`: one record replaced by any other,
``n`` public) a pair is a dataset and a copy with one record replaced:
:func:`replace_record` replaces it in an array, a DataFrame or a tuple ``(X, y)``,
:func:`extreme_record` gives the usual worst case for sums and gradients (every attribute at
a corner of its bounds), :func:`flip_value` changes one attribute of one record, and
:func:`replace_pair` puts these together. The pairs that move a step before the noise are in
:mod:`core.audit.pipeline_pairs`, the hub of paper 000's correlated sensitivity in
:mod:`core.audit.hub_pair`.
"""
from __future__ import annotations

import numbers
import warnings
from dataclasses import dataclass
from typing import Any, Mapping, Sequence

import numpy as np
import pandas as pd

from core.validation import check_choice

__all__ = [
    "NeighbouringPair",
    "extreme_record",
    "flip_value",
    "replace_pair",
    "replace_record",
]


@dataclass(frozen=True)
class NeighbouringPair:
    """Two datasets that differ in one record (one replaced by another; ``n`` the same).

    Attributes
    ----------
    d0, d1 : any
        The datasets, each passed to the mechanism as it is.
    description : str
        What differs, in words (shown with the audit's verdict), e.g.
        "record 0 replaced by the extreme record (all attributes at their upper bound)".
    """

    d0: Any
    d1: Any
    description: str

    def __post_init__(self) -> None:
        if not isinstance(self.description, str):
            raise TypeError(
                f"description must be a str, got {type(self.description).__name__}."
            )


def _check_index(index: Any, n: int) -> int:
    if isinstance(index, (bool, np.bool_)) or not isinstance(index, numbers.Integral):
        raise TypeError(f"index must be an integer, got {type(index).__name__}.")
    if not 0 <= index < n:
        raise ValueError(f"index must lie between 0 and n - 1 = {n - 1}, got {index}.")
    return int(index)


def _set_value(series: pd.Series, index: int, value: Any) -> pd.Series:
    """A copy of ``series`` with position ``index`` set to ``value``, widening the dtype if needed."""
    out = series.copy()
    if isinstance(out.dtype, pd.CategoricalDtype) and value not in out.cat.categories:
        out = out.cat.add_categories([value])
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("error")  # pandas 2 warns before it upcasts; refuse that
            out.iloc[index] = value
    except (TypeError, ValueError, Warning):
        out = series.astype(object)
        out.iloc[index] = value
        out = out.infer_objects()
    return out


def _replace_in_frame(frame: pd.DataFrame, index: int, record: Any) -> pd.DataFrame:
    cols = list(frame.columns)
    if isinstance(record, (Mapping, pd.Series)):
        keys = list(record.keys())
        missing = [c for c in cols if c not in keys]
        extra = [k for k in keys if k not in cols]
        if missing or extra:
            raise ValueError(
                "a record must give a value for every column and nothing else "
                f"(missing: {missing}, unknown: {extra})."
            )
        values = [record[c] for c in cols]
    elif isinstance(record, (str, bytes)) or not isinstance(record, (Sequence, np.ndarray)):
        raise TypeError(
            "record must be a dict, a Series or a sequence of values for a DataFrame, "
            f"got {type(record).__name__}."
        )
    else:
        values = list(np.asarray(record, dtype=object).ravel())
        if len(values) != len(cols):
            raise ValueError(
                f"a record needs one value per column ({len(cols)}), got {len(values)}."
            )
    out = frame.copy()
    for j, (c, v) in enumerate(zip(cols, values)):
        out.isetitem(j, _set_value(out.iloc[:, j], index, v))
    return out


def _replace_in_array(arr: np.ndarray, index: int, record: Any) -> np.ndarray:
    if arr.ndim not in (1, 2):
        raise ValueError(f"an array dataset must be 1-D or 2-D (one row per record), got {arr.ndim}-D.")
    rec = np.asarray(record)
    want = () if arr.ndim == 1 else (arr.shape[1],)
    if rec.shape != want:
        what = "a single value" if arr.ndim == 1 else f"{arr.shape[1]} values"
        raise ValueError(f"a record of this array is {what}, got shape {rec.shape}.")
    out = arr.astype(np.result_type(arr, rec), copy=True)
    out[index] = rec
    return out


def _replace_in_labels(y: Any, index: int, value: Any) -> Any:
    if isinstance(y, pd.Series):
        return _set_value(y, index, value)
    if isinstance(y, np.ndarray):
        return _replace_in_array(y, index, value)
    if isinstance(y, list):
        out = list(y)
        out[index] = value
        return out
    raise TypeError(f"y must be an array, a Series or a list, got {type(y).__name__}.")


def _n_records(data: Any) -> int:
    if isinstance(data, tuple):
        return _check_xy(data)
    if isinstance(data, pd.DataFrame):
        return len(data)
    if isinstance(data, np.ndarray):
        if data.ndim not in (1, 2):
            raise ValueError(
                f"an array dataset must be 1-D or 2-D (one row per record), got {data.ndim}-D."
            )
        return data.shape[0]
    raise TypeError(
        "data must be a numpy array, a pandas DataFrame or a tuple (X, y), "
        f"got {type(data).__name__}."
    )


def _check_xy(data: tuple) -> int:
    if len(data) != 2:
        raise ValueError(f"a tuple dataset must be (X, y), got {len(data)} parts.")
    X, y = data
    n = _n_records(X)
    if len(y) != n:
        raise ValueError(f"X and y must have the same number of records, got {n} and {len(y)}.")
    return n


def replace_record(data: Any, index: int, record: Any) -> Any:
    """A copy of ``data`` with record ``index`` replaced by ``record`` (a neighbour of ``data``).

    Parameters
    ----------
    data : ndarray, DataFrame or tuple (X, y)
        One record per row: a 2-D array (a 1-D array holds one value per record), a
        DataFrame (``index`` is the position, not the label), or features ``X`` (either of
        those) with labels ``y`` (array, Series or list).
    index : int
        Position of the record to replace, 0 to n - 1.
    record : any
        The new record: for an array a row (a single value for a 1-D array); for a
        DataFrame a dict or Series mapping every column to its value, or a sequence of
        values in column order; for (X, y) a tuple ``(x_row, y_value)``. A column whose
        dtype cannot hold the new value is widened (to float or object).

    Returns
    -------
    same type as ``data``
        A new object; ``data`` is untouched.
    """
    n = _n_records(data)
    i = _check_index(index, n)
    if isinstance(data, tuple):
        if not isinstance(record, (tuple, list)) or len(record) != 2:
            raise TypeError("record of an (X, y) dataset must be a tuple (x_row, y_value).")
        X, y = data
        return (replace_record(X, i, record[0]), _replace_in_labels(y, i, record[1]))
    if isinstance(data, pd.DataFrame):
        return _replace_in_frame(data, i, record)
    return _replace_in_array(data, i, record)


def _check_towards(towards: Any) -> str:
    return check_choice(towards, ("upper", "lower"), name="towards")


def _least_frequent(values: pd.Series, *, exclude: Any = None, has_exclude: bool = False) -> Any:
    counts = values.value_counts(sort=False, dropna=True)  # order of first appearance
    if has_exclude:
        counts = counts[[not _same(v, exclude) for v in counts.index]]
    if counts.empty:
        return None
    return counts.index[int(np.argmin(counts.to_numpy()))]  # first of the rarest


def _same(a: Any, b: Any) -> bool:
    try:
        return bool(a == b)
    except (TypeError, ValueError):
        return False


def _is_numeric(series: pd.Series) -> bool:
    return pd.api.types.is_numeric_dtype(series.dtype) and not pd.api.types.is_bool_dtype(series.dtype)


def _bounds_pair(bounds: Any, width: int) -> tuple[np.ndarray, np.ndarray]:
    if not isinstance(bounds, (tuple, list)) or len(bounds) != 2:
        raise TypeError("bounds of an array must be a pair (lower, upper) of numbers or of sequences.")
    try:
        lo = np.broadcast_to(np.asarray(bounds[0], dtype=float), (width,))
        hi = np.broadcast_to(np.asarray(bounds[1], dtype=float), (width,))
    except (TypeError, ValueError) as exc:
        raise ValueError(
            f"bounds must hold a number or {width} numbers for each of lower and upper."
        ) from exc
    if np.any(lo > hi):
        raise ValueError("every lower bound must be at most its upper bound.")
    return lo, hi


def extreme_record(data: Any, *, bounds: Any = None, towards: str = "upper") -> Any:
    """A record at a corner of the data's bounds: the usual worst case for a neighbour.

    Parameters
    ----------
    data : ndarray, DataFrame or tuple (X, y)
        As in :func:`replace_record`.
    bounds : optional
        The public bounds of the attributes. For an array, a pair ``(lower, upper)`` of
        numbers or of one number per column; for a DataFrame, a mapping
        ``{column: (lower, upper)}`` for some numeric columns; for (X, y), those of X.
        Default (and for columns not named): each column's min and max in ``data``.
    towards : {"upper", "lower"}
        Which corner: every numeric attribute at its upper or at its lower bound.

    Returns
    -------
    record
        In the form :func:`replace_record` takes for ``data``. A DataFrame's non-numeric
        (and boolean) columns get their least frequent value. For (X, y) the label is the
        least frequent one, or for a float ``y`` (regression) its max / min.
    """
    side = _check_towards(towards)
    n = _n_records(data)
    if n == 0:
        raise ValueError("data has no records.")
    if isinstance(data, tuple):
        X, y = data
        ys = pd.Series(np.asarray(y) if not isinstance(y, pd.Series) else y.to_numpy())
        if pd.api.types.is_float_dtype(ys.dtype):
            label = ys.max() if side == "upper" else ys.min()
        else:
            label = _least_frequent(ys)
        if isinstance(label, np.generic):
            label = label.item()
        return (extreme_record(X, bounds=bounds, towards=side), label)
    if isinstance(data, pd.DataFrame):
        if bounds is not None and not isinstance(bounds, Mapping):
            raise TypeError("bounds of a DataFrame must be a mapping {column: (lower, upper)}.")
        bounds = dict(bounds or {})
        unknown = [c for c in bounds if c not in data.columns]
        if unknown:
            raise ValueError(f"bounds name columns that are not in the data: {unknown}.")
        record: dict = {}
        for c in data.columns:
            col = data[c]
            if c in bounds:
                lo, hi = _bounds_pair(bounds[c], 1)
                record[c] = float(hi[0] if side == "upper" else lo[0])
            elif _is_numeric(col):
                v = col.max() if side == "upper" else col.min()
                record[c] = v.item() if isinstance(v, np.generic) else v
            else:
                record[c] = _least_frequent(col)
        return record
    arr = np.asarray(data)
    if not np.issubdtype(arr.dtype, np.number) or np.issubdtype(arr.dtype, np.complexfloating):
        raise TypeError(f"an array dataset must be real numbers, got dtype {arr.dtype}.")
    width = 1 if arr.ndim == 1 else arr.shape[1]
    if bounds is None:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", RuntimeWarning)  # all-NaN column -> NaN
            corner = np.nanmax(arr, axis=0) if side == "upper" else np.nanmin(arr, axis=0)
    else:
        lo, hi = _bounds_pair(bounds, width)
        corner = hi if side == "upper" else lo
        if arr.ndim == 1:
            corner = corner[0]
    return corner.item() if np.ndim(corner) == 0 else np.asarray(corner)


def flip_value(frame: pd.DataFrame, index: int, column: str, value: Any = None) -> pd.DataFrame:
    """A copy of ``frame`` with one record's value in ``column`` replaced.

    Parameters
    ----------
    frame : DataFrame
    index : int
        Position of the record, 0 to n - 1.
    column : str
        The attribute to change; the record's other attributes stay as they are.
    value : optional
        The new value. Default: the least frequent value of ``column`` other than the
        record's current one (the rarest other category).

    Returns
    -------
    DataFrame
        A neighbour of ``frame`` (one record replaced); ``frame`` is untouched.
    """
    if not isinstance(frame, pd.DataFrame):
        raise TypeError(f"frame must be a pandas DataFrame, got {type(frame).__name__}.")
    i = _check_index(index, len(frame))
    if column not in frame.columns:
        raise ValueError(f"column {column!r} is not in the frame; it has {list(frame.columns)}.")
    j = frame.columns.get_loc(column)
    if not isinstance(j, int):
        raise ValueError(f"column {column!r} appears more than once in the frame.")
    col = frame.iloc[:, j]
    if value is None:
        current = col.iloc[i]
        value = _least_frequent(col, exclude=current, has_exclude=True)
        if value is None:
            raise ValueError(
                f"column {column!r} has no value other than the record's {current!r}; "
                "give the new value."
            )
        if isinstance(value, np.generic):
            value = value.item()
    out = frame.copy()
    out.isetitem(j, _set_value(col, i, value))
    return out


def replace_pair(
    data: Any, index: int = 0, record: Any = None, *, description: str | None = None
) -> NeighbouringPair:
    """``data`` and a copy with record ``index`` replaced: a neighbouring pair to audit on.

    Parameters
    ----------
    data : ndarray, DataFrame or tuple (X, y)
        As in :func:`replace_record`.
    index : int
        Position of the record to replace.
    record : optional
        The replacement; default :func:`extreme_record` of ``data`` (every attribute at
        its upper bound as seen in the data).
    description : str, optional
        What differs, in words; a default sentence says which record and by what.
    """
    if record is None:
        record = extreme_record(data)
        default = (
            f"record {index} replaced by the extreme record "
            "(all attributes at their upper bound)"
        )
    else:
        text = repr(record)
        default = f"record {index} replaced by {text if len(text) <= 80 else text[:77] + '...'}"
    d1 = replace_record(data, index, record)
    return NeighbouringPair(data, d1, default if description is None else description)
