"""Correlation between records and association between attributes.

This module holds the MIC primitive used by papers 000 and 003 (``mic``, ``mic_pairs``);
record correlation, correlated sensitivity and the association matrices are added by the
paper-000 work (docs/design.md section 4).
"""
from __future__ import annotations

import numbers
import os
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from typing import Any, Sequence

import numpy as np
import pandas as pd
from joblib import Parallel, delayed

from core.threads import blas_limit
from core.validation import DataError, RandomState, check_positive_int, check_random_state

__all__ = [
    "mic",
    "mic_pairs",
    "SensitivityReport",
    "correlated_sensitivity",
    "record_correlation",
    "data_correlation",
    "attribute_association",
]


def mic(x: np.ndarray, y: np.ndarray, *, alpha: float = 0.6, c: float = 15) -> float:
    """Maximal information coefficient of two numeric vectors (minepy, the original approximate estimator of Reshef et al. 2011).

    Parameters
    ----------
    x, y : ndarray of shape (n,)
        The two variables (categoricals as codes).
    alpha : float
        Grid-size exponent: grids up to n**alpha cells (minepy's ``alpha``).
    c : float
        Clumps factor (minepy's ``c``).

    Returns
    -------
    float
        MIC in [0, 1]: 1 for a noiseless functional relation, near 0 for independence.
    """
    from minepy import MINE  # imported here: minepy is a compiled extra built at setup

    x = np.ascontiguousarray(x, dtype=np.float64)
    y = np.ascontiguousarray(y, dtype=np.float64)
    if x.shape != y.shape or x.ndim != 1:
        raise ValueError("x and y must be 1-D arrays of the same length.")
    if len(x) < 4:
        raise ValueError("MIC needs at least 4 observations.")
    if np.ptp(x) == 0 or np.ptp(y) == 0:
        return 0.0
    mine = MINE(alpha=alpha, c=c, est="mic_approx")
    mine.compute_score(x, y)
    return float(mine.mic())


def mic_pairs(
    X: np.ndarray,
    pairs: Sequence[tuple[int, int]],
    *,
    alpha: float = 0.6,
    c: float = 15,
    max_rows: int | None = None,
    n_jobs: int = 1,
    random_state: RandomState = None,
) -> np.ndarray:
    """MIC for each (i, j) column pair of ``X``, optionally on a row sample, in parallel.

    Parameters
    ----------
    X : ndarray of shape (n, m)
        Numeric data.
    pairs : sequence of (int, int)
        Column index pairs.
    max_rows : int, optional
        Compute on at most this many rows drawn without replacement (MIC costs grow
        faster than linearly in n; the cap keeps pages interactive).
    n_jobs : int
        Worker processes (joblib); pairs are independent.
    random_state : int, Generator or None
        Draws the row sample.
    """
    X = np.asarray(X, dtype=np.float64)
    if max_rows is not None and len(X) > max_rows:
        rng = check_random_state(random_state)
        X = X[np.sort(rng.choice(len(X), size=max_rows, replace=False))]
    if n_jobs == 1 or len(pairs) < 2:
        return np.array([mic(X[:, i], X[:, j], alpha=alpha, c=c) for i, j in pairs])
    values = Parallel(n_jobs=n_jobs)(
        delayed(mic)(X[:, i], X[:, j], alpha=alpha, c=c) for i, j in pairs
    )
    return np.asarray(values, dtype=float)


# ---------------------------------------------------------------------------------------
# Paper 000: record correlation, correlated / group sensitivity, data correlation and
# attribute association (docs/design.md sections 3-4).
# ---------------------------------------------------------------------------------------

_MEASURES = ("pearson", "mahalanobis")
_SMALL_N = 8192
_EPS32 = float(np.finfo(np.float32).eps)


@dataclass(frozen=True)
class SensitivityReport:
    """Sensitivities of a count query under record correlation.

    Attributes
    ----------
    correlated : float
        Correlated sensitivity CS = max_i sum_j delta_ij (Eq. 16 with a unit query change):
        the most that one record, through the records correlated with it, can move a count.
    group : float
        Group sensitivity GS = max_i #{j : delta_ij >= delta0} (the Group scheme of Chen et
        al. 2014): every correlated record counted as fully correlated. CS <= GS always.
    per_record : ndarray of shape (n,)
        sum_j delta_ij for every record i (its own 1 included).
    per_record_count : ndarray of shape (n,)
        #{j : delta_ij >= delta0} for every record i (itself included).
    measure : str
        "pearson" or "mahalanobis".
    threshold : float
        delta0: correlations below it count as 0.
    """

    correlated: float
    group: float
    per_record: np.ndarray
    per_record_count: np.ndarray
    measure: str
    threshold: float

    @property
    def data_correlation(self) -> float:
        """C(x) = sum over i < j of the thresholded delta_ij."""
        return float((self.per_record.sum() - len(self.per_record)) / 2.0)


def _check_matrix(X: Any, name: str = "X") -> np.ndarray:
    if isinstance(X, (str, bytes)) or X is None:
        raise TypeError(f"{name} must be a 2-D numeric array, got {type(X).__name__}.")
    try:
        arr = np.asarray(X, dtype=np.float64)
    except (TypeError, ValueError) as exc:
        raise TypeError(f"{name} must be a 2-D numeric array.") from exc
    if arr.ndim != 2:
        raise ValueError(f"{name} must be 2-D (records x attributes), got {arr.ndim} dimension(s).")
    if arr.shape[0] < 1 or arr.shape[1] < 1:
        raise DataError(f"{name} needs at least one record and one attribute, got shape {arr.shape}.")
    if not np.all(np.isfinite(arr)):
        raise DataError(f"{name} has missing or infinite values; drop or fill them first.")
    return arr


def _check_measure(measure: Any) -> str:
    if not isinstance(measure, str):
        raise TypeError(f"measure must be a string, got {type(measure).__name__}.")
    if measure not in _MEASURES:
        raise ValueError(f"measure must be 'pearson' or 'mahalanobis', got {measure!r}.")
    return measure


def _check_threshold(threshold: Any) -> float:
    if isinstance(threshold, bool) or not isinstance(threshold, numbers.Real):
        raise TypeError(f"threshold must be a number, got {type(threshold).__name__}.")
    t = float(threshold)
    if not (0.0 < t <= 1.0):  # false for NaN too
        raise ValueError(
            f"threshold (delta0) must lie in (0, 1]: correlations below it count as 0; got {t:g}."
        )
    return t


def _pearson_rows(X: np.ndarray) -> np.ndarray:
    """Rows centred across their features and scaled to unit norm: a_i . a_j = r_ij.

    A record whose features are all equal has no defined Pearson correlation; its row is
    left at 0, so it correlates with nothing but itself.
    """
    A = X - X.mean(axis=1, keepdims=True)
    norm = np.sqrt(np.einsum("ij,ij->i", A, A))
    ok = norm > 1e-12 * max(1.0, float(np.abs(X).max(initial=0.0)))
    A[ok] /= norm[ok, None]
    A[~ok] = 0.0
    return A


def _whiten(X: np.ndarray) -> np.ndarray:
    """Coordinates in which Euclidean distance is the Mahalanobis distance of ``X``.

    Uses the feature covariance; directions of zero variance are dropped, which is the
    pseudo-inverse of a singular covariance.
    """
    Xc = X - X.mean(axis=0)
    if len(X) < 2:
        return np.zeros((len(X), 0))
    S = np.atleast_2d(np.cov(Xc, rowvar=False))
    w, V = np.linalg.eigh(S)
    keep = w > max(w.max(initial=0.0), 0.0) * 1e-10
    if not keep.any():
        return np.zeros((len(X), 0))
    return Xc @ (V[:, keep] / np.sqrt(w[keep]))


class _Kernel:
    """Blocked evaluation of the thresholded correlation delta_ij of all record pairs.

    Each block pair (I, J) with J >= I (symmetry) is one float32 BLAS product; entries
    that clear the threshold by more than the float32 error bound are taken as they are,
    entries within the bound are recomputed in float64, so the set of correlated pairs is
    exactly the float64 one, and values agree to float32 rounding.
    """

    def __init__(self, X: np.ndarray, measure: str, threshold: float) -> None:
        self.measure = measure
        self.t = threshold
        self.n = len(X)
        if measure == "pearson":
            self.F64 = _pearson_rows(X)
            k = self.F64.shape[1]
            self.L = self.R = np.ascontiguousarray(self.F64, dtype=np.float32)
            self.cut = threshold
            self.margin = 8.0 * (k + 2) * _EPS32
        else:
            Z = _whiten(X)
            self.F64 = Z
            k = Z.shape[1]
            nz = np.einsum("ij,ij->i", Z, Z)
            # [z_i, -|z_i|^2/2, 1] . [z_j, 1, -|z_j|^2/2] = -d_ij^2 / 2
            self.L = np.ascontiguousarray(
                np.hstack([Z, -0.5 * nz[:, None], np.ones((self.n, 1))]), dtype=np.float32
            )
            self.R = np.ascontiguousarray(
                np.hstack([Z, np.ones((self.n, 1)), -0.5 * nz[:, None]]), dtype=np.float32
            )
            d0 = 1.0 / threshold - 1.0  # m_ij >= t  <=>  d_ij <= 1/t - 1
            self.cut = -0.5 * d0 * d0
            self.margin = 8.0 * (k + 3) * _EPS32 * (float(nz.max(initial=0.0)) + 1.0)

    def exact(self, i: np.ndarray, j: np.ndarray) -> np.ndarray:
        """delta_ij in float64 (unthresholded) for index arrays i, j."""
        a, b = self.F64[i], self.F64[j]
        if self.measure == "pearson":
            return np.abs(np.einsum("ij,ij->i", a, b))
        diff = a - b
        return 1.0 / (1.0 + np.sqrt(np.einsum("ij,ij->i", diff, diff)))

    def block(self, i0: int, i1: int, j0: int, j1: int):
        """Pairs (i, j), i < j, of rows [i0, i1) x [j0, j1) with delta_ij >= t, and the values."""
        B = self.L[i0:i1] @ self.R[j0:j1].T
        if self.measure == "pearson":
            np.abs(B, out=B)
        idx = np.flatnonzero(B >= self.cut - self.margin)
        width = j1 - j0
        r, c = np.divmod(idx, width)
        vals = B.ravel()[idx].astype(np.float64)
        if i0 == j0:
            upper = c > r
            r, c, vals, idx = r[upper], c[upper], vals[upper], idx[upper]
        r += i0
        c += j0
        near = np.abs(vals - self.cut) <= self.margin
        if self.measure == "mahalanobis":
            near[:] = True  # m_ij needs a square root anyway: recompute every candidate
        if near.any():
            exact = self.exact(r[near], c[near])
            vals[near] = exact
            if self.measure == "mahalanobis":
                keep = vals >= self.t
            else:
                keep = np.ones(len(vals), dtype=bool)
                keep[near] = exact >= self.t
            r, c, vals = r[keep], c[keep], vals[keep]
        return r, c, vals


def _default_block(n: int, k: int) -> int:
    # ~4 MB float32 product blocks: they stay in cache for the abs / compare passes
    return int(max(64, min(n, 1024)))


def _iter_blocks(n: int, block: int):
    for i0 in range(0, n, block):
        i1 = min(n, i0 + block)
        for j0 in range(i0, n, block):
            yield i0, i1, j0, min(n, j0 + block)


def _prepare(X, measure, threshold, block_rows) -> tuple["_Kernel", int, int]:
    """Validate the inputs of a blocked pass; return its kernel, the row count and block size."""
    A = _check_matrix(X)
    kern = _Kernel(A, _check_measure(measure), _check_threshold(threshold))
    n = len(A)
    if block_rows is None:
        return kern, n, _default_block(n, A.shape[1])
    return kern, n, check_positive_int(block_rows, name="block_rows")


def correlated_sensitivity(
    X: Any,
    *,
    measure: str = "pearson",
    threshold: float = 0.8,
    block_rows: int | None = None,
) -> SensitivityReport:
    """Correlated (CS) and group (GS) sensitivity of a count query on the records of ``X``.

    The record correlation delta_ij is |Pearson(x_i, x_j)| across the attributes of the
    two records, or m_ij = 1 / (1 + Mahalanobis(x_i, x_j)) with the feature covariance;
    values below ``threshold`` become 0 and the diagonal is 1 (Eqs. 12-15 of paper 000).
    The n x n matrix is never held: row blocks of ``block_rows`` are multiplied in
    float32 with BLAS (only blocks on or above the diagonal, by symmetry), and the row
    sums are accumulated.

    Parameters
    ----------
    X : array_like of shape (n, m)
        One row per record (the unit of privacy), one column per original attribute,
        standardised (categoricals as ordinal codes; see
        :func:`core.cdp.sensitivity.record_matrix`).
    measure : {"pearson", "mahalanobis"}
        Correlated degree between two records.
    threshold : float
        delta0 in (0, 1]: weaker correlations are treated as none. A lower delta0 counts
        more records as correlated, so the sensitivity and the noise grow.
    block_rows : int, optional
        Rows per block (default 1024). Memory is about block_rows^2 * 4 bytes.

    Returns
    -------
    SensitivityReport
        ``correlated`` (CS), ``group`` (GS) and the per-record sums and counts.
    """
    kern, n, block = _prepare(X, measure, threshold, block_rows)
    row_starts = list(range(0, n, block))
    workers = 1 if n <= _SMALL_N else max(1, min(os.cpu_count() or 1, 4, len(row_starts)))

    def stripe(w: int) -> tuple[np.ndarray, np.ndarray]:
        # worker w takes every workers-th block row: the upper triangle's work is balanced
        sums = np.zeros(n)
        counts = np.zeros(n, dtype=np.int64)
        for i0 in row_starts[w::workers]:
            i1 = min(n, i0 + block)
            for j0 in range(i0, n, block):
                j1 = min(n, j0 + block)
                r, c, v = kern.block(i0, i1, j0, j1)
                if len(r):
                    sums[i0:i1] += np.bincount(r - i0, weights=v, minlength=i1 - i0)
                    sums[j0:j1] += np.bincount(c - j0, weights=v, minlength=j1 - j0)
                    counts[i0:i1] += np.bincount(r - i0, minlength=i1 - i0)
                    counts[j0:j1] += np.bincount(c - j0, minlength=j1 - j0)
        return sums, counts

    # one BLAS thread per worker; numpy releases the GIL in the products and the passes
    with blas_limit(1):
        if workers == 1:
            parts = [stripe(0)]
        else:
            with ThreadPoolExecutor(max_workers=workers) as pool:
                parts = list(pool.map(stripe, range(workers)))
    sums = 1.0 + sum(p[0] for p in parts)
    counts = 1 + sum(p[1] for p in parts)
    return SensitivityReport(
        correlated=float(sums.max()),
        group=float(counts.max()),
        per_record=sums,
        per_record_count=counts,
        measure=kern.measure,
        threshold=kern.t,
    )


def record_correlation(
    X: Any,
    *,
    measure: str = "pearson",
    threshold: float = 0.8,
    block_rows: int | None = None,
    max_pairs: int = 5_000_000,
):
    """The thresholded record-correlation matrix Lambda (Eq. 14-15) as a sparse matrix.

    Meant for small n (the heatmap of a sample, tests); the sensitivity of large data uses
    :func:`correlated_sensitivity`, which never stores the pairs.

    Parameters
    ----------
    X, measure, threshold, block_rows
        As in :func:`correlated_sensitivity`.
    max_pairs : int
        Refuse (DataError) when more correlated pairs than this would be stored.

    Returns
    -------
    scipy.sparse.csr_matrix of shape (n, n)
        delta_ij where it is >= threshold, 1 on the diagonal, symmetric.
    """
    from scipy import sparse

    kern, n, block = _prepare(X, measure, threshold, block_rows)
    rows, cols, vals = [np.arange(n)], [np.arange(n)], [np.ones(n)]
    stored = 0
    for i0, i1, j0, j1 in _iter_blocks(n, block):
        r, c, v = kern.block(i0, i1, j0, j1)
        stored += 2 * len(r)
        if stored > max_pairs:
            raise DataError(
                f"More than {max_pairs:,} correlated record pairs; use a sample of the "
                "records or a higher threshold to draw the matrix."
            )
        rows += [r, c]
        cols += [c, r]
        vals += [v, v]
    return sparse.csr_matrix(
        (np.concatenate(vals), (np.concatenate(rows), np.concatenate(cols))), shape=(n, n)
    )


def data_correlation(
    X: Any,
    *,
    measure: str = "pearson",
    threshold: float = 0.8,
    block_rows: int | None = None,
) -> float:
    """Data correlation C(x) = sum over record pairs i < j of the thresholded delta_ij.

    The more the records correlate, the more one record reveals about others; paper 000's
    DC-FBFS measures each attribute's share of it (Fig. 1-2).
    """
    return correlated_sensitivity(
        X, measure=measure, threshold=threshold, block_rows=block_rows
    ).data_correlation


def _codes_frame(frame: pd.DataFrame) -> np.ndarray:
    cols = []
    for col in frame.columns:
        s = frame[col]
        if pd.api.types.is_numeric_dtype(s) and not pd.api.types.is_bool_dtype(s):
            v = s.to_numpy(dtype=np.float64)
            if np.isnan(v).any():
                v = np.where(np.isnan(v), np.nanmedian(v) if (~np.isnan(v)).any() else 0.0, v)
        else:
            cats = sorted(s.dropna().unique(), key=lambda c: str(c))
            v = s.map({c: i for i, c in enumerate(cats)}).fillna(-1).to_numpy(dtype=np.float64)
        cols.append(v)
    return np.column_stack(cols) if cols else np.empty((len(frame), 0))


def _nmi_matrix(frame: pd.DataFrame, bins: int) -> np.ndarray:
    from sklearn.metrics import normalized_mutual_info_score

    labels = []
    for col in frame.columns:
        s = frame[col]
        if pd.api.types.is_numeric_dtype(s) and not pd.api.types.is_bool_dtype(s) and s.nunique() > bins:
            labels.append(pd.qcut(s.rank(method="first"), bins, labels=False).fillna(-1).to_numpy())
        else:
            labels.append(s.astype(str).to_numpy())
    k = len(labels)
    out = np.eye(k)
    for i in range(k):
        for j in range(i + 1, k):
            out[i, j] = out[j, i] = normalized_mutual_info_score(labels[i], labels[j])
    return out


def attribute_association(
    frame: pd.DataFrame,
    *,
    method: str = "pearson",
    max_rows: int | None = 2000,
    bins: int = 10,
    random_state: RandomState = 0,
) -> pd.DataFrame:
    """Association between every pair of attributes (columns) of ``frame``.

    Parameters
    ----------
    frame : DataFrame
        The attributes; categoricals are taken as ordinal codes (Pearson, MIC) or as
        labels (NMI).
    method : {"pearson", "nmi", "mic"}
        |Pearson r| (linear), normalised mutual information (any dependence; numeric
        columns quantile-binned into ``bins``), or the maximal information coefficient.
        An attribute strongly associated with a sensitive one leaks it.
    max_rows : int or None
        MIC only: computed on at most this many rows drawn at random (MIC's cost grows
        fast with n; the page shows the cap). None uses every row.
    bins : int
        NMI only: quantile bins for numeric columns with more distinct values.
    random_state : int, Generator or None
        Draws the MIC row sample.

    Returns
    -------
    DataFrame
        Symmetric attributes x attributes matrix with 1 on the diagonal.
    """
    if not isinstance(frame, pd.DataFrame):
        raise TypeError(f"frame must be a pandas DataFrame, got {type(frame).__name__}.")
    if not isinstance(method, str):
        raise TypeError(f"method must be a string, got {type(method).__name__}.")
    if method not in ("pearson", "nmi", "mic"):
        raise ValueError(f"method must be 'pearson', 'nmi' or 'mic', got {method!r}.")
    if frame.shape[1] < 1 or len(frame) < 4:
        raise DataError("Association needs at least 4 rows and one column.")
    names = list(frame.columns)
    if method == "nmi":
        values = _nmi_matrix(frame, bins)
    else:
        X = _codes_frame(frame)
        if method == "pearson":
            sd = X.std(axis=0)
            Xs = np.zeros_like(X)
            ok = sd > 0
            Xs[:, ok] = (X[:, ok] - X[:, ok].mean(axis=0)) / sd[ok]
            values = np.abs(Xs.T @ Xs) / len(X)
            np.fill_diagonal(values, 1.0)
            values = np.clip(values, 0.0, 1.0)
        else:
            k = X.shape[1]
            pairs = [(i, j) for i in range(k) for j in range(i + 1, k)]
            mics = mic_pairs(X, pairs, max_rows=max_rows, random_state=random_state)
            values = np.eye(k)
            for (i, j), v in zip(pairs, mics):
                values[i, j] = values[j, i] = v
    return pd.DataFrame(values, index=names, columns=names)
