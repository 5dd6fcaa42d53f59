"""Auditing a mechanism's privacy claim on a pair of neighbouring datasets.

Differential privacy bounds how well *any* test can tell two neighbouring datasets apart
from one output: for a test that says "D1" or "D0", its false-positive rate
FP = P(says D1 | D0) and false-negative rate FN = P(says D0 | D1) must satisfy
``FP + e^eps FN >= 1 - delta`` and ``FN + e^eps FP >= 1 - delta``, so

    eps >= max( ln((1 - delta - FN) / FP), ln((1 - delta - FP) / FN) ).

The auditor runs the mechanism many times on each dataset of one pair and measures such a
test (Jagielski, Ullman & Oprea, "Auditing Differentially Private Machine Learning: How
Private is Private SGD?", NeurIPS 2020; Nasr, Song, Thakurta, Papernot & Carlini,
"Adversary Instantiation: Lower Bounds for Differentially Private Machine Learning",
IEEE S&P 2021):

1. ``runs`` independent runs on each side, each with its own seed, all seeds drawn up
   front from one generator (so one ``random_state`` fixes the audit bit for bit, however
   many workers run it). A ``statistic`` reduces each output to one number.
2. The runs are split in halves. On the first half the threshold tests are tried
   ("statistic >= t" and its complement "statistic < t", each pointing to D1 and to D0,
   with t at 100 quantiles of that half's statistics, observed values at full precision)
   and the one whose empirical epsilon is largest is
   chosen. The empirical epsilon of a test here is its Clopper-Pearson lower bound on that
   half: a raw ratio of rates would favour thresholds in the tails, where a handful of runs
   give an infinite ratio.
3. On the second half, independent of the choice, the chosen test's FP and FN get one-sided
   Clopper-Pearson upper bounds, each at level ``1 - alpha / 2`` with
   ``alpha = 1 - confidence`` (Bonferroni: both hold together with probability at least
   ``confidence``). Put into the inequality above they give ``epsilon_lower``, a lower
   bound on the mechanism's true epsilon that holds with probability ``confidence``. The
   same half's plain rates give a point estimate.

Statistics are kept at full precision (float64, never rounded): two outputs that differ
in their last bit are two outputs, and a test may tell them apart, exactly as an attacker
would (Mironov 2012). Thresholds are observed values, not midpoints (a midpoint may round
onto a neighbour), so even adjacent doubles are separable. ``audit(..., grid=g)`` also counts the runs whose output has a
value off the declared grid (:func:`off_grid_share`): an exact sampler's outputs lie on it.

The bound cannot exceed the **ceiling** (:func:`audit_ceiling`): the bound of a test that
tells every evaluation run apart, which depends only on the runs, the confidence and delta.
With 1,000 runs per side at 95% it is 4.9; with 200, 3.3; with 5,000, 6.5. A bound that
reaches the ceiling means the audit saturated: more runs could show more (a mechanism with
an output possible on one dataset only has no finite epsilon at all).

A lower bound above the claimed epsilon is evidence of a bug (noise too small, a wrong
sensitivity, a leak outside the noise). A lower bound below the claim proves nothing: the
audit can only find violations. It tries one pair of datasets and one family of tests on
one statistic, with finitely many runs; another pair, statistic or test may reveal more,
and privacy is a promise about all of them.

The pair must be neighbours under the project's one relation
(:data:`core.privacy.mechanisms.NEIGHBOURING_RELATION`: one record replaced by any other, ``n``
public); :func:`replace_pair` builds one, by default with the record replaced by the
extreme record, the usual worst case for sums and gradients.
"""
from __future__ import annotations

import math
import numbers
import threading
import time
import warnings
from dataclasses import asdict, dataclass
from functools import partial
from typing import Any, Callable, Mapping, Sequence

import numpy as np
import pandas as pd
from scipy.stats import beta

from core.runtime.experiments import map_seeds
from core.validation import check_delta, check_epsilon, check_positive_int
from core.runtime.randomness import RandomState, check_random_state, draw_seeds

__all__ = [
    "AuditResult",
    "NeighbouringPair",
    "audit",
    "extreme_record",
    "flip_value",
    "replace_pair",
    "replace_record",
    "new_category_pair",
    "out_of_range_pair",
    "hub_record_pair",
    "held_out_pair",
    "audit_ceiling",
    "UNBOUNDED_TEXT",
    "off_grid_share",
]

#: fewest runs per side an audit reports on (with fewer, no bound says anything)
MIN_RUNS = 20


# --------------------------------------------------------------------------- pairs


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
    if towards not in ("upper", "lower"):
        raise ValueError(f"towards must be 'upper' or 'lower', got {towards!r}.")
    return towards


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


# --------------------------------------------------------------------------- pipeline pairs
#
# The pairs above move the value a noise step adds noise to. The builders below move a step
# *before* the noise: what a release reads from the rows to build its domain, its bounds,
# its sensitivity or its split. Each keeps what the user declared public (the schema a
# mechanism is given is the same for both datasets: it is not part of the pair) and moves
# what a careless pipeline would read from the data.

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
        from core.privacy.schema import OTHER

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
        The position replaced; it must be one of ``holdout_index``. Default: the first.
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
    if i not in set(hold.tolist()):
        raise ValueError(f"record {i} is not held out: index must be one of holdout_index.")
    if columns is None:
        skip = set(schema.identifiers) if schema is not None and hasattr(schema, "identifiers") else set()
        columns = [c for c in frame.columns if c not in skip]
    elif isinstance(columns, str) or not isinstance(columns, Sequence):
        raise TypeError("columns must be a sequence of column names.")
    columns = [_check_column(frame, c) for c in columns]
    if not columns:
        raise ValueError("columns is empty: nothing to change in the held-out record.")
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


def _declared_categorical(schema: Any, column: str) -> bool:
    spec = _declared_spec(schema, column)
    return spec is not None and spec.kind == "categorical"


def _hub_profiles(Z: np.ndarray, measure: str) -> tuple[np.ndarray, Callable[[np.ndarray], np.ndarray]]:
    """Rows in the space where the record correlation is a dot product or a distance, and the
    map that puts a new row in that space (the whitening uses ``Z``'s covariance)."""
    if measure == "pearson":
        def to_space(R: np.ndarray) -> np.ndarray:
            rows = R - R.mean(axis=1, keepdims=True)
            norm = np.sqrt(np.einsum("ij,ij->i", rows, rows))
            ok = norm > 1e-12 * max(1.0, float(np.abs(R).max(initial=0.0)))
            rows[ok] /= norm[ok, None]
            rows[~ok] = 0.0
            return rows
    else:
        mean = Z.mean(axis=0)
        cov = np.atleast_2d(np.cov(Z - mean, rowvar=False)) if len(Z) > 1 else np.zeros((Z.shape[1],) * 2)
        var, axes = np.linalg.eigh(cov)
        keep = var > max(var.max(initial=0.0), 0.0) * 1e-10
        W = axes[:, keep] / np.sqrt(var[keep]) if keep.any() else np.zeros((Z.shape[1], 0))

        def to_space(R: np.ndarray) -> np.ndarray:
            return (R - mean) @ W
    return to_space(Z), to_space


def _hub_delta(P: np.ndarray, C: np.ndarray, measure: str) -> np.ndarray:
    """Unthresholded record correlation of each candidate (rows of ``C``) with each record."""
    if measure == "pearson":
        return np.abs(C @ P.T)
    d2 = (C ** 2).sum(1)[:, None] + (P ** 2).sum(1)[None, :] - 2.0 * C @ P.T
    return 1.0 / (1.0 + np.sqrt(np.maximum(d2, 0.0)))


#: how many of the best-scored hub candidates are checked with the mechanism's own CS (the
#: score of a candidate is an approximation: the mean of its records in feature space)
VERIFIED_HUBS = 32


def hub_record_pair(data: Any, *, index: int | None = None, measure: str = "pearson", threshold: float = 0.8,
                    max_group_size: int | None = None, features: Callable[[Any], Any] | None = None,
                    seeds: int = 32) -> NeighbouringPair:
    """A pair whose replaced record becomes a hub: correlated with many records, moving CS.

    Paper 000's correlated sensitivity CS = max_i sum_j delta_ij
    (:func:`core.correlation.records.correlated_sensitivity`) is read from the records. A
    release that computes it from the rows and calibrates its noise to it has a noise scale
    that one record can move: here record ``index`` is replaced by the profile that is
    correlated (above ``threshold``) with as many records as possible -- the mean of a
    record's nearest records, or a copy of a record -- so CS (and GS) grow on ``d1``. A
    release whose CS comes from a declared bound on the group size keeps its scale.

    Parameters
    ----------
    data : ndarray, DataFrame or tuple (X, y)
        The records (as in :func:`replace_record`). A DataFrame's numeric columns form the
        profile; its other columns, and ``y``, take the values of the record the hub was
        grown from.
    index : int, optional
        Position replaced; default the record with the smallest correlated sum (its leaving
        lowers CS the least).
    measure, threshold
        The record correlation of :func:`~core.correlation.records.correlated_sensitivity`
        (``"pearson"`` or ``"mahalanobis"``, delta0 in (0, 1]); use the mechanism's own.
    max_group_size : int, optional
        A declared bound on the correlated group size (itself included). It is public, so
        both datasets keep it: the hub is correlated with at most this many records, and a
        table that already breaks the bound is refused.
    features : callable, optional
        ``features(dataset) -> 2-D array``: the matrix the mechanism computes CS on
        (default: the numbers of ``data`` as they are). CS is measured on it for both
        datasets.
    seeds : int
        How many of the most correlated records the search grows hubs from (more: slower,
        sometimes a larger CS).

    Returns
    -------
    NeighbouringPair
        Its description gives CS and GS on both datasets.

    Raises
    ------
    ValueError
        No replacement raises CS (for example when every record is already correlated with
        every other), or the table breaks the declared ``max_group_size``.

    Notes
    -----
    Cost: one pass of ``correlated_sensitivity`` on ``data`` and up to
    :data:`VERIFIED_HUBS` on candidate neighbours (O(n^2 m) each; well under a second in
    all for a few thousand records), plus up to ``10 * seeds`` candidate profiles scored
    against every record.
    """
    from core.correlation.records import _check_measure, _check_threshold, correlated_sensitivity

    measure = _check_measure(measure)
    thr = _check_threshold(threshold)
    n_seeds = check_positive_int(seeds, name="seeds")
    if max_group_size is not None:
        max_group_size = check_positive_int(max_group_size, name="max_group_size")
    n = _n_records(data)
    if n < 3:
        raise ValueError("a hub needs at least 3 records.")
    X = data[0] if isinstance(data, tuple) else data
    if isinstance(X, pd.DataFrame):
        if features is None and not any(_is_numeric(X[c]) for c in X.columns):
            raise ValueError("the frame has no numeric column to correlate records on; give features.")
    elif np.asarray(X).ndim != 2:
        raise ValueError("a hub needs a 2-D array of records (one row per record).")
    if features is not None and not callable(features):
        raise TypeError(f"features must be callable, got {type(features).__name__}.")
    measure_of = (lambda d: np.asarray(features(d), dtype=float)) if features is not None else \
        (lambda d: _raw_numbers(d))

    def report(d: Any):
        return correlated_sensitivity(measure_of(d), measure=measure, threshold=thr, scheduler="")

    F = measure_of(data)
    if F.ndim != 2 or len(F) != n:
        raise ValueError(f"features(data) must be a 2-D array with one row per record ({n}), got shape {F.shape}.")
    r0 = report(data)
    if max_group_size is not None and r0.group > max_group_size:
        raise ValueError(f"the table already has a record correlated with {int(r0.group)} records, more than "
                         f"the declared bound {max_group_size}: the declaration does not hold for this table.")
    fixed_i = None if index is None else _check_index(index, n)
    # hubs grown, in the space CS is computed in, from the records with the largest
    # correlated sums: a copy of the record, and the mean of its nearest records at three
    # levels of correlation (the mean of records that are each correlated with a profile
    # but not with each other is correlated with all of them)
    P, to_space = _hub_profiles(F, measure)
    order = np.argsort(-r0.per_record, kind="stable")
    grown = [h for h in order if h != fixed_i][:n_seeds]
    delta = _hub_delta(P, P[grown], measure)
    candidates: list[tuple[np.ndarray, int]] = []  # (rows the hub is the mean of, seed)
    for row, h in zip(delta, grown):
        candidates.append((np.array([h]), int(h)))
        sign = np.sign(P @ P[h]) if measure == "pearson" else np.ones(n)
        for level in (thr, thr ** 2, thr ** 3):
            near = (row >= level) & (sign >= 0)
            if fixed_i is not None:
                near[fixed_i] = False
            for _ in range(3):  # mean shift: the records near the mean of the near records
                if near.sum() < 2:
                    break
                candidates.append((np.flatnonzero(near), int(h)))
                centre = to_space(F[near].mean(axis=0)[None, :])
                near = _hub_delta(P, centre, measure)[0] >= level
                if measure == "pearson":
                    near &= (P @ centre[0]) >= 0
                if fixed_i is not None:
                    near[fixed_i] = False
    C = np.array([F[rows].mean(axis=0) for rows, _ in candidates])
    scores = _hub_delta(P, to_space(C), measure)
    if fixed_i is None:
        # per hub, the record replaced: the least correlated sum, then the least like the hub
        places = [int(np.lexsort((row, r0.per_record))[0]) for row in scores]
    else:
        places = [fixed_i] * len(C)
    for k, i in enumerate(places):
        scores[k, i] = 0.0  # the replaced record is gone
    counts = (scores >= thr).sum(axis=1) + 1
    sums = np.where(scores >= thr, scores, 0.0).sum(axis=1) + 1.0
    ok = np.ones(len(C), bool) if max_group_size is None else counts <= max_group_size
    if not ok.any():
        raise ValueError("no hub stays within the declared max_group_size.")
    best = None
    for k in np.argsort(-np.where(ok, sums, -np.inf), kind="stable")[:VERIFIED_HUBS]:
        if not ok[k]:
            break
        record = _hub_record(data, candidates[k][0])
        d1 = replace_record(data, places[k], record)
        r1 = report(d1)
        if max_group_size is not None and r1.group > max_group_size:
            continue
        if best is None or r1.correlated > best[1].correlated:
            best = (d1, r1, candidates[k][1], places[k])
    if best is None or best[1].correlated <= r0.correlated + 1e-9:
        raise ValueError("no replacement of one record raises the correlated sensitivity CS = "
                         f"{r0.correlated:.4g} ({measure}, delta0 = {thr:g}).")
    d1, r1, h, i = best
    return NeighbouringPair(data, d1, f"record {i} replaced by a hub grown from record {h} ({measure}, delta0 = "
                                      f"{thr:g}): CS {r0.correlated:.4g} -> {r1.correlated:.4g}, GS "
                                      f"{int(r0.group)} -> {int(r1.group)}")


def _raw_numbers(data: Any) -> np.ndarray:
    X = data[0] if isinstance(data, tuple) else data
    if isinstance(X, pd.DataFrame):
        return X[[c for c in X.columns if _is_numeric(X[c])]].to_numpy(dtype=float)
    return np.asarray(X, dtype=float)


def _plain_value(v: Any) -> Any:
    return v.item() if isinstance(v, np.generic) else v


def _hub_record(data: Any, rows: np.ndarray) -> Any:
    """The hub as a record of ``data``: a copy of record ``rows[0]`` when it is alone, else
    the mean of ``rows`` on the numbers (rounded in an integer column) and their most
    frequent value elsewhere (the label too)."""
    X = data[0] if isinstance(data, tuple) else data
    first = int(rows[0])
    if isinstance(X, pd.DataFrame):
        rec = {}
        for c in X.columns:
            col = X[c].iloc[rows]
            if len(rows) == 1:
                rec[c] = _plain_value(col.iloc[0])
            elif _is_numeric(X[c]):
                v = float(col.mean())
                rec[c] = int(round(v)) if pd.api.types.is_integer_dtype(X[c].dtype) else v
            else:
                mode = col.mode(dropna=True)
                rec[c] = _plain_value(mode.iloc[0] if len(mode) else X[c].iloc[first])
        x: Any = rec
    else:
        arr = np.asarray(X)
        x = arr[first].copy() if len(rows) == 1 else arr[rows].astype(float).mean(axis=0)
    if isinstance(data, tuple):
        y = data[1]
        ys = pd.Series(y.to_numpy() if isinstance(y, pd.Series) else np.asarray(y)).iloc[rows]
        mode = ys.mode(dropna=True)
        return (x, _plain_value(mode.iloc[0] if len(mode) else ys.iloc[0]))
    return x


# --------------------------------------------------------------------------- result


#: What an infinite point estimate ("inf") means, in words, for every page, chart and file.
UNBOUNDED_TEXT = (
    "unbounded (inf): in the evaluation runs the test made no error, so some output was seen on one "
    "dataset and never on the other; such a mechanism's epsilon has no finite bound from these runs, "
    "and the lower bound stays finite only because the number of runs limits it (the ceiling)"
)


def _fmt(x: float) -> str:
    return "unbounded (inf)" if math.isinf(x) else f"{x:.3g}"


@dataclass
class AuditResult:
    """What an audit measured.

    Attributes
    ----------
    claimed_epsilon, claimed_delta : float
        The guarantee checked (``claimed_epsilon`` is inf when nothing is claimed).
    epsilon_lower : float
        Lower bound on the true epsilon that holds with probability ``confidence``.
    epsilon_point : float
        The same formula with the plain rates on the evaluation half (no confidence; inf
        when the test made no error there: an output seen on one dataset and never on the
        other, unbounded, limited in the lower bound only by the number of runs; see
        ``point_text`` and :data:`UNBOUNDED_TEXT`).
    runs : int
        Runs per side that were done (``2 * runs`` mechanism calls).
    threshold : float
        The chosen test's threshold on the statistic.
    direction : str
        The chosen test in words, e.g. "statistic >= 0.53 on D1": the test says the run
        came from D1 when the statistic is at least 0.53 (the threshold at full precision).
    confidence : float
        Joint confidence of the two Clopper-Pearson bounds.
    violation : bool
        ``epsilon_lower > claimed_epsilon`` (beyond rounding): the claim is false.
    seconds : float
        Wall-clock time of the whole audit.
    description : str
        The pair's description.
    stopped : bool
        True when a stop event ended the audit early; the bounds come from the runs done.
    ceiling : float
        The largest lower bound an audit with these runs, confidence and delta could show
        (every evaluation run told apart; :func:`audit_ceiling`). NaN when not computed.
    grid : float or None
        The declared output grid checked (``audit(..., grid=g)``), else None.
    off_grid : int or None
        Runs (both sides) whose output had a value off ``grid``; None when no grid was given.
    """

    claimed_epsilon: float
    claimed_delta: float
    epsilon_lower: float
    epsilon_point: float
    runs: int
    threshold: float
    direction: str
    confidence: float
    violation: bool
    seconds: float
    description: str
    stopped: bool = False
    ceiling: float = math.nan
    grid: float | None = None
    off_grid: int | None = None

    @property
    def saturated(self) -> bool:
        """The bound reached the ceiling: every run was told apart; more runs could show more."""
        return math.isfinite(self.ceiling) and self.epsilon_lower >= self.ceiling - 1e-9

    @property
    def ceiling_text(self) -> str:
        """'with 1,000 runs this audit cannot show more than 4.9' (and saturation, if so)."""
        if not math.isfinite(self.ceiling):
            return ""
        text = f"with {self.runs:,} runs per side this audit cannot show more than {_fmt(self.ceiling)}"
        if self.saturated:
            text += (" and its bound reaches that ceiling: the audit saturates (every run was told apart; "
                     "more runs could show more)")
        return text

    @property
    def point_text(self) -> str:
        """The point estimate in words: '0.7', or what an infinite estimate means."""
        if math.isinf(self.epsilon_point):
            return UNBOUNDED_TEXT[0].upper() + UNBOUNDED_TEXT[1:] + "."
        return f"{self.epsilon_point:.3g}"

    @property
    def runs_per_second(self) -> float:
        """Mechanism runs (both sides) per second of the audit."""
        return 2 * self.runs / self.seconds if self.seconds > 0 else math.inf

    @property
    def verdict(self) -> str:
        """The result in one sentence."""
        conf = f"{self.confidence:.0%}"
        delta = f", delta = {self.claimed_delta:.2g}" if self.claimed_delta > 0 else ""
        early = " (stopped early)" if self.stopped else ""
        where = f"{self.runs} runs per side{early}, {self.description}"
        return self._claim_sentence(conf, delta, where) + self._extra_sentences()

    def _extra_sentences(self) -> str:
        out = ""
        if self.ceiling_text:
            text = self.ceiling_text
            out += " " + text[0].upper() + text[1:] + "."
        if self.grid is not None and self.off_grid is not None:
            if self.off_grid:
                out += (f" {self.off_grid:,} of {2 * self.runs:,} outputs lie off the declared grid "
                        f"{self.grid:g}: the noise is not drawn on the grid the ledger states.")
            else:
                out += f" Every output lies on the declared grid {self.grid:g}."
        return out

    def _claim_sentence(self, conf: str, delta: str, where: str) -> str:
        if math.isinf(self.claimed_epsilon):
            return (
                f"No claim to check: the mechanism claims no epsilon; the {conf} lower bound "
                f"found is {_fmt(self.epsilon_lower)} ({where})."
            )
        if self.violation:
            return (
                f"VIOLATION: the measured lower bound {_fmt(self.epsilon_lower)} exceeds the "
                f"claimed epsilon {_fmt(self.claimed_epsilon)}{delta} with {conf} confidence "
                f"({where})."
            )
        return (
            f"No violation: the {conf} lower bound {_fmt(self.epsilon_lower)} <= claimed "
            f"{_fmt(self.claimed_epsilon)}{delta} ({where}); this does not prove the claim, "
            "an audit can only find violations."
        )

    def to_dict(self) -> dict:
        """All fields plus ``verdict``, ``runs_per_second``, ``saturated``,
        ``ceiling_text`` and ``point_text``, as plain Python values."""
        out = asdict(self)
        out["runs_per_second"] = self.runs_per_second
        out["saturated"] = self.saturated
        out["ceiling_text"] = self.ceiling_text
        out["point_text"] = self.point_text
        out["verdict"] = self.verdict
        return out


# --------------------------------------------------------------------------- audit


def _grid_values(output: Any) -> np.ndarray:
    try:
        values = np.asarray(output, dtype=float).ravel()
    except (TypeError, ValueError) as exc:
        raise TypeError(
            "grid= checks the mechanism's outputs: they must be numbers or arrays of numbers, "
            f"got {type(output).__name__}."
        ) from exc
    return values


def _off_grid(values: np.ndarray, grid: float) -> np.ndarray:
    """True where a finite value is not an exact multiple of ``grid`` (no tolerance)."""
    with np.errstate(invalid="ignore", over="ignore"):
        k = np.round(values / grid)
        return np.isfinite(values) & (k * grid != values)


def off_grid_share(outputs: Any, grid: float) -> float:
    """The share of the numbers in ``outputs`` that are not exact multiples of ``grid``.

    An exact sampler (:mod:`core.privacy.sampler`) puts every output on its grid, ``k * grid`` with
    an integer ``k`` (a power-of-two grid makes that product exact); a floating-point draw,
    or a step after the sampler that rescales or averages, leaves values between the grid
    points, and those low bits can betray the data (Mironov 2012). The comparison is exact:
    a value is on the grid when ``round(v / grid) * grid == v``; non-finite values count as
    on it (they are not noise).

    Parameters
    ----------
    outputs : number or array_like of numbers
        One or more outputs of a mechanism, any shape.
    grid : float
        The declared spacing, > 0.

    Returns
    -------
    float
        Between 0 (all on the grid) and 1; 0 for an empty input.
    """
    g = _check_grid(grid)
    values = _grid_values(outputs)
    if values.size == 0:
        return 0.0
    return float(_off_grid(values, g).mean())


def _check_grid(grid: Any) -> float:
    if isinstance(grid, bool) or not isinstance(grid, numbers.Real):
        raise TypeError(f"grid must be a number, got {type(grid).__name__}.")
    if not (math.isfinite(grid) and grid > 0):
        raise ValueError(f"grid must be a positive finite spacing, got {grid}.")
    return float(grid)


def audit_ceiling(runs: int, *, confidence: float = 0.95, delta: float = 0.0) -> float:
    """The largest lower bound an audit with ``runs`` runs per side could ever show.

    It is the bound of a test that tells every run of the evaluation half apart (no false
    positive, no false negative): ``ln((1 - delta - u) / u)`` with ``u`` the one-sided
    Clopper-Pearson upper bound on a rate with 0 errors in ``runs - runs // 2`` runs, at
    level ``1 - (1 - confidence) / 2``, that is ``u = 1 - ((1 - confidence) / 2) ** (1 / m)``.
    With 1,000 runs at 95% it is 4.9: a mechanism that leaks everything shows 4.9 and no
    more. A bound at the ceiling means the audit saturated, not that the true epsilon is
    the ceiling.

    Parameters
    ----------
    runs : int
        Runs per side, at least 20 (half choose the test, half measure it).
    confidence : float
        As in :func:`audit`.
    delta : float
        The claimed delta (0 for pure DP), as in :func:`audit`.
    """
    n_runs = check_positive_int(runs, name="runs", minimum=MIN_RUNS)
    if isinstance(confidence, bool) or not isinstance(confidence, numbers.Real):
        raise TypeError(f"confidence must be a number, got {type(confidence).__name__}.")
    if not 0.0 < float(confidence) < 1.0:
        raise ValueError(f"confidence must lie strictly between 0 and 1, got {confidence}.")
    if isinstance(delta, numbers.Real) and not isinstance(delta, bool) and delta == 0:
        dlt = 0.0
    else:
        dlt = check_delta(delta, name="delta")
    m = n_runs - n_runs // 2
    u = float(_cp_upper(m, (1.0 - float(confidence)) / 2.0)[0])
    return float(_eps_from_rates(np.array([u]), np.array([u]), dlt)[0])


def _one_run(mechanism: Callable, statistic: Callable | None, datasets: tuple, job: tuple,
             grid: float | None = None) -> float | tuple[float, int]:
    side, seed = job
    output = mechanism(datasets[side], random_state=seed)
    off = None if grid is None else int(bool(_off_grid(_grid_values(output), grid).any()))
    try:
        value = float(output) if statistic is None else float(statistic(output))
    except (TypeError, ValueError) as exc:
        what = "the mechanism's output" if statistic is None else "statistic(output)"
        raise TypeError(
            f"{what} must be one number (give a statistic that reduces the output, "
            f"e.g. lambda out: out[0]); got {type(output).__name__}."
        ) from exc
    if math.isnan(value):
        raise ValueError("the statistic returned NaN; it must be a number for every output.")
    return value if off is None else (value, off)


def _cp_upper(n: int, alpha: float) -> np.ndarray:
    """One-sided Clopper-Pearson upper bounds at level 1 - alpha for k = 0..n errors in n."""
    k = np.arange(n + 1)
    with np.errstate(all="ignore"):
        ub = beta.ppf(1.0 - alpha, k + 1, n - k)
    ub[n] = 1.0
    return ub


def _eps_from_rates(fp: np.ndarray, fn: np.ndarray, delta: float) -> np.ndarray:
    """max(ln((1-delta-FN)/FP), ln((1-delta-FP)/FN), 0), elementwise."""
    with np.errstate(divide="ignore", invalid="ignore"):
        a = np.log(np.maximum(1.0 - delta - fn, 0.0) / fp)
        b = np.log(np.maximum(1.0 - delta - fp, 0.0) / fn)
    a = np.where(np.isnan(a), 0.0, a)
    b = np.where(np.isnan(b), 0.0, b)
    return np.maximum(np.maximum(a, b), 0.0)


#: candidate thresholds tried on the selection half: this many quantiles of the pooled
#: statistics. Trying every distinct value overfits the selection half (the best of
#: thousands of noisy tests is the luckiest), which lowers and spreads the bound measured on
#: the evaluation half; 100 quantiles reach the 0.5% tails of each side.
THRESHOLD_GRID = 100

# the tests: (operator, side the test points to when the statistic passes). The thresholds
# are observed values and ">= v" splits just below v, whatever the gap to the next value
# (even one ulp); "< v" is its complement, the same test pointing to the other side. (Adding
# "> v" as well would double the candidates and overfit the selection half in the tails.)
_TESTS = ((">=", 1), (">=", 0))


def _error_counts(s0: np.ndarray, s1: np.ndarray, thresholds: np.ndarray, op: str, says: int):
    """Counts of false positives (D0 runs called D1) and false negatives (D1 runs called D0)."""
    def passing(s: np.ndarray) -> np.ndarray:
        srt = np.sort(s)
        if op == ">":
            return len(s) - np.searchsorted(srt, thresholds, side="right")
        if op == ">=":
            return len(s) - np.searchsorted(srt, thresholds, side="left")
        if op == "<":
            return np.searchsorted(srt, thresholds, side="left")
        return np.searchsorted(srt, thresholds, side="right")  # "<="

    p0, p1 = passing(s0), passing(s1)
    if says == 1:
        return p0, len(s1) - p1
    return len(s0) - p0, p1


def _choose_test(s0: np.ndarray, s1: np.ndarray, delta: float, alpha: float):
    """The threshold test with the largest Clopper-Pearson epsilon on the selection half."""
    pooled = np.sort(np.concatenate([s0, s1]))
    # thresholds are observed values themselves (never midpoints, which may round onto a
    # neighbour), at THRESHOLD_GRID quantiles of the pooled statistics (positions, not
    # values, are rounded); ">= smallest" is the test that always passes
    at = np.unique(np.round(np.linspace(0, len(pooled) - 1, THRESHOLD_GRID)).astype(np.int64))
    thresholds = np.unique(pooled[at])
    n0, n1 = len(s0), len(s1)
    ub0, ub1 = _cp_upper(n0, alpha / 2.0), _cp_upper(n1, alpha / 2.0)
    best = None
    for t_index, (op, says) in enumerate(_TESTS):
        fp, fn = _error_counts(s0, s1, thresholds, op, says)
        lower = _eps_from_rates(ub0[fp], ub1[fn], delta)
        advantage = (n1 - fn) / n1 - fp / n0  # tie-break: the most powerful test
        i = np.lexsort((advantage, lower))[-1]
        key = (lower[i], advantage[i])
        if best is None or key > best[0]:
            best = (key, float(thresholds[i]), op, says)
    return best[1], best[2], best[3]


def _check_claimed_epsilon(value: Any) -> float:
    if isinstance(value, numbers.Real) and not isinstance(value, bool) and math.isinf(value) and value > 0:
        return math.inf
    return check_epsilon(value, name="claimed_epsilon")


def _check_audit_args(
    mechanism, statistic, pair, claimed_epsilon, claimed_delta, runs, confidence, chunk, stop
) -> tuple[float, float, int, float, int]:
    """Check :func:`audit`'s arguments (its Raises section).

    Returns the claimed epsilon and delta, the runs per side, the confidence and the chunk.
    """
    if not callable(mechanism):
        raise TypeError(f"mechanism must be callable, got {type(mechanism).__name__}.")
    if statistic is not None and not callable(statistic):
        raise TypeError(f"statistic must be callable, got {type(statistic).__name__}.")
    if not isinstance(pair, NeighbouringPair):
        raise TypeError(
            f"pair must be a NeighbouringPair (see replace_pair), got {type(pair).__name__}."
        )
    eps_claim = _check_claimed_epsilon(claimed_epsilon)
    if isinstance(claimed_delta, numbers.Real) and not isinstance(claimed_delta, bool) and claimed_delta == 0:
        delta = 0.0
    else:
        delta = check_delta(claimed_delta, name="claimed_delta")
    n_runs = check_positive_int(runs, name="runs", minimum=MIN_RUNS)
    if isinstance(confidence, bool) or not isinstance(confidence, numbers.Real):
        raise TypeError(f"confidence must be a number, got {type(confidence).__name__}.")
    if not 0.0 < float(confidence) < 1.0:
        raise ValueError(f"confidence must lie strictly between 0 and 1, got {confidence}.")
    size = check_positive_int(chunk, name="chunk")
    if stop is not None and not callable(getattr(stop, "is_set", None)):
        raise TypeError(f"stop must be a threading.Event, got {type(stop).__name__}.")
    if hasattr(pair.d0, "__len__") and hasattr(pair.d1, "__len__"):
        if len(pair.d0) != len(pair.d1):
            raise ValueError(
                "neighbouring datasets have the same number of records (one is replaced, "
                f"n is public); got {len(pair.d0)} and {len(pair.d1)}."
            )
    return eps_claim, delta, n_runs, float(confidence), size


def _run_both_sides(mechanism, statistic, pair, *, n_runs, chunk, random_state, n_jobs, scheduler,
                    progress, stop, grid=None) -> np.ndarray | tuple[np.ndarray, int]:
    """Run the mechanism ``n_runs`` times on each dataset of ``pair`` (fewer when stopped).

    Every run's seed is drawn up front from ``random_state``. Returns the statistics, shape
    (runs per side done, 2): column 0 on ``pair.d0``, column 1 on ``pair.d1``; with a
    ``grid``, also the number of runs whose output had a value off it.
    """
    rng = check_random_state(random_state)
    seeds = draw_seeds(rng, (2, n_runs))
    # interleaved, so that any prefix (a stopped audit) has as many runs on each side
    jobs = [(side, int(seeds[side, r])) for r in range(n_runs) for side in (0, 1)]
    fn = partial(_one_run, mechanism, statistic, (pair.d0, pair.d1), grid=grid)
    values = map_seeds(fn, jobs, chunk=2 * chunk, n_jobs=n_jobs, scheduler=scheduler,
                       progress=progress, stop=stop)
    done = len(values) // 2
    if done < MIN_RUNS:
        raise ValueError(
            f"only {done} runs per side were done before the stop; an audit needs at least "
            f"{MIN_RUNS} per side."
        )
    values = values[: 2 * done]
    if grid is not None:
        off = sum(int(v[1]) for v in values)
        return np.asarray([v[0] for v in values], dtype=np.float64).reshape(done, 2), off
    return np.asarray(values, dtype=np.float64).reshape(done, 2)


def _measure(stats: np.ndarray, delta: float, confidence: float) -> tuple[float, str, int, float, float]:
    """The test and the epsilon it shows, from the statistics of :func:`_run_both_sides`.

    The first half of the runs chooses the test (threshold, comparison, dataset it points
    to); the second half counts its false positives and negatives, whose Clopper-Pearson
    upper bounds give the lower bound on epsilon. Returns ``(threshold, op, says,
    epsilon_lower, epsilon_point)``.
    """
    s0, s1 = np.asarray(stats[:, 0], dtype=np.float64), np.asarray(stats[:, 1], dtype=np.float64)
    half = len(stats) // 2
    alpha = 1.0 - confidence
    threshold, op, says = _choose_test(s0[:half], s1[:half], delta, alpha)
    e0, e1 = s0[half:], s1[half:]
    fp, fn_ = _error_counts(e0, e1, np.array([threshold]), op, says)
    fp_k, fn_k = int(fp[0]), int(fn_[0])
    fp_u = _cp_upper(len(e0), alpha / 2.0)[fp_k]
    fn_u = _cp_upper(len(e1), alpha / 2.0)[fn_k]
    lower = float(_eps_from_rates(np.array([fp_u]), np.array([fn_u]), delta)[0])
    point = float(_eps_from_rates(np.array([fp_k / len(e0)]), np.array([fn_k / len(e1)]), delta)[0])
    return threshold, op, says, lower, point


def audit(
    mechanism: Callable[..., Any],
    pair: NeighbouringPair,
    *,
    claimed_epsilon: float,
    claimed_delta: float = 0.0,
    statistic: Callable[[Any], float] | None = None,
    runs: int = 1000,
    confidence: float = 0.95,
    random_state: RandomState = None,
    n_jobs: int = 1,
    chunk: int = 50,
    progress: Callable[[float, str], None] | None = None,
    stop: threading.Event | None = None,
    scheduler: str | None = None,
    grid: float | None = None,
) -> AuditResult:
    """Measure a lower bound on a mechanism's epsilon and check it against the claim.

    Parameters
    ----------
    mechanism : callable
        ``mechanism(dataset, random_state=seed) -> output``, run on ``pair.d0`` and
        ``pair.d1``; it must draw all its randomness from ``seed`` (an int).
    pair : NeighbouringPair
        Two neighbouring datasets (see :func:`replace_pair`).
    claimed_epsilon : float
        The epsilon the mechanism claims, > 0; ``math.inf`` when it claims none (then
        the audit only reports the bound it finds).
    claimed_delta : float
        The claimed delta, 0 (pure DP) or in (0, 1); it enters the bound.
    statistic : callable, optional
        ``statistic(output) -> float``, the number the tests threshold. Default
        ``float(output)`` (scalar outputs).
    runs : int
        Runs per side (``2 * runs`` mechanism calls), at least 20. The bound can never
        exceed :func:`audit_ceiling` of the runs (returned as ``ceiling``): with 1,000 per
        side at 95%, 4.9, even for a mechanism with no privacy at all; a bound at the
        ceiling means more runs could show more.
    confidence : float
        Probability, strictly between 0 and 1, with which ``epsilon_lower`` is a valid
        lower bound (shared between the FP and FN bounds by Bonferroni).
    random_state : int, Generator or None
        Draws every run's seed up front; the same int gives the same result bit for bit,
        whatever ``n_jobs``, ``chunk`` and ``scheduler``.
    n_jobs : int
        Local worker processes when no scheduler is configured (see
        :func:`core.runtime.experiments.map_seeds`); off this process the mechanism and statistic
        are pickled (cloudpickle) and sent to each worker once.
    chunk : int
        Runs per side in one task (one task makes ``2 * chunk`` mechanism calls); larger
        chunks amortise the per-task overhead, smaller ones report progress and stop
        sooner.
    progress : callable(fraction, message), optional
        Called after every chunk with the share of runs done.
    stop : threading.Event, optional
        When set, the running chunk finishes and the audit returns what it measured from
        the runs done (``stopped=True``).
    scheduler : str, optional
        A Dask scheduler to run the chunks on (:func:`core.runtime.compute.resolve_scheduler`;
        default ``$PUX_SCHEDULER``, else this process or ``n_jobs`` local workers).
    grid : float, optional
        The grid the mechanism's ledger says its outputs lie on (> 0). Each run's whole
        output (a number or an array of numbers) is checked, exactly, for values that are
        not multiples of it (:func:`off_grid_share`); ``off_grid`` counts those runs. An
        exact sampler gives 0; floating-point noise or a step after the noise that leaves
        the grid gives many.

    Returns
    -------
    AuditResult

    Raises
    ------
    TypeError
        ``mechanism`` or ``statistic`` not callable, ``pair`` not a NeighbouringPair, an
        output the statistic cannot turn into a number, or (with ``grid``) an output that
        is not numbers.
    ValueError
        Fewer than 20 runs per side (asked for, or done before a stop), a bad epsilon,
        delta or confidence.
    """
    start = time.perf_counter()
    eps_claim, delta, n_runs, conf, size = _check_audit_args(
        mechanism, statistic, pair, claimed_epsilon, claimed_delta, runs, confidence, chunk, stop
    )
    g = None if grid is None else _check_grid(grid)
    stats = _run_both_sides(mechanism, statistic, pair, n_runs=n_runs, chunk=size,
                            random_state=random_state, n_jobs=n_jobs, scheduler=scheduler,
                            progress=progress, stop=stop, grid=g)
    off = None
    if g is not None:
        stats, off = stats
    threshold, op, says, lower, point = _measure(stats, delta, conf)
    return AuditResult(
        claimed_epsilon=eps_claim, claimed_delta=delta, epsilon_lower=lower, epsilon_point=point,
        runs=len(stats), threshold=threshold, direction=f"statistic {op} {threshold!r} on D{says}",
        confidence=conf, violation=bool((not math.isinf(eps_claim)) and lower > eps_claim + 1e-12),
        seconds=time.perf_counter() - start, description=pair.description, stopped=len(stats) < n_runs,
        ceiling=audit_ceiling(len(stats), confidence=conf, delta=delta), grid=g, off_grid=off,
    )
