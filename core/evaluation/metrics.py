"""Utility and leakage metrics shared by the pages and the reproductions.

Papers add their own here: count-query MAE (Eq. 22 of 000), MSE and record linkage
(Eq. 22-23 of 003), attribute inference.
"""
from __future__ import annotations

from typing import Sequence

import numpy as np
from sklearn.metrics import accuracy_score, f1_score

from core.validation import check_matrix

__all__ = ["accuracy", "f1", "majority_share", "proportion_interval", "mean_interval", "below_reference",
           "no_better_than"]


def accuracy(y_true, y_pred) -> float:
    """Share of predictions equal to the truth."""
    return float(accuracy_score(y_true, y_pred))


def f1(y_true, y_pred) -> float:
    """F1 score: binary F1 of the positive class for two classes, macro F1 otherwise."""
    labels = np.unique(np.asarray(y_true))
    average = "binary" if len(labels) == 2 else "macro"
    pos = labels[-1] if average == "binary" else 1
    return float(f1_score(y_true, y_pred, average=average, pos_label=pos, zero_division=0))


def majority_share(y) -> float:
    """Accuracy of always guessing the most common class (the no-leak floor)."""
    _, counts = np.unique(np.asarray(y), return_counts=True)
    return float(counts.max() / counts.sum())


# ---------------------------------------------------------------------------------------
# Uncertainty and references: every number beside its reference, each with an interval
# ---------------------------------------------------------------------------------------

def proportion_interval(successes: float, n: int, *, confidence: float = 0.95) -> tuple[float, float]:
    """Wilson score interval for a share (an accuracy, a majority share) of ``n`` trials.

    Parameters
    ----------
    successes : float
        How many of the ``n`` trials succeeded (an accuracy times ``n`` is fine).
    n : int
        Number of trials (test rows); ``n == 0`` gives ``(nan, nan)``.
    confidence : float in (0, 1)
        Coverage of the interval.
    """
    from scipy.stats import norm

    if not 0.0 < float(confidence) < 1.0:
        raise ValueError(f"confidence must lie strictly between 0 and 1, got {confidence!r}.")
    n = int(n)
    if n < 0:
        raise ValueError(f"n must be a count (0 or more), got {n}.")
    if n == 0:
        return float("nan"), float("nan")
    p = min(max(float(successes) / n, 0.0), 1.0)
    z = float(norm.ppf(0.5 + confidence / 2))
    denom = 1 + z * z / n
    centre = (p + z * z / (2 * n)) / denom
    half = z * np.sqrt(p * (1 - p) / n + z * z / (4 * n * n)) / denom
    return float(max(0.0, centre - half)), float(min(1.0, centre + half))


def mean_interval(values, *, confidence: float = 0.95) -> tuple[float, float, float]:
    """Mean of repeated measurements and its Student-t interval: ``(mean, low, high)``.

    One value gives an interval of ``(nan, nan)`` around it (one run says nothing about its
    spread); NaNs are ignored.
    """
    from scipy.stats import t

    if not 0.0 < float(confidence) < 1.0:
        raise ValueError(f"confidence must lie strictly between 0 and 1, got {confidence!r}.")
    x = np.asarray(values, dtype=float).ravel()
    x = x[np.isfinite(x)]
    if x.size == 0:
        return float("nan"), float("nan"), float("nan")
    mean = float(x.mean())
    if x.size == 1:
        return mean, float("nan"), float("nan")
    half = float(t.ppf(0.5 + confidence / 2, x.size - 1) * x.std(ddof=1) / np.sqrt(x.size))
    return mean, mean - half, mean + half


def below_reference(value: float, reference: float, *, what: str = "the constant guess",
                    higher_is_better: bool = True) -> str | None:
    """One sentence when ``value`` is no better than ``reference``, else None.

    ``below_reference(0.61, 0.84)`` -> "0.61 is below the constant guess (0.84): this model
    has learned nothing a constant could not." Used beside every accuracy and error so
    that a scheme under its reference is said in words, not left to the reader.
    """
    v, r = float(value), float(reference)
    if not (np.isfinite(v) and np.isfinite(r)):
        return None
    worse = v <= r if higher_is_better else v >= r
    if not worse:
        return None
    side = "below" if higher_is_better else "above"
    if v == r:
        return f"{v:.3g} equals {what} ({r:.3g}): nothing is gained over it."
    return f"{v:.3g} is {side} {what} ({r:.3g}): it does no better than {what}."


def no_better_than(value: float, reference: float, interval: Sequence[float] | None = None, *,
                   what: str = "the constant guess", meaning: str | None = None,
                   higher_is_better: bool = True) -> str | None:
    """One sentence when ``value`` cannot be said to beat ``reference``, else None: no better
    than it (:func:`below_reference`), or better but inside the reference's 95% ``interval``,
    so the two cannot be told apart.

    ``no_better_than(0.762, 0.761, (0.744, 0.778), meaning="always guessing the majority
    class")`` -> "0.762 lies inside the constant guess's 95% interval (0.744-0.778): not
    distinguishable from always guessing the majority class."

    Parameters
    ----------
    value, reference : float
        The measured value and what it is read against.
    interval : (low, high), optional
        The reference's 95% interval (None: only :func:`below_reference` applies).
    what : str
        The reference in words.
    meaning : str, optional
        What being indistinguishable from it means (default ``what``).
    higher_is_better : bool
        The measure's direction.
    """
    below = below_reference(value, reference, what=what, higher_is_better=higher_is_better)
    if below is not None or interval is None:
        return below
    v, (lo, hi) = float(value), (float(interval[0]), float(interval[1]))
    if not (np.isfinite(v) and np.isfinite(lo) and np.isfinite(hi)) or not lo <= v <= hi:
        return None
    return (f"{v:.3g} lies inside {what}'s 95% interval ({lo:.3f}-{hi:.3f}): not distinguishable from "
            f"{meaning or what}.")


# ---------------------------------------------------------------------------------------
# Paper 003 (SSKM_DP): mean squared error and record linkage (Eq. 22-23)
# ---------------------------------------------------------------------------------------

def _paired_matrices(original, published) -> tuple[np.ndarray, np.ndarray]:
    """Both tables as float matrices of one shape (a 1-D array is one attribute)."""
    A = check_matrix(original, name="original", column_vector=True, min_columns=0)
    B = check_matrix(published, name="published", column_vector=True, min_columns=0)
    if A.shape != B.shape:
        raise ValueError(
            f"original and published must have the same 2-D shape (record i published as "
            f"row i), got {A.shape} and {B.shape}."
        )
    return A, B


def mse(original, published) -> float:
    """Information loss of a release (Eq. 22 of paper 003).

    Mean over records of the squared Euclidean distance between each original record and
    its published version (row i of ``published`` is record i). Compute it on scaled
    attributes (e.g. min-max to [0, 1]) so that no attribute dominates by its unit.

    Parameters
    ----------
    original, published : array_like of shape (n, m)
    """
    A, B = _paired_matrices(original, published)
    diff = A - B
    return float(np.einsum("ij,ij->i", diff, diff).mean())


def record_linkage(original, published, *, block_rows: int | None = None) -> float:
    """Record-linkage disclosure risk (Eq. 23 of paper 003), as a share in [0, 1].

    An attacker links each original record u to its nearest published record(s) G
    (Euclidean). Pr(u) = 1 / |G| when u's own published version is in G (ties split
    evenly) and 0 otherwise; RL = mean of Pr(u). 1 means every record is re-identified;
    a release where all records share one value gives 1 / n.

    Exact: identical published rows are merged first (so cluster releases cost one
    distance per cluster), then distances are computed in row blocks, never n x n.

    Parameters
    ----------
    original, published : array_like of shape (n, m)
        Row i of ``published`` is the release of record i.
    block_rows : int, optional
        Original records per block; default keeps a block under about 32 MB.
    """
    A, B = _paired_matrices(original, published)
    uniq, own, counts = np.unique(B, axis=0, return_inverse=True, return_counts=True)
    own = own.reshape(-1)
    u_sq = np.einsum("ij,ij->i", uniq, uniq)
    if block_rows is None:
        block_rows = max(1, 4_000_000 // max(1, len(uniq)))
    total = 0.0
    for start in range(0, len(A), block_rows):
        a = A[start:start + block_rows]
        # squared distances to every distinct published row; the same arithmetic for each
        # copy of a row, so equal rows give exactly equal distances
        d = np.einsum("ij,ij->i", a, a)[:, None] - 2.0 * (a @ uniq.T) + u_sq[None, :]
        dmin = d.min(axis=1)
        rows = np.arange(len(a))
        hit = d[rows, own[start:start + len(a)]] <= dmin
        tied = (d <= dmin[:, None]) @ counts
        total += float(np.sum(np.where(hit, 1.0 / tied, 0.0)))
    return total / len(A)


__all__ += ["mse", "record_linkage"]


# ---------------------------------------------------------------------------------------
# Paper 000 (CDP-LR): count-query error of published data (Eq. 22).
# ---------------------------------------------------------------------------------------
__all__ += ["count_query_mae"]


def count_query_mae(noisy, true_reduced, true_original) -> float:
    """Eq. 22 of paper 000: mean over queries of |noisy - true(reduced)| + |true(reduced) - true(original)|.

    Parameters
    ----------
    noisy : array_like of shape (q,)
        Noisy answers on the published (feature-selected) data.
    true_reduced : array_like of shape (q,)
        Exact answers on the feature-selected data (conditions on removed attributes
        dropped): the first term is the error the noise adds.
    true_original : array_like of shape (q,)
        Exact answers on the original data: the second term is the error feature
        selection adds.
    """
    a = np.asarray(noisy, dtype=float)
    b = np.asarray(true_reduced, dtype=float)
    c = np.asarray(true_original, dtype=float)
    if not (a.shape == b.shape == c.shape) or a.ndim != 1 or len(a) == 0:
        raise ValueError("noisy, true_reduced and true_original must be 1-D, non-empty, of one length.")
    return float(np.mean(np.abs(a - b) + np.abs(b - c)))
