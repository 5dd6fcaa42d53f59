"""The number of rounds of a private selection: exact draws whose distribution is the theorem's.

Statistical tests: the right parameter passes, a wrong one fails.
"""
from __future__ import annotations

import math
from fractions import Fraction

import numpy as np
import pytest
from scipy import stats

from core.decide.rounds import (
    as_fraction,
    bernoulli_fraction,
    draw_geometric,
    draw_truncated_negative_binomial,
    expected_rounds,
    rounds_pmf,
)
from core.runtime.randomness import check_random_state

N = 4000


def _z(draws: np.ndarray, gamma: float, eta: float) -> float:
    """z of the draws' mean against D_{eta, gamma}'s mean (its sd from the pmf)."""
    ks = np.arange(1, 2000)
    pmf = np.array([rounds_pmf(int(k), gamma, eta) for k in ks])
    mean = expected_rounds(gamma, eta)
    sd = math.sqrt(float(np.sum(pmf * (ks - mean) ** 2)))
    return (float(np.mean(draws)) - mean) / (sd / math.sqrt(len(draws)))


def _chi2_p(draws: np.ndarray, gamma: float, eta: float) -> float:
    """Goodness of fit of the draws to D_{eta, gamma}, the tail above 8 pooled."""
    cells = np.arange(1, 9)
    probs = np.array([rounds_pmf(int(k), gamma, eta) for k in cells])
    probs = np.append(probs, 1 - probs.sum())
    observed = np.array([np.sum(draws == k) for k in cells] + [np.sum(draws > 8)])
    return float(stats.chisquare(observed, probs * len(draws)).pvalue)


def test_geometric_mean_matches_the_right_gamma_only():
    rng = check_random_state(11)
    draws = np.array([draw_geometric(Fraction(1, 4), rng) for _ in range(N)])
    assert abs(_z(draws, 0.25, 1.0)) < 4
    assert abs(_z(draws, 0.2, 1.0)) > 6


@pytest.mark.parametrize("eta", [Fraction(0), Fraction(1, 2), Fraction(1)])
def test_truncated_negative_binomial_matches_the_right_parameters_only(eta):
    rng = check_random_state(12)
    draws = np.array([draw_truncated_negative_binomial(Fraction(1, 5), eta, rng) for _ in range(N)])
    assert abs(_z(draws, 0.2, float(eta))) < 4 and _chi2_p(draws, 0.2, float(eta)) > 1e-3
    assert abs(_z(draws, 0.3, float(eta))) > 6 and _chi2_p(draws, 0.3, float(eta)) < 1e-6


def test_logarithmic_is_not_geometric():
    rng = check_random_state(13)
    draws = np.array([draw_truncated_negative_binomial(Fraction(1, 5), Fraction(0), rng) for _ in range(N)])
    assert _chi2_p(draws, 0.2, 1.0) < 1e-6


def test_pmf_sums_to_one_and_has_the_stated_mean():
    for eta in (0.0, 0.5, 1.0):
        ks = range(1, 3000)
        assert sum(rounds_pmf(k, 0.1, eta) for k in ks) == pytest.approx(1.0, abs=1e-9)
        assert sum(k * rounds_pmf(k, 0.1, eta) for k in ks) == pytest.approx(expected_rounds(0.1, eta))
    assert rounds_pmf(3, 0.2, 1.0) == pytest.approx(0.2 * 0.8 ** 2)


def test_bernoulli_fraction_is_exact_at_the_ends_and_fair_for_huge_denominators():
    rng = check_random_state(14)
    assert not bernoulli_fraction(Fraction(0), rng) and bernoulli_fraction(Fraction(1), rng)
    p = Fraction(2**69 + 1, 2**70)  # denominator beyond int64: the 32-bit-word path
    share = np.mean([bernoulli_fraction(p, rng) for _ in range(N)])
    assert abs(share - 0.5) < 4 * math.sqrt(0.25 / N)


def test_as_fraction_reads_decimals_exactly_and_checks_bounds():
    kw = dict(name="gamma", low=Fraction(0), high=Fraction(1), closed_low=False, closed_high=False)
    assert as_fraction(0.1, **kw) == Fraction(1, 10) and as_fraction(Fraction(1, 3), **kw) == Fraction(1, 3)
    with pytest.raises(ValueError, match=r"gamma must lie in \(0, 1\)"):
        as_fraction(1, **kw)
    with pytest.raises(TypeError):
        as_fraction(True, **kw)
    with pytest.raises(ValueError, match="finite"):
        as_fraction(math.nan, **kw)
