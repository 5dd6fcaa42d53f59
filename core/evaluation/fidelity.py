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

Beside them: :func:`halves_reference` (two random halves of the real table against each
other: what sampling noise alone scores), :func:`column_notes` (an identifier or a constant
column, whose scores say little) and :func:`capped` (both tables cut to a seeded sample of
rows). Each column is coded once and each pair counted with one ``bincount``, so 105 pairs
of 5,000 Adult rows take a fraction of a second (SDMetrics' own distance measure runs out
of memory at 32,500 rows, its issue #760; these scores need no distances).
"""
from __future__ import annotations

from dataclasses import dataclass
from itertools import combinations
from typing import Sequence

import numpy as np
import pandas as pd
from scipy.stats import ks_2samp
from scipy.stats.contingency import association

from core.data.dataset import is_quantity
from core.data.identifiers import detect_identifiers
from core.runtime.randomness import RandomState, check_random_state
from core.validation import check_positive_int

__all__ = ["BINS", "MISSING", "capped", "column_notes", "column_shape", "column_shapes", "contingency_similarity",
           "correlation_similarity", "fidelity_summary", "halves_reference", "ks_complement", "pair_trend",
           "pair_trends", "tv_complement"]

#: equal-width bins of a numeric column in a contingency table (SDMetrics' default)
BINS = 10
#: the value a missing cell counts as in a frequency table
MISSING = "(missing)"



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
    return float(1.0 - ks_2samp(a, b, method="asymp").statistic)  # the statistic only: no exact p-value


def _shares(frame: pd.DataFrame) -> pd.Series:
    """Relative frequency of each combination of values (missing values count as values)."""
    keys = frame.astype(object).where(frame.notna(), MISSING)
    return keys.value_counts(normalize=True, dropna=False)


def _tv_distance(real: pd.DataFrame, release: pd.DataFrame) -> float:
    p, q = _shares(real), _shares(release)
    both = p.index.union(q.index, sort=False)
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


@dataclass(frozen=True)
class _Coded:
    """One column of both tables as integer codes over one shared set of cells (a bin of the
    real range or a category; missing values a cell of their own): ``k`` cells in all."""

    real: np.ndarray
    release: np.ndarray
    k: int
    numeric: bool  # a quantity on both sides: Pearson r for a pair of two such columns


def _numbers(column: pd.Series) -> np.ndarray:
    return pd.to_numeric(column, errors="coerce").to_numpy(dtype=float)


def _coded(real: pd.Series, release: pd.Series, bins: int) -> _Coded:
    """Both sides of a column coded: a numeric column cut into ``bins`` equal-width bins of the
    real column's range (the outer bins open, so a release value outside the real range still
    falls in one), any other column by its values."""
    numeric = is_quantity(real) and is_quantity(release)
    values = _numbers(real) if numeric else np.empty(0)
    finite = values[np.isfinite(values)]
    if numeric and len(finite):
        inner = np.unique(np.histogram_bin_edges(finite, bins=bins)[1:-1])

        def cut(column: pd.Series) -> np.ndarray:
            v = _numbers(column)
            return np.where(np.isnan(v), len(inner) + 1, np.searchsorted(inner, v, side="left"))

        return _Coded(cut(real), cut(release), len(inner) + 2, numeric)
    keys = pd.concat([real.astype(object), release.astype(object)], ignore_index=True)
    codes, uniques = pd.factorize(keys.where(keys.notna(), MISSING), use_na_sentinel=False)
    return _Coded(codes[:len(real)], codes[len(real):], max(len(uniques), 1), numeric)


def _joint(a: np.ndarray, b: np.ndarray, ka: int, kb: int) -> np.ndarray:
    """The contingency table (counts) of two coded columns of one table."""
    return np.bincount(a * kb + b, minlength=ka * kb).reshape(ka, kb)


def _joint_tv(left: _Coded, right: _Coded) -> float:
    """Total variation distance between the real and the released joint frequency tables."""
    p = _joint(left.real, right.real, left.k, right.k)
    q = _joint(left.release, right.release, left.k, right.k)
    return float(0.5 * np.abs(p / p.sum() - q / q.sum()).sum())


def _pair(real: pd.DataFrame, release: pd.DataFrame, bins: int) -> tuple[_Coded, _Coded]:
    left, right = real.columns
    return _coded(real[left], release[left], bins), _coded(real[right], release[right], bins)


def contingency_similarity(real: pd.DataFrame, release: pd.DataFrame, *, bins: int = BINS) -> float:
    """1 - the total variation distance between the joint frequency tables of two columns;
    a numeric column is cut into ``bins`` equal-width bins of its real range first."""
    bins = check_positive_int(bins, name="bins")
    return 1.0 - _joint_tv(*_pair(real, release, bins))


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
    [0, 1]), ``difference`` (real minus release) and ``score``.

    Each column is coded once (its bins, its categories), each pair counted with one
    ``bincount``: 105 pairs of 5,000 Adult rows take a fraction of a second.
    """
    names = _shared_columns(real, release, columns)
    bins = check_positive_int(bins, name="bins")
    coded = {n: _coded(real[n], release[n], bins) for n in names}
    rows = []
    for left, right in combinations(names, 2):
        a, b = coded[left], coded[right]
        if a.numeric and b.numeric:
            r_real, r_release = _pearson(real[[left, right]]), _pearson(release[[left, right]])
            row = ("CorrelationSimilarity", r_real, r_release, 1.0 - abs(r_real - r_release) / 2.0)
        else:
            row = ("ContingencySimilarity", _cramers_v(_joint(a.real, b.real, a.k, b.k)),
                   _cramers_v(_joint(a.release, b.release, a.k, b.k)), 1.0 - _joint_tv(a, b))
        rows.append(dict(zip(("left", "right", "metric", "real", "release", "score"), (left, right, *row))))
    out = pd.DataFrame(rows, columns=["left", "right", "metric", "real", "release", "score"])
    out.insert(5, "difference", out["real"] - out["release"])
    return out


def _cramers_v(table: np.ndarray) -> float:
    """Cramer's V of a contingency table (its empty rows and columns left out); nan when a
    column holds one value only."""
    table = table[table.sum(axis=1) > 0][:, table.sum(axis=0) > 0]
    if min(table.shape) < 2:
        return float("nan")
    return float(association(table, method="cramer"))


def _pearson(frame: pd.DataFrame) -> float:
    values = frame.apply(pd.to_numeric, errors="coerce").dropna().to_numpy(dtype=float)
    if len(values) < 2 or np.any(values.std(axis=0) == 0):
        return float("nan")
    return float(np.corrcoef(values[:, 0], values[:, 1])[0, 1])


def capped(real: pd.DataFrame, release: pd.DataFrame, *, max_rows: int,
           random_state: RandomState = None) -> tuple[pd.DataFrame, pd.DataFrame]:
    """Both tables with at most ``max_rows`` rows each, their index reset.

    Parameters
    ----------
    real, release : DataFrame
        The real table and the release.
    max_rows : int
        Rows of each side kept at most: above it a seeded sample (in the table's order). When
        both tables have as many rows, the same positions on both sides, so a release aligned
        with the real rows (the raw table, a microaggregation) keeps its pairs of rows and a
        copy of the real table still scores 1. The scores stay evaluation of the private rows:
        the sample changes their cost, not what they read.
    random_state : int, Generator or None
        Seeds the sample (a display seed: the same rows every time).
    """
    real, release = _frame(real, "real"), _frame(release, "release")
    max_rows = check_positive_int(max_rows, name="max_rows")
    rng = check_random_state(random_state)

    def take(n: int) -> np.ndarray | None:
        return None if n <= max_rows else np.sort(rng.choice(n, size=max_rows, replace=False))

    first = take(len(real))
    second = first if len(release) == len(real) else take(len(release))
    pick = [frame if at is None else frame.iloc[at] for frame, at in ((real, first), (release, second))]
    return pick[0].reset_index(drop=True), pick[1].reset_index(drop=True)


def column_notes(real: pd.DataFrame, columns: Sequence[str] | None = None) -> dict[str, str]:
    """What the scores of a column cannot say, in words, for the columns of ``real`` that need it.

    - an identifier (:func:`core.data.identifiers.detect_identifiers`: a row number, a key):
      its shape score only compares where its values lie, and its pairs say nothing about the
      records;
    - a column with one value in the real table: its shape score only says how often the
      release keeps that value, and its association with any other column is undefined
      (blank in the heatmap; no pair-trend score beside another number).

    Parameters
    ----------
    real : DataFrame
        The real table (read for these notes only: they are shown, never released).
    columns : sequence of str, optional
        The columns to look at (default: every column).

    Returns
    -------
    dict
        Column name -> the note (no user text in it but counts), in the table's column order.
    """
    real = _frame(real, "real")
    names = list(real.columns) if columns is None else list(columns)
    keys = detect_identifiers(real[names])
    out: dict[str, str] = {}
    for name in names:
        if name in keys:
            out[name] = (f"{keys[name]}: it reads as an identifier (a row number or a key), not a property of "
                         "the record. Its shape score only compares where its values lie, and its pairs say "
                         "nothing about the records; mark it as an identifier on the Data page to leave it out.")
        elif real[name].nunique(dropna=False) <= 1:
            out[name] = ("one value in every real row: its shape score only says how often the release keeps "
                         "that value, and its association with any other column is undefined (blank in the "
                         "heatmap; no pair-trend score beside another number).")
    return out


def fidelity_summary(real: pd.DataFrame, release: pd.DataFrame, columns: Sequence[str] | None = None) -> dict:
    """The two means SDMetrics' quality report gives: ``column_shapes`` and ``pair_trends``
    (nan scores left out; nan when there is nothing to average)."""
    shapes = column_shapes(real, release, columns)["score"]
    trends = pair_trends(real, release, columns)["score"]
    return {"column_shapes": float(shapes.mean()) if shapes.notna().any() else float("nan"),
            "pair_trends": float(trends.mean()) if trends.notna().any() else float("nan")}


def halves_reference(real: pd.DataFrame, columns: Sequence[str] | None = None, *,
                     random_state: RandomState = None) -> dict:
    """The scores of sampling noise alone: two disjoint random halves of the real table against
    each other (:func:`fidelity_summary`), the reference a release's scores are read against.

    A release drawn from the real rows' own distribution could score no better than this
    (a little better, in fact: each half has half the rows, so a little more noise).

    Parameters
    ----------
    real : DataFrame
        The real table (private: the reference is evaluation, shown, never released).
    columns : sequence of str, optional
        The columns to score (default: every column).
    random_state : int, Generator or None
        Seeds the split (a display seed).

    Returns
    -------
    dict
        ``column_shapes`` and ``pair_trends`` as :func:`fidelity_summary` gives them (NaN with
        fewer than two rows) and ``rows``, the rows of each half.
    """
    real = _frame(real, "real")
    names = list(real.columns) if columns is None else list(columns)
    half = len(real) // 2
    if half < 1 or not names:
        return {"column_shapes": float("nan"), "pair_trends": float("nan"), "rows": half}
    order = check_random_state(random_state).permutation(len(real))
    first, second = (real.iloc[np.sort(order[a:b])][names] for a, b in ((0, half), (half, 2 * half)))
    return {**fidelity_summary(first, second), "rows": half}
