"""From a :class:`Dataset` to a numeric matrix, remembering which columns came from which attribute."""
from __future__ import annotations

from typing import Iterable, NamedTuple

import numpy as np
import pandas as pd

from core.data.dataset import Dataset
from core.validation import DataError

__all__ = ["Encoded", "encode", "ordinal_codes", "frame_codes"]


class Encoded(NamedTuple):
    """An encoded matrix: ``X``, its column ``names`` and ``groups``.

    ``groups`` maps each original attribute to the indices of its columns in ``X`` (one
    column for a numeric or ordinal attribute, one per category for one-hot).
    """

    X: np.ndarray
    names: list[str]
    groups: dict[str, list[int]]


def ordinal_codes(series: pd.Series) -> tuple[np.ndarray, list]:
    """Integer codes of a categorical series over its sorted categories (missing -> -1).

    Categories are sorted by their text (``str``), so mixed types have one order; the
    codes and that list of categories are returned. A pandas ``category`` column is coded
    by its values like any other (its own category order is not used).
    """
    if isinstance(series.dtype, pd.CategoricalDtype):
        series = series.astype(object)  # a Categorical cannot take the -1 of a missing value
    categories = sorted(series.dropna().unique(), key=lambda value: str(value))
    mapping = {category: code for code, category in enumerate(categories)}
    codes = series.map(mapping).fillna(-1).to_numpy(dtype=np.int64)
    return codes, categories


def _is_number_column(series: pd.Series) -> bool:
    return pd.api.types.is_numeric_dtype(series) and not pd.api.types.is_bool_dtype(series)


def frame_codes(frame: pd.DataFrame, *, allow_infinite: bool = False) -> np.ndarray:
    """Float matrix of ``frame``: numbers as they are, other columns as :func:`ordinal_codes`.

    A missing number becomes its column's median (0 when the column has no number); a
    missing category gets code -1. Booleans are categories (False -> 0, True -> 1).

    Parameters
    ----------
    frame : DataFrame
        The attributes, one column each.
    allow_infinite : bool
        Keep infinite numbers as they are (True) or refuse them with a DataError (False).
    """
    columns = []
    for name in frame.columns:
        series = frame[name]
        if _is_number_column(series):
            values = series.to_numpy(dtype=np.float64)
            if np.isnan(values).any():
                median = np.nanmedian(values) if (~np.isnan(values)).any() else 0.0
                values = np.where(np.isnan(values), median, values)
            if not allow_infinite and not np.all(np.isfinite(values)):
                raise DataError(f"Column '{name}' holds infinite values; remove or cap them first.")
        else:
            values = ordinal_codes(series)[0].astype(np.float64)
        columns.append(values)
    return np.column_stack(columns) if columns else np.empty((len(frame), 0))


def _filled(series: pd.Series, dataset: Dataset) -> pd.Series:
    """``series`` with missing cells filled (median / most common value); no copy if full. A
    column with no value at all is filled with 0 (numeric) or "(missing)" (categorical): it
    carries no information either way."""
    if not series.isna().any():
        return series
    if series.isna().all():
        return series.fillna(0.0 if series.name in dataset.numeric else "(missing)")
    if series.name in dataset.numeric:
        return series.fillna(series.median())
    return series.fillna(series.mode().iloc[0])


def _columns_to_encode(
    dataset: Dataset, *, scale: str, columns: Iterable[str] | None, missing: str
) -> list[str]:
    """The attributes :func:`encode` encodes, after checking its arguments."""
    if not isinstance(dataset, Dataset):
        raise TypeError(f"dataset must be a Dataset, got {type(dataset).__name__}.")
    if scale not in ("minmax", "standard", "none"):
        raise ValueError(f"scale must be 'minmax', 'standard' or 'none', got {scale!r}.")
    if missing not in ("impute", "error"):
        raise ValueError(f"missing must be 'impute' or 'error', got {missing!r}.")
    cols = list(dataset.features if columns is None else columns)
    unknown = [c for c in cols if c not in dataset.frame.columns]
    if unknown:
        raise DataError(f"Column(s) {unknown} are not in the data.")
    if dataset.frame[cols].isna().any().any() and missing == "error":
        raise DataError("The data has missing values; drop or fill them first.")
    return cols


def _plan(
    dataset: Dataset, cols: list[str], *, one_hot: bool
) -> tuple[list[tuple[str, object]], int]:
    """First pass of :func:`encode`: each attribute's filled values and the matrix width.

    A categorical attribute is planned as its ``(codes, categories)``, a numeric one as its
    filled series.
    """
    plan: list[tuple[str, object]] = []
    width = 0
    for col in cols:
        s = _filled(dataset.frame[col], dataset)
        if col in dataset.categorical:
            codes, cats = ordinal_codes(s)
            plan.append((col, (codes, cats)))
            width += len(cats) if one_hot else 1
        else:
            plan.append((col, s))
            width += 1
    return plan, width


def _scaled(values: np.ndarray, scale: str) -> np.ndarray:
    """``values`` scaled to [0, 1] ("minmax"), to zero mean and unit variance ("standard")
    or as they are ("none"); a constant column becomes zeros."""
    if scale == "minmax":
        lo, hi = values.min(), values.max()
        values = (values - lo) / (hi - lo) if hi > lo else np.zeros_like(values)
    elif scale == "standard":
        sd = values.std()
        values = (values - values.mean()) / sd if sd > 0 else np.zeros_like(values)
    return values


def _fill(
    dataset: Dataset,
    plan: list[tuple[str, object]],
    width: int,
    *,
    scale: str,
    one_hot: bool,
    dtype: type,
) -> Encoded:
    """Second pass of :func:`encode`: fill one preallocated matrix from the ``plan`` (no
    blocks to stack, so the peak is one copy of X, not two)."""
    n = len(dataset.frame)
    X = np.zeros((n, width), dtype=dtype)
    names: list[str] = []
    groups: dict[str, list[int]] = {}
    pos = 0
    for col, item in plan:
        if col in dataset.categorical and one_hot:
            codes, cats = item
            X[np.arange(n), pos + codes] = 1.0
            names.extend(f"{col}={c}" for c in cats)
            groups[col] = list(range(pos, pos + len(cats)))
            pos += len(cats)
            continue
        if col in dataset.categorical:
            values = item[0].astype(np.float64)
        else:
            values = item.to_numpy(dtype=np.float64)
        X[:, pos] = _scaled(values, scale)
        names.append(col)
        groups[col] = [pos]
        pos += 1
    return Encoded(X, names, groups)


def encode(
    dataset: Dataset,
    *,
    scale: str = "minmax",
    one_hot: bool = True,
    columns: Iterable[str] | None = None,
    missing: str = "impute",
    dtype: type = np.float64,
) -> Encoded:
    """Encode the attributes of ``dataset`` as a float matrix.

    Parameters
    ----------
    dataset : Dataset
        The data. The label is left out unless ``columns`` names it.
    scale : {"minmax", "standard", "none"}
        Numeric (and ordinal) columns scaled to [0, 1], to zero mean and unit variance, or
        left as they are. One-hot columns are always 0/1.
    one_hot : bool
        Categoricals as one 0/1 column per category (True) or as one ordinal column of
        sorted-category codes (False; paper 000's record correlation and paper 003 use that).
    columns : iterable of str, optional
        Attributes to encode, in this order; default every feature (all but the label).
    missing : {"impute", "error"}
        Fill missing cells (median / most common value) or refuse them.
    dtype : numpy dtype
        Dtype of ``X``.
    """
    cols = _columns_to_encode(dataset, scale=scale, columns=columns, missing=missing)
    plan, width = _plan(dataset, cols, one_hot=one_hot)
    return _fill(dataset, plan, width, scale=scale, one_hot=one_hot, dtype=dtype)
