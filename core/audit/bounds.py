"""The statistics of an audit: the threshold test and the Clopper-Pearson lower bound on epsilon.

From the statistics of the runs on each side of a pair, :func:`measure_epsilon` chooses a
threshold test on the first half of the runs (the largest Clopper-Pearson epsilon among
:data:`THRESHOLD_GRID` candidate thresholds) and, on the second half, bounds its false
positive and false negative rates from above (one-sided Clopper-Pearson, Bonferroni between
the two), which the DP inequality turns into a lower bound on epsilon.
:func:`audit_ceiling` is the largest bound a number of runs can ever show. The method is
described in :mod:`core.audit.auditor`.
"""
from __future__ import annotations

import numbers
from typing import Any

import numpy as np
from scipy.stats import beta

from core.validation import check_delta, check_positive_int

__all__ = ["MIN_RUNS", "THRESHOLD_GRID", "audit_ceiling", "measure_epsilon"]

#: fewest runs per side an audit reports on (with fewer, no bound says anything)
MIN_RUNS = 20


def check_confidence(confidence: Any) -> float:
    """``confidence`` as a float strictly between 0 and 1 (TypeError / ValueError otherwise)."""
    if isinstance(confidence, bool) or not isinstance(confidence, numbers.Real):
        raise TypeError(f"confidence must be a number, got {type(confidence).__name__}.")
    if not 0.0 < float(confidence) < 1.0:
        raise ValueError(f"confidence must lie strictly between 0 and 1, got {confidence}.")
    return float(confidence)


def check_claimed_delta(delta: Any, name: str) -> float:
    """``delta`` as a float: 0 (pure DP) or a valid delta (:func:`core.validation.check_delta`)."""
    if isinstance(delta, numbers.Real) and not isinstance(delta, bool) and delta == 0:
        return 0.0
    return check_delta(delta, name=name)


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
        As in :func:`core.audit.auditor.audit`.
    delta : float
        The claimed delta (0 for pure DP), as in :func:`core.audit.auditor.audit`.
    """
    n_runs = check_positive_int(runs, name="runs", minimum=MIN_RUNS)
    conf = check_confidence(confidence)
    dlt = check_claimed_delta(delta, name="delta")
    m = n_runs - n_runs // 2
    u = float(_cp_upper(m, (1.0 - conf) / 2.0)[0])
    return float(_eps_from_rates(np.array([u]), np.array([u]), dlt)[0])


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


def measure_epsilon(stats: np.ndarray, delta: float, confidence: float) -> tuple[float, str, int, float, float]:
    """The test and the epsilon it shows, from the statistics of the runs.

    ``stats`` has shape (runs per side, 2): column 0 on the pair's ``d0``, column 1 on
    ``d1``. The first half of the runs chooses the test (threshold, comparison, dataset it points
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
