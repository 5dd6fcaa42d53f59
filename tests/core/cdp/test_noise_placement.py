"""Noise method 7 (beyond paper 000): Gaussian on the mean gradient, epochs composed by a
privacy-loss-distribution accountant (dp-accounting).

The checks are independent of the accountant: one Gaussian epoch is the analytic Gaussian
mechanism (Balle & Wang 2018, :func:`core.privacy.mechanisms.gaussian_sigma`), and E full-batch
Gaussian epochs with one sigma and one L2 sensitivity s are exactly one Gaussian release
with sensitivity s * sqrt(E) (Dong, Roth & Su 2022, Gaussian DP composition).
"""
from __future__ import annotations

import math

import numpy as np
import pytest
from scipy import stats

from core.cdp.logistic import CDPLogisticRegression
from core.cdp.schedule import DP_METHODS, NOISE_METHOD_MEANING, NOISE_METHODS
from core.cdp.noise_placement import NOISE_PLACEMENTS, PLD_METHOD, Calibration, pld_gaussian_calibration
from core.privacy.mechanisms import _analytic_delta, gaussian_sigma

N, CS, CLIP = 200, 3.0, 0.5


def _scales(eps, epochs, delta=1e-5, n=N, cs=CS, clip=CLIP):
    return NOISE_PLACEMENTS[PLD_METHOD].scales(Calibration(epsilon=eps, delta=delta, epochs=epochs, n=n, cs=cs,
                                                           clip=clip))


def test_method_seven_is_a_dp_method_marked_beyond_the_paper():
    p = NOISE_PLACEMENTS[PLD_METHOD]
    assert PLD_METHOD == 7 and p.is_dp and 7 in DP_METHODS
    assert not p.in_paper and "not in the paper" in NOISE_METHODS[7]
    assert p.clip_order == 2 and p.accountant == "pld"
    assert "PLD" in NOISE_METHOD_MEANING[7] or "privacy-loss-distribution" in NOISE_METHOD_MEANING[7]
    assert all(q.in_paper for m, q in NOISE_PLACEMENTS.items() if m != 7)


@pytest.mark.parametrize("eps", [0.1, 0.5, 1.0, 4.0])
def test_one_epoch_sigma_is_the_analytic_gaussian_for_twice_cs_clip(eps):
    """Replace-one moves the summed gradient by 2 CS clip, the mean by that over N."""
    expected = gaussian_sigma(sensitivity=2 * CS * CLIP / N, epsilon=eps, delta=1e-5, calibration="analytic")
    assert _scales(eps, 1).sigma == pytest.approx(expected, rel=1e-4)
    assert _scales(eps, 1).sigma >= expected * (1 - 1e-6)  # never less noise than the exact answer


@pytest.mark.parametrize("epochs", [4, 25, 100])
def test_sigma_grows_like_sqrt_epochs_and_beats_the_even_split(epochs):
    one = _scales(1.0, 1).sigma
    many = _scales(1.0, epochs).sigma
    assert many == pytest.approx(one * math.sqrt(epochs), rel=1e-3)
    split = NOISE_PLACEMENTS[2].scales(Calibration(epsilon=1.0, delta=1e-5, epochs=epochs, n=N, cs=CS, clip=CLIP))
    assert many < split.sigma  # basic composition pays ~E, the accountant ~sqrt(E)


@pytest.mark.parametrize("eps,epochs", [(0.3, 1), (1.0, 10), (2.0, 60)])
def test_true_delta_at_the_ledger_epsilon_is_the_ledger_delta(eps, epochs):
    """E Gaussian epochs = one Gaussian with sensitivity s sqrt(E): its exact delta at the
    claimed epsilon must not exceed the claimed delta, and is close to it (tight)."""
    sc = _scales(eps, epochs, delta=1e-5)
    assert sc.epsilon <= eps and sc.epsilon == pytest.approx(eps, rel=1e-4)
    s = 2 * CS * CLIP / N
    true_delta = _analytic_delta(sc.sigma, s * math.sqrt(epochs), sc.epsilon)
    assert true_delta <= 1e-5 * (1 + 1e-3)
    assert true_delta > 0.9e-5


def test_sigma_scales_with_the_correlated_sensitivity_and_clip():
    base = _scales(1.0, 5).sigma
    assert _scales(1.0, 5, cs=6.0).sigma == pytest.approx(2 * base)
    assert _scales(1.0, 5, clip=1.0).sigma == pytest.approx(2 * base)
    assert _scales(1.0, 5, n=2 * N).sigma == pytest.approx(base / 2)


def test_calibration_is_cached_and_the_accountant_reports_at_most_the_target():
    z, spent = pld_gaussian_calibration(0.7, 1e-6, 12)
    assert pld_gaussian_calibration(0.7, 1e-6, 12) == (z, spent)
    assert spent <= 0.7 and spent == pytest.approx(0.7, rel=1e-4)


@pytest.mark.parametrize("epochs", [1, 7])
def test_ledger_is_one_entry_with_the_accountants_total(epochs):
    rng = np.random.default_rng(0)
    X = rng.normal(size=(120, 3))
    y = (X[:, 0] > 0).astype(int)
    m = CDPLogisticRegression(noise_method=7, epsilon=0.8, delta=1e-5, epochs=epochs, learning_rate=1.0,
                              sensitivity=2.0, random_state=0).fit(X, y)
    assert m.ledger_.is_dp
    eps, delta = m.ledger_.total()
    assert eps == pytest.approx(0.8, rel=1e-4) and eps <= 0.8
    assert delta == pytest.approx(1e-5)
    assert len(m.ledger_) == 1
    assert m.ledger_.entries[0].label.startswith(f"{epochs} epochs, PLD composition")
    assert any("not in paper 000" in a for a in m.ledger_.assumptions)


def test_delta_is_required():
    X = np.random.default_rng(0).normal(size=(40, 2))
    y = (X[:, 0] > 0).astype(int)
    with pytest.raises(ValueError):
        CDPLogisticRegression(noise_method=7, delta=0.0, epochs=2).fit(X, y)


def _bias_noise(sigma, *, epochs=1, n=40, reps=300):
    """One epoch, lr 1, no features: w_bias = -(mean(p - y) + noise)."""
    X = np.zeros((n, 1))
    y = np.r_[np.ones(n // 4), np.zeros(n - n // 4)].astype(int)
    expected = -(0.5 - y.mean())
    draws = [CDPLogisticRegression(noise_method=7, epsilon=0.5, epochs=epochs, learning_rate=1.0, momentum=0.0,
                                   sensitivity=3.0, clip_norm=1.0, delta=1e-4,
                                   random_state=s).fit(X, y).intercept_[0] - expected
             for s in range(reps)]
    return -np.asarray(draws) / sigma


def test_the_noise_of_a_fit_has_the_calibrated_sigma():
    sigma = gaussian_sigma(sensitivity=2 * 3.0 / 40, epsilon=0.5, delta=1e-4, calibration="analytic")
    assert stats.kstest(_bias_noise(sigma), "norm").pvalue > 0.01
    assert stats.kstest(_bias_noise(2 * sigma), "norm").pvalue < 0.01
    assert stats.kstest(_bias_noise(sigma / 2), "norm").pvalue < 0.01
