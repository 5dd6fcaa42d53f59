"""Differential-privacy mechanisms: Laplace, Gaussian and k-ary randomized response.

All functions draw through one ``numpy.random.Generator`` made by
:func:`core.runtime.randomness.check_random_state`, so a fixed ``random_state`` gives identical
draws on one machine. What a release spends is recorded in a
:class:`~core.privacy.ledger.PrivacyLedger` (:mod:`core.privacy.ledger`).
"""
from __future__ import annotations

import math
from typing import Any, Hashable, Sequence

import numpy as np
from scipy.special import ndtr

from core.privacy.sampler import GridNoise, gaussian_on_grid, laplace_on_grid
from core.privacy.discrete_noise import bernoulli_exp
from core.validation import check_delta, check_epsilon, check_sensitivity
from core.runtime.randomness import RandomState, check_random_state

__all__ = [
    "laplace",
    "laplace_scale",
    "laplace_noise",
    "gaussian",
    "gaussian_sigma",
    "krr",
    "krr_keep_probability",
]


def _as_float_array(value: Any, name: str = "value") -> np.ndarray:
    try:
        arr = np.asarray(value, dtype=float)
    except (TypeError, ValueError) as exc:
        raise TypeError(f"{name} must be a number or an array of numbers.") from exc
    if not np.all(np.isfinite(arr)):
        raise ValueError(f"{name} must be finite (no NaN or infinity).")
    return arr


def _same_kind(original: Any, noisy: np.ndarray) -> float | np.ndarray:
    return float(noisy) if np.ndim(original) == 0 else noisy


def laplace_scale(*, sensitivity: float, epsilon: float) -> float:
    """Scale b = sensitivity / epsilon of the Laplace mechanism."""
    return check_sensitivity(sensitivity) / check_epsilon(epsilon)


def laplace(
    value: Any,
    *,
    sensitivity: float,
    epsilon: float,
    random_state: RandomState = None,
    grid: float | None = None,
    on_grid: bool = False,
) -> float | np.ndarray:
    """The Laplace mechanism, exactly: ``value`` on a grid plus discrete Laplace noise (epsilon-DP).

    The noise comes from :func:`core.privacy.sampler.laplace_on_grid` (integer arithmetic, no
    floating-point draws: Mironov 2012's attack finds no holes), at a scale of at least
    ``sensitivity / epsilon``; the output lies exactly on the grid. Rounding the answer to the
    grid is paid for in the scale, never the epsilon: ``ceil(sensitivity / grid)`` steps, plus
    ``k - 1`` for rounding k coordinates and one spare step per rounded coordinate for its
    floating-point error (:func:`core.privacy.sampler.grid_sensitivity`); nothing is added
    when ``on_grid``. Use
    :func:`laplace_noise` to also get the :class:`~core.privacy.sampler.GridNoise` for a ledger.

    Parameters
    ----------
    value : float or array_like
        The exact answer(s); each entry gets independent noise.
    sensitivity : float
        L1 sensitivity of the whole answer: how far it can move when one record (or one
        correlated group, under correlated DP) is replaced.
    epsilon : float
        Privacy budget spent by this release; smaller means more noise.
    random_state : int, Generator or None
        Source of the noise: a seed for what a page shows, fresh entropy for a release.
    grid : float or None
        Output spacing, a power of two; None chooses the largest with at least 1,024 steps
        per sensitivity (:func:`core.privacy.sampler.grid_for`). Any grid is safe: the
        rounding is paid for.
    on_grid : bool
        The answers are multiples of ``grid`` by construction of the query (counts on the
        grid 1), a property of the query declared by the caller, never read from the
        records: no rounding and no spare step. Values off the grid are refused.

    Returns
    -------
    float or ndarray
        The noisy answer, a float for a scalar input.
    """
    noisy, _ = laplace_noise(value, sensitivity=sensitivity, epsilon=epsilon,
                             random_state=random_state, grid=grid, on_grid=on_grid)
    return noisy


def laplace_noise(
    value: Any,
    *,
    sensitivity: float,
    epsilon: float,
    random_state: RandomState = None,
    grid: float | None = None,
    on_grid: bool = False,
) -> tuple[float | np.ndarray, GridNoise | None]:
    """:func:`laplace` that also returns the noise's description (None when sensitivity is 0).

    Parameters are those of :func:`laplace`. The description
    (:class:`~core.privacy.sampler.GridNoise`) states the grid, the scale in grid steps and
    the sensitivity in steps it was calibrated to, spare steps included, for the ledger.
    """
    arr = _as_float_array(value)
    sens = check_sensitivity(sensitivity)
    eps = check_epsilon(epsilon)
    if sens == 0:
        return _same_kind(value, arr.copy()), None
    noisy, noise = laplace_on_grid(arr, sensitivity=sens, epsilon=eps, grid=grid, on_grid=on_grid,
                                   random_state=check_random_state(random_state))
    return _same_kind(value, noisy), noise


def _analytic_delta(sigma: float, sensitivity: float, epsilon: float) -> float:
    a = sensitivity / (2.0 * sigma)
    b = epsilon * sigma / sensitivity
    return float(ndtr(a - b) - math.exp(epsilon) * ndtr(-a - b))


def gaussian_sigma(
    *, sensitivity: float, epsilon: float, delta: float, calibration: str = "classic"
) -> float:
    """Standard deviation of the Gaussian mechanism for (epsilon, delta)-DP.

    ``calibration="classic"`` is Dwork & Roth's Theorem A.1,
    sigma = sqrt(2 ln(1.25 / delta)) * sensitivity / epsilon, valid only for epsilon < 1.
    ``calibration="analytic"`` is Balle & Wang (2018): the smallest sigma whose privacy
    profile meets delta exactly, valid for every epsilon > 0 and never larger than the
    classic one.
    """
    sens = check_sensitivity(sensitivity)
    eps = check_epsilon(epsilon)
    dlt = check_delta(delta)
    if calibration == "classic":
        if eps >= 1:
            raise ValueError(
                f"The classic Gaussian calibration holds only for epsilon < 1 (got {eps:g}); "
                "use calibration='analytic' for larger epsilon."
            )
        return math.sqrt(2.0 * math.log(1.25 / dlt)) * sens / eps
    if calibration != "analytic":
        raise ValueError(f"calibration must be 'classic' or 'analytic', got {calibration!r}.")
    if sens == 0:
        return 0.0
    lo, hi = 1e-12 * sens, sens
    while _analytic_delta(hi, sens, eps) > dlt:
        hi *= 2.0
    for _ in range(200):  # bisection on a monotone decreasing function of sigma
        mid = 0.5 * (lo + hi)
        if _analytic_delta(mid, sens, eps) > dlt:
            lo = mid
        else:
            hi = mid
    return hi


def gaussian(
    value: Any,
    *,
    sensitivity: float,
    epsilon: float,
    delta: float,
    random_state: RandomState = None,
    calibration: str = "classic",
) -> float | np.ndarray:
    """Add Gaussian noise calibrated for (epsilon, delta)-DP.

    Parameters
    ----------
    value : float or array_like
        The exact answer(s).
    sensitivity : float
        L2 sensitivity of the answer.
    epsilon, delta : float
        The privacy guarantee: with probability at least 1 - delta the privacy loss is at
        most epsilon.
    random_state : int, Generator or None
        Source of the noise.
    calibration : {"classic", "analytic"}
        See :func:`gaussian_sigma`.

    The noise is the exact discrete Gaussian on a grid (:func:`core.privacy.sampler.gaussian_on_grid`),
    not numpy's float normal; sigma is enlarged for the rounding of the answer to the grid
    (two steps per coordinate in L2: the rounding and a spare step for floating-point error,
    :func:`core.privacy.sampler.gaussian_grid_steps`), never the epsilon or delta.
    """
    arr = _as_float_array(value)
    sigma = gaussian_sigma(
        sensitivity=sensitivity, epsilon=epsilon, delta=delta, calibration=calibration
    )
    if sigma == 0:
        return _same_kind(value, arr.copy())
    noisy, _ = gaussian_on_grid(arr, sigma=sigma, l2_sensitivity=float(sensitivity),
                                random_state=check_random_state(random_state))
    return _same_kind(value, noisy)


def krr_keep_probability(*, k: int, epsilon: float) -> float:
    """Probability e^eps / (k - 1 + e^eps) that k-ary randomized response keeps the truth."""
    eps = check_epsilon(epsilon)
    if k < 2:
        raise ValueError(f"k-ary randomized response needs at least 2 categories, got {k}.")
    # stable for large epsilon: 1 / (1 + (k-1) e^-eps)
    return 1.0 / (1.0 + (k - 1) * math.exp(-eps))


#: kRR's epsilon is rounded down to a multiple of 2^-20 for its exact sampler (never up)
_KRR_DENOMINATOR = 1 << 20


def _krr_codes(codes: np.ndarray, k: int, epsilon: float, rng: np.random.Generator) -> np.ndarray:
    """kRR's reports, exactly: a candidate uniform over the k categories is reported when it
    is the truth, and with probability exp(-epsilon) otherwise; else a new candidate is drawn.

    Reports then have P(truth) proportional to 1 and P(each other) to exp(-epsilon), i.e.
    e^eps / (k - 1 + e^eps) and 1 / (k - 1 + e^eps), with integer draws only
    (:func:`core.privacy.discrete_noise.bernoulli_exp`); epsilon is rounded down to a multiple of 2^-20, so the
    ratio never exceeds e^eps.
    """
    num = math.floor(epsilon * _KRR_DENOMINATOR)  # 0 for epsilon < 2^-20: uniform reports, ratio 1
    out = np.empty(len(codes), dtype=np.int64)
    todo = np.arange(len(codes))
    while todo.size:
        cand = rng.integers(0, k, size=todo.size)
        truth = cand == codes[todo]
        accept = truth.copy()
        other = np.flatnonzero(~truth)
        if other.size:
            accept[other] = bernoulli_exp(np.full(other.size, num, dtype=np.int64), _KRR_DENOMINATOR,
                                          random_state=rng)
        out[todo[accept]] = cand[accept]
        todo = todo[~accept]
    return out


def krr(
    values: Any,
    *,
    categories: Sequence[Hashable],
    epsilon: float,
    random_state: RandomState = None,
) -> np.ndarray:
    """k-ary randomized response (Eq. 1 of paper 002), epsilon-local-DP per value.

    Each value is kept with probability e^eps / (k - 1 + e^eps) and otherwise replaced by
    one of the other k - 1 categories chosen uniformly.

    Parameters
    ----------
    values : array_like
        True categories, each one of ``categories``.
    categories : sequence
        The k possible answers (the domain is public).
    epsilon : float
        Local privacy budget of each reported value.
    random_state : int, Generator or None
        Source of randomness.

    Returns
    -------
    ndarray
        Reported values, same length and dtype family as ``categories``.
    """
    cats = list(dict.fromkeys(categories))
    k = len(cats)
    krr_keep_probability(k=k, epsilon=epsilon)  # checks k and epsilon
    vals = np.asarray(values, dtype=object).ravel()
    index = {c: i for i, c in enumerate(cats)}
    try:
        codes = np.fromiter((index[v] for v in vals), dtype=np.int64, count=len(vals))
    except KeyError as exc:
        raise ValueError(f"value {exc.args[0]!r} is not one of the {k} categories.") from None
    rng = check_random_state(random_state)
    out_codes = _krr_codes(codes, k, float(epsilon), rng)
    cat_arr = np.empty(k, dtype=object)
    cat_arr[:] = cats
    out = cat_arr[out_codes]
    try:
        return out.astype(np.asarray(cats).dtype)
    except (TypeError, ValueError):
        return out
