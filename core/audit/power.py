"""How many runs an audit needs: the power of the threshold test against a known leak.

An audit (:mod:`core.audit.auditor`) flags a mechanism when the Clopper-Pearson lower bound
on epsilon, measured on the evaluation half of its runs, exceeds the claim. Whether a given
number of runs is enough depends on how far the mechanism's best threshold test separates the
two datasets of the pair. For a mechanism whose output distributions are known (a Gaussian or
Laplace statistic shifted by the sensitivity, a randomized response), the error rates of that
test are known too, and :func:`detection_power` gives the probability that the audit flags
it; :func:`runs_for_power` the fewest runs that reach a target power. The statistical tests
size their runs with these: a mutant that leaks must be flagged with high power, and the same
number of runs then shows the sound mechanism passing (a sound mechanism passes with
probability at least the confidence level whatever the runs).

The calculation is slightly optimistic: it assumes that the selection half picks the given
threshold test, where the audit picks the best of :data:`core.audit.bounds.THRESHOLD_GRID`
candidates on noisy counts. Tests therefore ask for a power of 0.999 on this calculation.
"""
from __future__ import annotations

import math

import numpy as np
from scipy.stats import binom, norm

from core.audit.bounds import MIN_RUNS, _cp_upper, check_claimed_delta, check_confidence
from core.validation import check_positive_int

__all__ = ["best_power", "best_runs", "detection_power", "runs_for_power", "gaussian_shift_rates", "laplace_shift_rates"]


def _check_rate(value: float, name: str) -> float:
    if isinstance(value, bool) or not isinstance(value, (int, float, np.floating)):
        raise TypeError(f"{name} must be a number, got {type(value).__name__}.")
    if not 0.0 <= float(value) <= 1.0:
        raise ValueError(f"{name} must lie between 0 and 1, got {value}.")
    return float(value)


def detection_power(runs: int, *, false_positive: float, false_negative: float, claimed_epsilon: float,
                    delta: float = 0.0, confidence: float = 0.95) -> float:
    """The probability that an audit with ``runs`` runs per side flags a violation.

    Parameters
    ----------
    runs : int
        Runs per side (at least 20); the evaluation half holds ``runs - runs // 2``.
    false_positive, false_negative : float
        The error rates of the mechanism's threshold test: the chance that a run on the first
        dataset is called the second, and the reverse. They describe the mechanism under
        audit (for a leaking mutant, its true distributions), not the claim.
    claimed_epsilon : float
        The epsilon the ledger claims; the audit flags a lower bound above it.
    delta : float
        The claimed delta (0 for pure DP).
    confidence : float
        The audit's confidence level.

    Returns
    -------
    float
        ``P(lower bound > claimed_epsilon)`` over the binomial error counts of the
        evaluation half, given that the test is the one chosen.
    """
    n = check_positive_int(runs, name="runs", minimum=MIN_RUNS)
    fp_rate = _check_rate(false_positive, "false_positive")
    fn_rate = _check_rate(false_negative, "false_negative")
    conf = check_confidence(confidence)
    dlt = check_claimed_delta(delta, name="delta")
    if not isinstance(claimed_epsilon, (int, float)) or isinstance(claimed_epsilon, bool):
        raise TypeError(f"claimed_epsilon must be a number, got {type(claimed_epsilon).__name__}.")
    m = n - n // 2
    upper = _cp_upper(m, (1.0 - conf) / 2.0)
    k = np.arange(m + 1)
    # the bound falls as either count grows: with u0 the upper bound on the false-positive
    # rate, a violation needs the false-negative bound below
    # max(1 - delta - u0 e^eps, (1 - delta - u0) e^-eps), so the flagged counts are a prefix
    eps = float(claimed_epsilon) + 1e-12
    cut = np.maximum(1.0 - dlt - upper * math.exp(eps), (1.0 - dlt - upper) * math.exp(-eps))
    limit = np.searchsorted(upper, cut, side="left") - 1  # -1: no count is flagged
    p_fp = binom.pmf(k, m, fp_rate)
    p_fn_cdf = np.where(limit >= 0, binom.cdf(np.maximum(limit, 0), m, fn_rate), 0.0)
    return float(np.clip(np.sum(p_fp * p_fn_cdf), 0.0, 1.0))


def runs_for_power(*, false_positive: float, false_negative: float, claimed_epsilon: float,
                   delta: float = 0.0, confidence: float = 0.95, power: float = 0.999,
                   max_runs: int = 20_000) -> int:
    """The fewest runs per side (a multiple of 10, at least 20) whose :func:`detection_power`
    reaches ``power``; ``ValueError`` when even ``max_runs`` do not (the leak is too small for
    an audit of that size to see)."""
    target = check_confidence(power)
    lo, hi = MIN_RUNS, check_positive_int(max_runs, name="max_runs", minimum=MIN_RUNS)

    def enough(r: int) -> bool:
        return detection_power(r, false_positive=false_positive, false_negative=false_negative,
                               claimed_epsilon=claimed_epsilon, delta=delta, confidence=confidence) >= target

    if not enough(hi):
        raise ValueError(f"even {hi} runs per side do not flag this leak with power {target}: "
                         "the mutant is too close to the claim for an audit of this size.")
    while hi - lo > 10:  # the power rises with the runs up to the wiggle of discrete counts
        mid = (lo + hi) // 2
        lo, hi = (lo, mid) if enough(mid) else (mid, hi)
    return int(math.ceil(hi / 10.0) * 10)


def gaussian_shift_rates(shift: float, *, false_positive: float) -> tuple[float, float]:
    """Error rates of the threshold test between N(0, 1) and N(shift, 1) (shift in standard
    deviations: sensitivity over sigma) whose false-positive rate is ``false_positive``."""
    fp = _check_rate(false_positive, "false_positive")
    return fp, float(norm.cdf(norm.ppf(1.0 - fp) - float(shift)))


def laplace_shift_rates(shift: float, *, false_positive: float) -> tuple[float, float]:
    """Error rates of the threshold test between Laplace(0, 1) and Laplace(shift, 1) (shift in
    scales: sensitivity over b, the mechanism's true epsilon) with false-positive rate
    ``false_positive`` (at most 1/2: the threshold sits at or above 0)."""
    fp = _check_rate(false_positive, "false_positive")
    if not 0.0 < fp <= 0.5:
        raise ValueError(f"false_positive must lie in (0, 0.5] for a threshold at or above 0, got {fp}.")
    t = -math.log(2.0 * fp)  # P(L > t) = exp(-t) / 2
    d = t - float(shift)  # P(L + shift < t) = P(L < d)
    fn = 0.5 * math.exp(d) if d < 0 else 1.0 - 0.5 * math.exp(-d)
    return fp, float(fn)


def best_power(runs: int, rates_for, *, claimed_epsilon: float, delta: float = 0.0, confidence: float = 0.95,
               grid=(0.5, 0.3, 0.2, 0.1, 0.05, 0.02, 0.01, 0.005)) -> float:
    """The largest :func:`detection_power` at ``runs`` over threshold tests ``rates_for(fp)``
    for ``fp`` in ``grid``."""
    return max(detection_power(runs, false_positive=a, false_negative=b, claimed_epsilon=claimed_epsilon,
                               delta=delta, confidence=confidence) for a, b in map(rates_for, grid))


def best_runs(rates_for, *, claimed_epsilon: float, delta: float = 0.0, confidence: float = 0.95,
              power: float = 0.999, grid=(0.5, 0.3, 0.2, 0.1, 0.05, 0.02, 0.01, 0.005)) -> int:
    """The fewest runs over threshold tests ``rates_for(fp)`` for ``fp`` in ``grid`` (the audit
    looks for the best test itself)."""
    best = None
    for fp in grid:
        f_p, f_n = rates_for(fp)
        try:
            r = runs_for_power(false_positive=f_p, false_negative=f_n, claimed_epsilon=claimed_epsilon,
                               delta=delta, confidence=confidence, power=power)
        except ValueError:
            continue
        best = r if best is None else min(best, r)
    if best is None:
        raise ValueError("no threshold test in the grid flags this leak with the requested power.")
    return best
