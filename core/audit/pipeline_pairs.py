"""Pipeline pairs: neighbouring pairs that move a step *before* the noise.

The pairs of :mod:`core.audit.pairs` move the value a noise step adds noise to. The builders
here move what a release reads from the rows to build its domain, its bounds, its
sensitivity or its split: :func:`new_category_pair` brings a category the table does not
have, :func:`out_of_range_pair` a value far beyond the observed range, and
:func:`held_out_pair` changes a record of the part a mechanism holds out. Each keeps what
the user declared public (the schema a mechanism is given is the same for both datasets: it
is not part of the pair) and moves what a careless pipeline would read from the data.
"""
from __future__ import annotations

import math
import numbers
from typing import Any, Sequence

import numpy as np
import pandas as pd

from core.audit.pairs import NeighbouringPair, _check_index, _is_numeric, flip_value
from core.validation import check_choice

__all__ = [
    "NEW_CATEGORY",
    "held_out_pair",
    "new_category_pair",
    "out_of_range_pair",
]

#: the name a new category gets when no declared category is missing from the data
NEW_CATEGORY = "(audit: new category)"


def _check_frame(frame: Any, name: str = "frame") -> pd.DataFrame:
    if not isinstance(frame, pd.DataFrame):
        raise TypeError(f"{name} must be a pandas DataFrame, got {type(frame).__name__}.")
    if len(frame) == 0:
        raise ValueError(f"{name} has no records.")
    return frame


def _check_column(frame: pd.DataFrame, column: Any) -> str:
    if not isinstance(column, str):
        raise TypeError(f"column must be a str, got {type(column).__name__}.")
    if column not in frame.columns:
        raise ValueError(f"column {column!r} is not in the frame; it has {list(frame.columns)}.")
    if not isinstance(frame.columns.get_loc(column), int):
        raise ValueError(f"column {column!r} appears more than once in the frame.")
    return column


def _check_factor(factor: Any) -> float:
    if isinstance(factor, bool) or not isinstance(factor, numbers.Real):
        raise TypeError(f"factor must be a number, got {type(factor).__name__}.")
    if not (math.isfinite(factor) and factor > 0):
        raise ValueError(f"factor must be a positive finite number (widths of the observed range), got {factor}.")
    return float(factor)


def _declared_spec(schema: Any, column: str) -> Any:
    """The schema's entry for ``column`` when it is public (declared, built-in, estimated)."""
    if schema is None:
        return None
    from core.privacy.schema import PublicSchema

    if not isinstance(schema, PublicSchema):
        raise TypeError(f"schema must be a PublicSchema or None, got {type(schema).__name__}.")
    if column not in schema:
        return None
    spec = schema[column]
    return spec if spec.public else None


def _new_category(col: pd.Series, spec: Any) -> tuple[Any, str]:
    """A value the column does not hold, and where it comes from (for the description)."""
    present = {str(v) for v in col.dropna().unique()}
    if spec is not None and spec.kind == "categorical":
        from core.privacy.schema_columns import OTHER

        for c in spec.categories:
            if str(c) not in present and c != OTHER:
                return c, "a declared category that the data does not hold"
    if _is_numeric(col):
        top = col.max()
        value = (top.item() if isinstance(top, np.generic) else top) + 1 if col.notna().any() else 0
        return value, "a code above every code in the data"
    value, k = NEW_CATEGORY, 1
    while value in present:
        k += 1
        value = f"{NEW_CATEGORY[:-1]} {k})"
    return value, "a category outside the data and outside any declared list"


def new_category_pair(frame: pd.DataFrame, column: str, *, index: int = 0, schema: Any = None) -> NeighbouringPair:
    """``frame`` and a copy whose record ``index`` brings a category ``frame`` does not have.

    A release that reads its category list from the rows (an encoder fitted on the data,
    a histogram over the values seen) shows the new category on ``d1`` and never on ``d0``:
    an output possible on one dataset and impossible on the other, so no epsilon holds. A
    release that takes the list from a public schema maps the value to its declared
    category (or to "(other)") and pays for the one record that moved.

    Parameters
    ----------
    frame : DataFrame
        The private table (``d0``); it is not modified.
    column : str
        The categorical attribute whose list is attacked.
    index : int
        Position of the record replaced, 0 to n - 1; its other attributes stay as they are.
    schema : PublicSchema, optional
        What the user declared public. The declared list is the same for both datasets (the
        mechanism receives it, not the pair); when it names a category the data does not
        hold, the record brings that one (a valid record the declared domain allows).
        Otherwise, and for an entry read from the data, the record brings a value outside
        every list, :data:`NEW_CATEGORY` (a numeric code column gets max + 1).

    Returns
    -------
    NeighbouringPair
        ``d0 = frame``, ``d1`` with the one value changed; both have n records.
    """
    frame = _check_frame(frame)
    column = _check_column(frame, column)
    i = _check_index(index, len(frame))
    value, why = _new_category(frame[column], _declared_spec(schema, column))
    d1 = flip_value(frame, i, column, value)
    return NeighbouringPair(frame, d1, f"record {i}'s {column!r} set to {value!r}, {why} "
                                       "(a new category on one side only)")


def _far_value(col: pd.Series, factor: float) -> Any:
    values = pd.to_numeric(col, errors="coerce").to_numpy(dtype=float)
    values = values[np.isfinite(values)]
    if len(values) == 0:
        raise ValueError(f"column {col.name!r} has no finite numbers to go beyond.")
    lo, hi = float(values.min()), float(values.max())
    width = hi - lo if hi > lo else max(abs(hi), 1.0)
    value = hi + factor * width
    if pd.api.types.is_integer_dtype(col.dtype):
        return int(math.ceil(value))
    return value


def out_of_range_pair(frame: pd.DataFrame, column: str, *, factor: float = 10, index: int = 0) -> NeighbouringPair:
    """``frame`` and a copy whose record ``index`` has ``column`` far above the observed range.

    The new value is ``max + factor * (max - min)`` of the column in ``frame`` (``factor``
    times the magnitude when every value is equal). A release that reads its bounds, its
    clipping range, its scaler or its sensitivity from the rows stretches them on ``d1``
    only; one that clips to public bounds sees a record at its declared upper bound.

    Parameters
    ----------
    frame : DataFrame
        The private table (``d0``); it is not modified.
    column : str
        A numeric attribute.
    factor : float
        How far beyond the maximum, in widths of the observed range (> 0).
    index : int
        Position of the record replaced, 0 to n - 1; its other attributes stay as they are.

    Returns
    -------
    NeighbouringPair
    """
    frame = _check_frame(frame)
    column = _check_column(frame, column)
    f = _check_factor(factor)
    i = _check_index(index, len(frame))
    col = frame[column]
    if not _is_numeric(col):
        raise ValueError(f"column {column!r} is not numeric; to attack a category list use new_category_pair.")
    value = _far_value(col, f)
    d1 = flip_value(frame, i, column, value)
    return NeighbouringPair(frame, d1, f"record {i}'s {column!r} set to {value:.6g}, {f:g} widths of the "
                                       f"observed range above its maximum {float(col.max()):.6g}")


def held_out_pair(frame: pd.DataFrame, holdout_index: Any, *, index: int | None = None,
                  columns: Sequence[str] | None = None, factor: float = 10,
                  schema: Any = None) -> NeighbouringPair:
    """A pair whose replaced record lies in the part of the table a mechanism holds out.

    A held-out part (rows that train a map, set bounds or choose features, and are then
    left out of what the release publishes) is still private data: every step it shapes
    must be paid for or public. Here record ``index`` of the held-out part is replaced by
    one that is far beyond the observed range on every numeric column and brings a new
    category on every other one (as :func:`out_of_range_pair` and
    :func:`new_category_pair`), so whatever the held-out rows set un-noised moves.

    Parameters
    ----------
    frame : DataFrame
        The private table (``d0``); it is not modified.
    holdout_index : array_like of int
        Positions (0 to n - 1) of the held-out records, as the mechanism is given them
        (for example ``SSKMDP.fit(frame, holdout_index=...)``); both datasets keep the same
        split, so the record stays held out.
    index : int, optional
        The position replaced, a position listed in ``holdout_index``. Default: the first.
    columns : sequence of str, optional
        The attributes changed; default every column (the schema's identifiers excepted).
    factor : float
        How far beyond the maximum numbers go, in widths of the observed range.
    schema : PublicSchema, optional
        As in :func:`new_category_pair` (a declared category absent from the data is the
        new one).

    Returns
    -------
    NeighbouringPair
    """
    frame = _check_frame(frame)
    f = _check_factor(factor)
    i, hold = _held_out_record(frame, holdout_index, index)
    columns = _held_out_columns(frame, columns, schema)
    d1, changed = frame, []
    for c in columns:
        col = frame[c]
        if _is_numeric(col) and not _declared_categorical(schema, c):
            value = _far_value(col, f)
        else:
            value = _new_category(col, _declared_spec(schema, c))[0]
        d1 = flip_value(d1, i, c, value)
        changed.append(c)
    shown = ", ".join(repr(c) for c in changed[:5]) + (f" and {len(changed) - 5} more" if len(changed) > 5 else "")
    return NeighbouringPair(frame, d1, f"held-out record {i} (one of {len(hold)} held out) replaced by one far "
                                       f"out of range or with a new category on {shown}")


def _held_out_record(frame: pd.DataFrame, holdout_index: Any, index: int | None) -> tuple[int, np.ndarray]:
    """The position replaced (``index``, default the first held out) and the sorted held-out
    positions, once both are checked against ``frame``."""
    if isinstance(holdout_index, (str, bytes)) or not hasattr(holdout_index, "__len__"):
        raise TypeError("holdout_index must be a sequence or array of row positions.")
    hold = np.asarray(holdout_index)
    if hold.size == 0:
        raise ValueError("holdout_index is empty: the mechanism holds nothing out.")
    if not np.issubdtype(hold.dtype, np.integer):
        raise TypeError(f"holdout_index must hold integer row positions, got dtype {hold.dtype}.")
    hold = np.unique(hold.ravel())
    if hold[0] < 0 or hold[-1] >= len(frame):
        raise ValueError(f"holdout_index must hold row positions in 0..{len(frame) - 1}.")
    i = int(hold[0]) if index is None else _check_index(index, len(frame))
    check_choice(i, hold.tolist(), name="index")
    return i, hold


def _held_out_columns(frame: pd.DataFrame, columns: Sequence[str] | None, schema: Any) -> list[str]:
    """The columns changed in the held-out record: ``columns``, or every column but the
    schema's identifiers."""
    if columns is None:
        skip = set(schema.identifiers) if schema is not None and hasattr(schema, "identifiers") else set()
        columns = [c for c in frame.columns if c not in skip]
    elif isinstance(columns, str) or not isinstance(columns, Sequence):
        raise TypeError("columns must be a sequence of column names.")
    columns = [_check_column(frame, c) for c in columns]
    if not columns:
        raise ValueError("columns is empty: nothing to change in the held-out record.")
    return columns


def _declared_categorical(schema: Any, column: str) -> bool:
    spec = _declared_spec(schema, column)
    return spec is not None and spec.kind == "categorical"
