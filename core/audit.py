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
   ("statistic > t" and "statistic < t", each pointing to D1 and to D0, with t at 100
   quantiles of that half's statistics) and the one whose empirical epsilon is largest is
   chosen. The empirical epsilon of a test here is its Clopper-Pearson lower bound on that
   half: a raw ratio of rates would favour thresholds in the tails, where a handful of runs
   give an infinite ratio.
3. On the second half, independent of the choice, the chosen test's FP and FN get one-sided
   Clopper-Pearson upper bounds, each at level ``1 - alpha / 2`` with
   ``alpha = 1 - confidence`` (Bonferroni: both hold together with probability at least
   ``confidence``). Put into the inequality above they give ``epsilon_lower``, a lower
   bound on the mechanism's true epsilon that holds with probability ``confidence``. The
   same half's plain rates give a point estimate.

A lower bound above the claimed epsilon is evidence of a bug (noise too small, a wrong
sensitivity, a leak outside the noise). A lower bound below the claim proves nothing: the
audit can only find violations. It tries one pair of datasets and one family of tests on
one statistic, with finitely many runs; another pair, statistic or test may reveal more,
and privacy is a promise about all of them.

The pair must be neighbours under the project's one relation
(:data:`core.mechanisms.NEIGHBOURING_RELATION`: one record replaced by any other, ``n``
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

from core.experiments import map_seeds
from core.validation import (
    RandomState,
    check_delta,
    check_epsilon,
    check_positive_int,
    check_random_state,
    draw_seeds,
)

__all__ = [
    "AuditResult",
    "NeighbouringPair",
    "audit",
    "extreme_record",
    "flip_value",
    "replace_pair",
    "replace_record",
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


# --------------------------------------------------------------------------- result


def _fmt(x: float) -> str:
    return "inf" if math.isinf(x) else f"{x:.3g}"


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
        The same formula with the plain rates on the evaluation half (no confidence; may
        be inf when the test made no error there).
    runs : int
        Runs per side that were done (``2 * runs`` mechanism calls).
    threshold : float
        The chosen test's threshold on the statistic.
    direction : str
        The chosen test in words, e.g. "statistic > 0.53 on D1": the test says the run
        came from D1 when the statistic is above 0.53.
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
        """All fields plus ``verdict`` and ``runs_per_second``, as plain Python values."""
        out = asdict(self)
        out["runs_per_second"] = self.runs_per_second
        out["verdict"] = self.verdict
        return out


# --------------------------------------------------------------------------- audit


def _one_run(mechanism: Callable, statistic: Callable | None, datasets: tuple, job: tuple) -> float:
    side, seed = job
    output = mechanism(datasets[side], random_state=seed)
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
    return value


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

# the four tests: (operator, side the test points to when the statistic passes)
_TESTS = ((">", 1), (">", 0), ("<", 1), ("<", 0))


def _error_counts(s0: np.ndarray, s1: np.ndarray, thresholds: np.ndarray, op: str, says: int):
    """Counts of false positives (D0 runs called D1) and false negatives (D1 runs called D0)."""
    def passing(s: np.ndarray) -> np.ndarray:
        srt = np.sort(s)
        if op == ">":
            return len(s) - np.searchsorted(srt, thresholds, side="right")
        return np.searchsorted(srt, thresholds, side="left")

    p0, p1 = passing(s0), passing(s1)
    if says == 1:
        return p0, len(s1) - p1
    return len(s0) - p0, p1


def _choose_test(s0: np.ndarray, s1: np.ndarray, delta: float, alpha: float):
    """The threshold test with the largest Clopper-Pearson epsilon on the selection half."""
    pooled = np.sort(np.concatenate([s0, s1]))
    values = np.unique(pooled)
    # a threshold halfway below each distinct value (-inf below the smallest) ...
    mids = np.concatenate([[-math.inf], values[:-1] + np.diff(values) / 2.0])
    # ... at THRESHOLD_GRID quantiles of the pooled statistics only
    at = np.unique(np.round(np.linspace(0, len(pooled) - 1, THRESHOLD_GRID)).astype(np.int64))
    thresholds = np.unique(mids[np.searchsorted(values, pooled[at])])
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
                    progress, stop) -> np.ndarray:
    """Run the mechanism ``n_runs`` times on each dataset of ``pair`` (fewer when stopped).

    Every run's seed is drawn up front from ``random_state``. Returns the statistics, shape
    (runs per side done, 2): column 0 on ``pair.d0``, column 1 on ``pair.d1``.
    """
    rng = check_random_state(random_state)
    seeds = draw_seeds(rng, (2, n_runs))
    # interleaved, so that any prefix (a stopped audit) has as many runs on each side
    jobs = [(side, int(seeds[side, r])) for r in range(n_runs) for side in (0, 1)]
    fn = partial(_one_run, mechanism, statistic, (pair.d0, pair.d1))
    values = map_seeds(fn, jobs, chunk=2 * chunk, n_jobs=n_jobs, scheduler=scheduler,
                       progress=progress, stop=stop)
    done = len(values) // 2
    if done < MIN_RUNS:
        raise ValueError(
            f"only {done} runs per side were done before the stop; an audit needs at least "
            f"{MIN_RUNS} per side."
        )
    return np.asarray(values[: 2 * done], dtype=float).reshape(done, 2)


def _measure(stats: np.ndarray, delta: float, confidence: float) -> tuple[float, str, int, float, float]:
    """The test and the epsilon it shows, from the statistics of :func:`_run_both_sides`.

    The first half of the runs chooses the test (threshold, comparison, dataset it points
    to); the second half counts its false positives and negatives, whose Clopper-Pearson
    upper bounds give the lower bound on epsilon. Returns ``(threshold, op, says,
    epsilon_lower, epsilon_point)``.
    """
    s0, s1 = stats[:, 0], stats[:, 1]
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
        Runs per side (``2 * runs`` mechanism calls), at least 20. The bound grows with the
        runs: with 1000 per side it rarely exceeds about 2 even for no privacy at all.
    confidence : float
        Probability, strictly between 0 and 1, with which ``epsilon_lower`` is a valid
        lower bound (shared between the FP and FN bounds by Bonferroni).
    random_state : int, Generator or None
        Draws every run's seed up front; the same int gives the same result bit for bit,
        whatever ``n_jobs``, ``chunk`` and ``scheduler``.
    n_jobs : int
        Local worker processes when no scheduler is configured (see
        :func:`core.experiments.map_seeds`); off this process the mechanism and statistic
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
        A Dask scheduler to run the chunks on (:func:`core.compute.resolve_scheduler`;
        default ``$PUX_SCHEDULER``, else this process or ``n_jobs`` local workers).

    Returns
    -------
    AuditResult

    Raises
    ------
    TypeError
        ``mechanism`` or ``statistic`` not callable, ``pair`` not a NeighbouringPair, or
        an output the statistic cannot turn into a number.
    ValueError
        Fewer than 20 runs per side (asked for, or done before a stop), a bad epsilon,
        delta or confidence.
    """
    start = time.perf_counter()
    eps_claim, delta, n_runs, conf, size = _check_audit_args(
        mechanism, statistic, pair, claimed_epsilon, claimed_delta, runs, confidence, chunk, stop
    )
    stats = _run_both_sides(mechanism, statistic, pair, n_runs=n_runs, chunk=size,
                            random_state=random_state, n_jobs=n_jobs, scheduler=scheduler,
                            progress=progress, stop=stop)
    threshold, op, says, lower, point = _measure(stats, delta, conf)
    return AuditResult(
        claimed_epsilon=eps_claim, claimed_delta=delta, epsilon_lower=lower, epsilon_point=point,
        runs=len(stats), threshold=threshold, direction=f"statistic {op} {threshold:.4g} on D{says}",
        confidence=conf, violation=bool((not math.isinf(eps_claim)) and lower > eps_claim + 1e-12),
        seconds=time.perf_counter() - start, description=pair.description, stopped=len(stats) < n_runs,
    )
