"""Mechanism tests in the style of the trusted DP libraries.

(a) goodness of fit with 100,000 draws: passes at the true scale, fails at 0.7x and 1.3x;
(b) the neighbouring-input ratio check P[M(0) in S] <= e^eps P[M(1) in S] (+ delta) + tol,
    which a mechanism with too little noise fails;
(c) kRR keeps the truth with probability e^eps / (k - 1 + e^eps);
(d) validation; (e) seeding.
"""
from __future__ import annotations

import math

import numpy as np
import pytest
from scipy import stats

from core.privacy.mechanisms import (
    gaussian, gaussian_sigma, krr, krr_keep_probability, laplace, laplace_scale,
)

N = 100_000
EPS = 0.5


# ---------------------------------------------------------------- (a) goodness of fit
def _laplace_noise(seed=1):
    return laplace(np.zeros(N), sensitivity=1.0, epsilon=EPS, random_state=seed)


def test_laplace_matches_its_scale():
    assert stats.kstest(_laplace_noise(), stats.laplace(scale=1.0 / EPS).cdf).pvalue > 0.01


@pytest.mark.parametrize("factor", [0.7, 1.3])
def test_laplace_fails_a_wrong_scale(factor):
    assert stats.kstest(_laplace_noise(), stats.laplace(scale=factor / EPS).cdf).pvalue < 1e-6


def _gaussian_noise(seed=2, eps=EPS, calibration="classic"):
    return gaussian(
        np.zeros(N), sensitivity=1.0, epsilon=eps, delta=1e-5, random_state=seed,
        calibration=calibration,
    )


def test_gaussian_matches_its_sigma():
    sigma = math.sqrt(2 * math.log(1.25 / 1e-5)) / EPS
    assert stats.kstest(_gaussian_noise(), stats.norm(scale=sigma).cdf).pvalue > 0.01


@pytest.mark.parametrize("factor", [0.7, 1.3])
def test_gaussian_fails_a_wrong_sigma(factor):
    sigma = math.sqrt(2 * math.log(1.25 / 1e-5)) / EPS
    assert stats.kstest(_gaussian_noise(), stats.norm(scale=factor * sigma).cdf).pvalue < 1e-6


def _krr_counts(eps, k=4, seed=3):
    cats = list("abcd")[:k]
    out = krr(np.full(N, "a"), categories=cats, epsilon=eps, random_state=seed)
    return np.array([(out == c).sum() for c in cats])


def _krr_expected(eps, k=4):
    p = math.exp(eps) / (k - 1 + math.exp(eps))
    return N * np.array([p] + [(1 - p) / (k - 1)] * (k - 1))


def test_krr_output_distribution_matches():
    assert stats.chisquare(_krr_counts(1.0), _krr_expected(1.0)).pvalue > 0.01


@pytest.mark.parametrize("factor", [0.7, 1.3])
def test_krr_output_distribution_fails_wrong_epsilon(factor):
    assert stats.chisquare(_krr_counts(1.0), _krr_expected(factor * 1.0)).pvalue < 1e-6


# ---------------------------------------------------------------- (b) neighbouring inputs
def _max_ratio_violation(a, b, eps, delta=0.0, bins=np.linspace(-12, 13, 51)):
    """Largest P[M(0) in S] - (e^eps P[M(1) in S] + delta) over bins S (and the reverse)."""
    pa = np.histogram(a, bins=bins)[0] / len(a)
    pb = np.histogram(b, bins=bins)[0] / len(b)
    return max(
        np.max(pa - (math.exp(eps) * pb + delta)),
        np.max(pb - (math.exp(eps) * pa + delta)),
    )


def test_laplace_neighbouring_ratio_holds():
    m0 = laplace(np.zeros(N), sensitivity=1.0, epsilon=EPS, random_state=10)
    m1 = laplace(np.ones(N), sensitivity=1.0, epsilon=EPS, random_state=11)
    assert _max_ratio_violation(m0, m1, EPS) <= 0.005


def test_laplace_with_too_little_noise_breaks_the_ratio():
    m0 = laplace(np.zeros(N), sensitivity=0.25, epsilon=EPS, random_state=10)  # claims sens 1
    m1 = laplace(np.ones(N), sensitivity=0.25, epsilon=EPS, random_state=11)
    assert _max_ratio_violation(m0, m1, EPS) > 0.02


def test_gaussian_neighbouring_ratio_holds_with_delta():
    eps, delta = 0.9, 1e-5
    m0 = gaussian(np.zeros(N), sensitivity=1.0, epsilon=eps, delta=delta, random_state=12)
    m1 = gaussian(np.ones(N), sensitivity=1.0, epsilon=eps, delta=delta, random_state=13)
    assert _max_ratio_violation(m0, m1, eps, delta) <= 0.005


def test_gaussian_with_too_little_noise_breaks_the_ratio():
    eps, delta = 0.9, 1e-5
    m0 = gaussian(np.zeros(N), sensitivity=0.15, epsilon=eps, delta=delta, random_state=12)
    m1 = gaussian(np.ones(N), sensitivity=0.15, epsilon=eps, delta=delta, random_state=13)
    assert _max_ratio_violation(m0, m1, eps, delta) > 0.02


def test_krr_neighbouring_ratio_holds():
    eps, cats = 1.0, list("abc")
    a = krr(np.full(N, "a"), categories=cats, epsilon=eps, random_state=14)
    b = krr(np.full(N, "b"), categories=cats, epsilon=eps, random_state=15)
    pa = np.array([(a == c).mean() for c in cats])
    pb = np.array([(b == c).mean() for c in cats])
    assert np.all(pa <= math.exp(eps) * pb + 0.01)
    assert np.all(pb <= math.exp(eps) * pa + 0.01)


# ---------------------------------------------------------------- (c) kRR keep probability
@pytest.mark.parametrize("k,eps", [(2, 0.5), (5, 1.0), (10, 3.0)])
def test_krr_keep_rate(k, eps):
    cats = list(range(k))
    truth = np.arange(N) % k
    out = krr(truth, categories=cats, epsilon=eps, random_state=21)
    p = math.exp(eps) / (k - 1 + math.exp(eps))
    assert krr_keep_probability(k=k, epsilon=eps) == pytest.approx(p)
    kept = (out == truth).mean()
    assert abs(kept - p) < 4 * math.sqrt(p * (1 - p) / N)


def test_krr_changed_values_are_never_the_truth_and_uniform():
    cats = list("abcde")
    out = krr(np.full(N, "a"), categories=cats, epsilon=0.1, random_state=22)
    changed = out[out != "a"]
    counts = np.array([(changed == c).sum() for c in "bcde"])
    assert stats.chisquare(counts).pvalue > 0.01


def test_krr_keeps_dtype_of_categories():
    out = krr([1, 2, 3, 1], categories=[1, 2, 3], epsilon=1.0, random_state=0)
    assert out.dtype.kind == "i"


def test_krr_rejects_unknown_value():
    with pytest.raises(ValueError, match="not one of"):
        krr(["z"], categories=["a", "b"], epsilon=1.0, random_state=0)


def test_krr_needs_two_categories():
    with pytest.raises(ValueError, match="at least 2"):
        krr(["a"], categories=["a"], epsilon=1.0, random_state=0)


# ---------------------------------------------------------------- (d) validation
@pytest.mark.parametrize("eps", [0, -1, float("nan"), float("inf")])
def test_laplace_rejects_bad_epsilon(eps):
    with pytest.raises(ValueError):
        laplace(1.0, sensitivity=1.0, epsilon=eps, random_state=0)


def test_laplace_rejects_string_epsilon():
    with pytest.raises(TypeError, match="epsilon must be a number"):
        laplace(1.0, sensitivity=1.0, epsilon="1", random_state=0)


def test_laplace_rejects_negative_sensitivity():
    with pytest.raises(ValueError, match="sensitivity must be 0 or more"):
        laplace(1.0, sensitivity=-1.0, epsilon=1.0, random_state=0)


def test_laplace_rejects_non_finite_values():
    with pytest.raises(ValueError, match="finite"):
        laplace([1.0, np.nan], sensitivity=1.0, epsilon=1.0, random_state=0)


@pytest.mark.parametrize("delta", [0.0, 1.0, -0.1, 2.0])
def test_gaussian_rejects_delta_outside_unit_interval(delta):
    with pytest.raises(ValueError, match="delta must lie strictly between 0 and 1"):
        gaussian(1.0, sensitivity=1.0, epsilon=0.5, delta=delta, random_state=0)


def test_classic_gaussian_refuses_epsilon_at_least_one():
    with pytest.raises(ValueError, match="epsilon < 1"):
        gaussian(1.0, sensitivity=1.0, epsilon=1.0, delta=1e-5, random_state=0)


def test_analytic_gaussian_is_tighter_and_valid_for_large_epsilon():
    classic = gaussian_sigma(sensitivity=1.0, epsilon=0.5, delta=1e-5)
    analytic = gaussian_sigma(sensitivity=1.0, epsilon=0.5, delta=1e-5, calibration="analytic")
    assert analytic < classic
    assert gaussian_sigma(sensitivity=1.0, epsilon=4.0, delta=1e-5, calibration="analytic") > 0


def test_analytic_gaussian_meets_delta_exactly():
    from core.privacy.mechanisms import _analytic_delta

    sigma = gaussian_sigma(sensitivity=2.0, epsilon=1.5, delta=1e-6, calibration="analytic")
    assert _analytic_delta(sigma, 2.0, 1.5) <= 1e-6
    assert _analytic_delta(sigma * 0.99, 2.0, 1.5) > 1e-6


def test_zero_sensitivity_adds_no_noise():
    assert laplace(3.0, sensitivity=0.0, epsilon=1.0, random_state=0) == 3.0


def test_scalar_in_scalar_out():
    assert isinstance(laplace(3.0, sensitivity=1.0, epsilon=1.0, random_state=0), float)
    assert laplace_scale(sensitivity=2.0, epsilon=0.5) == 4.0


# ---------------------------------------------------------------- (e) seeding
def test_same_seed_same_draws():
    a = laplace(np.zeros(10), sensitivity=1, epsilon=1, random_state=5)
    b = laplace(np.zeros(10), sensitivity=1, epsilon=1, random_state=5)
    assert np.array_equal(a, b)


def test_different_seeds_differ():
    a = gaussian(np.zeros(10), sensitivity=1, epsilon=0.5, delta=1e-5, random_state=5)
    b = gaussian(np.zeros(10), sensitivity=1, epsilon=0.5, delta=1e-5, random_state=6)
    assert not np.array_equal(a, b)


def test_krr_same_seed_same_output():
    v = np.arange(100) % 3
    assert np.array_equal(
        krr(v, categories=[0, 1, 2], epsilon=1, random_state=9),
        krr(v, categories=[0, 1, 2], epsilon=1, random_state=9),
    )


def test_generator_is_threaded_not_reset():
    g = np.random.default_rng(0)
    a = laplace(np.zeros(5), sensitivity=1, epsilon=1, random_state=g)
    b = laplace(np.zeros(5), sensitivity=1, epsilon=1, random_state=g)
    assert not np.array_equal(a, b)


def test_krr_rounds_epsilon_down_never_up():
    from core.privacy.mechanisms import _KRR_DENOMINATOR

    # an epsilon below the sampler's resolution reports uniformly: no more than the claim
    out = krr(np.array(["a"] * 30_000), categories=["a", "b", "c"], epsilon=0.5 / _KRR_DENOMINATOR,
              random_state=0)
    shares = np.array([(out == c).mean() for c in "abc"])
    assert np.allclose(shares, 1 / 3, atol=0.015)
