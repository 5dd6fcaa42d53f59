"""The number of rounds of a private selection, drawn exactly: geometric and truncated negative binomial.

How many times a private selection runs its candidates is part of the mechanism: its
guarantee holds for that number drawn from exactly the distribution the theorem names,
independently of the data, and kept secret. :mod:`core.privacy.sampler` has no geometric
draw to offer here (its geometric is the digit-table magnitude of the discrete Laplace,
with ratio exp(-1/t) for an integer t, not the 1 - gamma of a selection), so the rounds
are drawn from exact Bernoulli trials of rational probabilities: a uniform integer below
the denominator compared with the numerator (:func:`bernoulli_fraction`; numpy's bounded
integers are uniform by rejection, and larger denominators are read from 32-bit words with
rejection), integer arithmetic only, from the one generator of the selection.

* :func:`draw_geometric` -- P(K = k) = gamma (1 - gamma)^(k - 1), k = 1, 2, ...: Liu &
  Talwar's random stopping (stop with probability gamma after each round).
* :func:`draw_truncated_negative_binomial` -- Papernot & Steinke's Definition 1 for a
  shape eta in [0, 1]: P(K = k) = (1 - gamma)^k / (gamma^(-eta) - 1) prod_{l=0}^{k-1} (l + eta) / (l + 1)
  (eta = 0: the logarithmic distribution, P(K = k) = (1 - gamma)^k / (k log(1 / gamma));
  eta = 1: the geometric one), by rejection from the geometric: propose k, keep it with
  probability prod_{l=1}^{k-1} (l + eta) / (l + 1), an AND of exact Bernoullis.
"""
from __future__ import annotations

import math
import numbers
from fractions import Fraction
from typing import Any

import numpy as np

from core.runtime.randomness import RandomState, check_random_state

__all__ = ["as_fraction", "bernoulli_fraction", "draw_geometric", "draw_truncated_negative_binomial",
           "expected_rounds", "rounds_pmf"]

_INT64_MAX = 2**63 - 1


def as_fraction(value: Any, *, name: str, low: Fraction, high: Fraction, closed_low: bool, closed_high: bool) -> Fraction:
    """``value`` as an exact fraction within the given bounds (a float is read as the decimal it prints as).

    ``0.1`` becomes 1/10, the probability a user means; a :class:`fractions.Fraction` is kept as it is.
    """
    if isinstance(value, bool) or not isinstance(value, (numbers.Rational, float, np.floating)):
        raise TypeError(f"{name} must be a number, got {type(value).__name__}.")
    if isinstance(value, (float, np.floating)):
        if not math.isfinite(float(value)):
            raise ValueError(f"{name} must be a finite number, got {value!r}.")
        frac = Fraction(repr(float(value)))
    else:
        frac = Fraction(value)
    above = frac >= low if closed_low else frac > low
    below = frac <= high if closed_high else frac < high
    if not (above and below):
        left, right = "[" if closed_low else "(", "]" if closed_high else ")"
        raise ValueError(f"{name} must lie in {left}{float(low):g}, {float(high):g}{right}, got {float(frac):g}.")
    return frac


def _uniform_below(q: int, rng: np.random.Generator) -> int:
    """A uniform integer in [0, q), exactly."""
    if q <= _INT64_MAX:
        return int(rng.integers(0, q))
    bits = q.bit_length()
    words = -(-bits // 32)
    while True:
        draw = 0
        for w in rng.integers(0, 2**32, size=words, dtype=np.uint64):
            draw = (draw << 32) | int(w)
        draw >>= words * 32 - bits
        if draw < q:
            return draw


def bernoulli_fraction(p: Fraction, rng: np.random.Generator) -> bool:
    """True with probability exactly ``p`` (a Fraction in [0, 1]): a uniform integer below its
    denominator is below its numerator."""
    if p <= 0:
        return False
    if p >= 1:
        return True
    return _uniform_below(p.denominator, rng) < p.numerator


def draw_geometric(gamma: Fraction, random_state: RandomState = None) -> int:
    """K with P(K = k) = gamma (1 - gamma)^(k - 1), k >= 1: one round, then stop with probability
    gamma after each round (Liu & Talwar's random stopping), drawn exactly.

    Parameters
    ----------
    gamma : Fraction in (0, 1)
        The stopping probability (see :func:`as_fraction`).
    random_state : int, Generator or None
        The selection's generator. A release draws from fresh entropy; a seed makes a test repeat.
    """
    rng = check_random_state(random_state)
    k = 1
    while not bernoulli_fraction(gamma, rng):
        k += 1
    return k


def draw_truncated_negative_binomial(gamma: Fraction, eta: Fraction, random_state: RandomState = None) -> int:
    """K from Papernot & Steinke's truncated negative binomial D_{eta, gamma} for eta in [0, 1], exactly.

    P(K = k) = (1 - gamma)^k / (gamma^(-eta) - 1) prod_{l=0}^{k-1} (l + eta) / (l + 1) for k >= 1
    (eta = 0: the logarithmic distribution (1 - gamma)^k / (k log(1 / gamma))). Drawn by
    rejection: a geometric proposal k (P proportional to (1 - gamma)^k) is kept with
    probability prod_{l=1}^{k-1} (l + eta) / (l + 1) <= 1, which makes the kept k's probability
    proportional to the target's (the factor for l = 0 is eta, the same for every k, and 1/k
    in the limit eta = 0).
    """
    if not (0 <= eta <= 1):
        raise ValueError(f"eta must lie in [0, 1] for this sampler, got {float(eta):g}.")
    rng = check_random_state(random_state)
    while True:
        k = draw_geometric(gamma, rng)
        if all(bernoulli_fraction((l + eta) / (l + 1), rng) for l in range(1, k)):
            return k


def expected_rounds(gamma: float, eta: float = 1.0) -> float:
    """E[K] of D_{eta, gamma}: 1 / gamma (eta = 1), (1 / gamma - 1) / log(1 / gamma) (eta = 0), else
    eta (1 / gamma - 1) / (1 - gamma^eta) -- how many candidates a selection runs on average (its
    compute, not its privacy: the pure-DP cost does not depend on gamma)."""
    g = float(gamma)
    e = float(eta)
    if not 0 < g < 1:
        raise ValueError(f"gamma must lie strictly between 0 and 1, got {g:g}.")
    if e < 0:
        raise ValueError(f"eta must be 0 or more, got {e:g}.")
    if e == 1:
        return 1 / g
    if e == 0:
        return (1 / g - 1) / math.log(1 / g)
    return e * (1 / g - 1) / (1 - g**e)


def rounds_pmf(k: int, gamma: float, eta: float = 1.0) -> float:
    """P(K = k) of D_{eta, gamma} (Papernot & Steinke 2022, Definition 1), for k >= 1:
    (1 - gamma)^k / (gamma^(-eta) - 1) prod_{l=0}^{k-1} (l + eta) / (l + 1); for eta = 0 the
    logarithmic (1 - gamma)^k / (k log(1 / gamma)); for eta = 1 the geometric gamma (1 - gamma)^(k - 1).
    What a test compares the draws of :func:`draw_truncated_negative_binomial` with."""
    if isinstance(k, bool) or not isinstance(k, numbers.Integral) or k < 1:
        raise ValueError(f"k must be an int of 1 or more, got {k!r}.")
    g, e = float(gamma), float(eta)
    if not 0 < g < 1:
        raise ValueError(f"gamma must lie strictly between 0 and 1, got {g:g}.")
    if e < 0:
        raise ValueError(f"eta must be 0 or more, got {e:g}.")
    if e == 0:
        return (1 - g) ** k / (k * math.log(1 / g))
    log_prod = math.lgamma(k + e) - math.lgamma(e) - math.lgamma(k + 1)  # log prod_{l<k} (l + eta) / (l + 1)
    return math.exp(k * math.log1p(-g) + log_prod) / (g ** (-e) - 1)
