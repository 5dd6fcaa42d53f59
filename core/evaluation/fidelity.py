"""Real against release: one score per column and per pair of columns, as SDMetrics defines them.

A released table (synthetic, perturbed, microaggregated) is read column by column and pair
by pair against the real table it came from. The scores follow SDMetrics' quality report
(written here: SDMetrics itself pins pandas < 3):

- **column shape** of a numeric column is ``KSComplement`` = 1 - the two-sample
  Kolmogorov-Smirnov statistic (the largest gap between the two empirical distribution
  functions); of a categorical column ``TVComplement`` = 1 - the total variation distance
  between the two frequency tables;
- **pair trend** of two numeric columns is ``CorrelationSimilarity`` = 1 - |r_real -
  r_release| / 2 (Pearson); of a pair with a categorical column ``ContingencySimilarity`` =
  1 - the total variation distance between the two joint frequency tables, numeric columns
  cut into 10 equal-width bins of the real column's range (outer bins open).

Every score lies in [0, 1]; 1 is a release indistinguishable on that marginal. These are
SDMetrics' scores, so a number here reads like one from SDMetrics; Compare's older fidelity
measures (:func:`core.imposter.evaluation.marginal_tv`: total variation on *quantile* bins,
one and two columns at a time) stay as they are, and the two are not mixed in one number. Missing
values are a category of their own in frequency tables and are left out of the numeric
statistics. These scores read the private table, bins of its numeric columns included:
they are evaluation for the page and the report, never part of a release.
"""
from __future__ import annotations

from functools import partial
from itertools import combinations
from typing import Sequence

import numpy as np
import pandas as pd
from scipy.stats import ks_2samp
from scipy.stats.contingency import association

from core.data.dataset import is_quantity
from core.validation import check_positive_int

__all__ = ["BINS", "column_shape", "column_shapes", "contingency_similarity", "correlation_similarity",
           "fidelity_summary", "ks_complement", "pair_trend", "pair_trends", "tv_complement"]

#: equal-width bins of a numeric column in a contingency table (SDMetrics' default)
BINS = 10



def _frame(value: object, name: str) -> pd.DataFrame:
    if not isinstance(value, pd.DataFrame):
        raise TypeError(f"{name} must be a pandas DataFrame, got {type(value).__name__}.")
    return value


def _shared_columns(real: pd.DataFrame, release: pd.DataFrame, columns: Sequence[str] | None) -> list[str]:
    real, release = _frame(real, "real"), _frame(release, "release")
    names = [c for c in real.columns if c in release.columns] if columns is None else list(columns)
    missing = [c for c in names if c not in real.columns or c not in release.columns]
    if missing:
        raise ValueError(f"Columns {missing} are not in both tables: score only the columns they share.")
    if len(real) == 0 or len(release) == 0:
        raise ValueError("Both tables need at least one row to be compared.")
    return names


def ks_complement(real: pd.Series, release: pd.Series) -> float:
    """1 - the Kolmogorov-Smirnov statistic of two numeric columns (missing values left out);
    nan when either side has no value."""
    a = pd.to_numeric(real, errors="coerce").dropna().to_numpy(dtype=float)
    b = pd.to_numeric(release, errors="coerce").dropna().to_numpy(dtype=float)
    if len(a) == 0 or len(b) == 0:
        return float("nan")
    return float(1.0 - ks_2samp(a, b).statistic)


def _shares(frame: pd.DataFrame) -> pd.Series:
    """Relative frequency of each combination of values (missing values count as values)."""
    keys = frame.astype(object).where(frame.notna(), "(missing)")
    return keys.value_counts(normalize=True, dropna=False)


def _tv_distance(real: pd.DataFrame, release: pd.DataFrame) -> float:
    p, q = _shares(real), _shares(release)
    both = p.index.union(q.index)
    return float(0.5 * np.abs(p.reindex(both, fill_value=0.0) - q.reindex(both, fill_value=0.0)).sum())


def tv_complement(real: pd.Series, release: pd.Series) -> float:
    """1 - the total variation distance between the frequency tables of two columns."""
    return 1.0 - _tv_distance(real.to_frame("x"), release.to_frame("x"))


def column_shape(real: pd.Series, release: pd.Series) -> float:
    """KSComplement for a numeric column (on both sides), TVComplement otherwise."""
    if is_quantity(real) and is_quantity(release):
        return ks_complement(real, release)
    return tv_complement(real.astype(object), release.astype(object))


def correlation_similarity(real: pd.DataFrame, release: pd.DataFrame) -> float:
    """1 - |r_real - r_release| / 2 for the two numeric columns of each table (Pearson, rows
    with a missing value left out); nan when a correlation is undefined (a constant column)."""
    return float(1.0 - abs(_pearson(real) - _pearson(release)) / 2.0)


def _binned(real: pd.Series, release: pd.Series, bins: int) -> tuple[pd.Series, pd.Series]:
    """Both columns cut into ``bins`` equal-width bins of the real column's range, the outer
    bins open so that release values outside the real range still fall in one."""
    values = pd.to_numeric(real, errors="coerce").dropna().to_numpy(dtype=float)
    if len(values) == 0:
        return real.astype(object), release.astype(object)
    inner = np.histogram_bin_edges(values, bins=bins)[1:-1]
    edges = np.unique(np.concatenate([[-np.inf], inner, [np.inf]]))

    def cut(column: pd.Series) -> pd.Series:
        codes = pd.cut(pd.to_numeric(column, errors="coerce"), edges, labels=False)
        return codes.astype(object)

    return cut(real), cut(release)


def contingency_similarity(real: pd.DataFrame, release: pd.DataFrame, *, bins: int = BINS) -> float:
    """1 - the total variation distance between the joint frequency tables of two columns;
    a numeric column is cut into ``bins`` equal-width bins of its real range first."""
    bins = check_positive_int(bins, name="bins")
    a, b = real.copy(), release.copy()
    for name in a.columns:
        if is_quantity(a[name]) and is_quantity(b[name]):
            a[name], b[name] = _binned(a[name], b[name], bins)
    return 1.0 - _tv_distance(a.astype(object), b.astype(object))


def pair_trend(real: pd.DataFrame, release: pd.DataFrame, *, bins: int = BINS) -> float:
    """CorrelationSimilarity when both columns are numeric on both sides, else ContingencySimilarity."""
    if all(is_quantity(real[c]) and is_quantity(release[c]) for c in real.columns):
        return correlation_similarity(real, release)
    return contingency_similarity(real, release, bins=bins)


def column_shapes(real: pd.DataFrame, release: pd.DataFrame, columns: Sequence[str] | None = None) -> pd.DataFrame:
    """One row per column: ``column``, ``metric`` (KSComplement or TVComplement) and ``score``.

    Parameters
    ----------
    real, release : DataFrame
        The real table (private: the scores are evaluation, never released) and the release.
    columns : sequence of str, optional
        The columns to score (default: every column the two tables share).
    """
    rows = []
    for name in _shared_columns(real, release, columns):
        numeric = is_quantity(real[name]) and is_quantity(release[name])
        rows.append({"column": name, "metric": "KSComplement" if numeric else "TVComplement",
                     "score": column_shape(real[name], release[name])})
    return pd.DataFrame(rows, columns=["column", "metric", "score"])


def pair_trends(real: pd.DataFrame, release: pd.DataFrame, columns: Sequence[str] | None = None, *,
                bins: int = BINS) -> pd.DataFrame:
    """One row per pair of columns: ``left``, ``right``, ``metric`` (CorrelationSimilarity or
    ContingencySimilarity), ``real`` and ``release`` (the pair's association on each side:
    Pearson r for two numeric columns, else Cramer's V of the binned contingency table, in
    [0, 1]), ``difference`` (real minus release) and ``score``."""
    rows = []
    for left, right in combinations(_shared_columns(real, release, columns), 2):
        a, b = real[[left, right]], release[[left, right]]
        numeric = all(is_quantity(a[c]) and is_quantity(b[c]) for c in (left, right))
        strength = _pearson if numeric else partial(_cramers_v, reference=a, bins=bins)
        rows.append({"left": left, "right": right,
                     "metric": "CorrelationSimilarity" if numeric else "ContingencySimilarity",
                     "real": strength(a), "release": strength(b), "score": pair_trend(a, b, bins=bins)})
    out = pd.DataFrame(rows, columns=["left", "right", "metric", "real", "release", "score"])
    out.insert(5, "difference", out["real"] - out["release"])
    return out


def _cramers_v(frame: pd.DataFrame, *, reference: pd.DataFrame, bins: int) -> float:
    """Cramer's V of two columns, a numeric one cut into the bins of ``reference`` (the real
    pair); nan when a column holds one value only."""
    coded = frame.copy()
    for name in frame.columns:
        if is_quantity(reference[name]) and is_quantity(frame[name]):
            coded[name] = _binned(reference[name], frame[name], bins)[1]
    keys = coded.astype(object).where(coded.notna(), "(missing)")
    table = pd.crosstab(keys.iloc[:, 0], keys.iloc[:, 1]).to_numpy()
    if min(table.shape) < 2:
        return float("nan")
    return float(association(table, method="cramer"))


def _pearson(frame: pd.DataFrame) -> float:
    values = frame.apply(pd.to_numeric, errors="coerce").dropna().to_numpy(dtype=float)
    if len(values) < 2 or np.any(values.std(axis=0) == 0):
        return float("nan")
    return float(np.corrcoef(values[:, 0], values[:, 1])[0, 1])


def fidelity_summary(real: pd.DataFrame, release: pd.DataFrame, columns: Sequence[str] | None = None) -> dict:
    """The two means SDMetrics' quality report gives: ``column_shapes`` and ``pair_trends``
    (nan scores left out; nan when there is nothing to average)."""
    shapes = column_shapes(real, release, columns)["score"]
    trends = pair_trends(real, release, columns)["score"]
    return {"column_shapes": float(shapes.mean()) if shapes.notna().any() else float("nan"),
            "pair_trends": float(trends.mean()) if trends.notna().any() else float("nan")}
