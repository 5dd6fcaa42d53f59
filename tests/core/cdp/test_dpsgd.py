"""DP-SGD logistic regression, the CDP-LR page's ordinary-DP baseline (beyond the paper)."""
from __future__ import annotations

import math

import numpy as np
import pytest

import core.cdp.dpsgd as dpsgd
from core.cdp.baselines import model_matrix
from core.cdp.dpsgd import DPSGD_NOTE, DPSGDLogisticRegression, dpsgd_calibration, dpsgd_epsilon, dpsgd_steps


@pytest.fixture(scope="module")
def census():
    from core.data import load_sample

    ds = load_sample("census")
    X = model_matrix(ds, ds.features)
    y = ds.frame[ds.label].astype(str).to_numpy()
    idx = np.random.default_rng(0).permutation(len(y))
    tr, te = idx[:2400], idx[2400:]
    return X[tr], X[te], y[tr], y[te]


@pytest.fixture(scope="module")
def small():
    rng = np.random.default_rng(0)
    X = rng.normal(size=(200, 3))
    y = (X[:, 0] + 0.3 * rng.normal(size=200) > 0).astype(int)
    return X, y


@pytest.mark.parametrize("q", [1.0, 0.25])
@pytest.mark.parametrize("eps,delta", [(1.0, 1e-5), (0.3, 1e-3)])
def test_ledger_total_is_the_requested_budget(small, q, eps, delta):
    m = DPSGDLogisticRegression(epsilon=eps, delta=delta, sampling_rate=q, epochs=2, random_state=0).fit(*small)
    got_eps, got_delta = m.ledger_.total()
    assert m.ledger_.is_dp and len(m.ledger_) == 1
    assert got_eps <= eps and got_eps == pytest.approx(eps, rel=1e-4)
    assert got_delta <= delta and got_delta == pytest.approx(delta, rel=1e-4)
    assert DPSGD_NOTE in m.ledger_.assumptions
    assert "correlated records (CS) are not covered" in DPSGD_NOTE


def test_full_batch_accounting_is_replace_one_on_the_accountant():
    """q = 1: REPLACE_ONE directly (one Gaussian per step, L2 shift 2 clip): the recorded
    epsilon is the accountant's for the calibrated sigma, at the requested delta."""
    from dp_accounting import NeighboringRelation
    from dp_accounting.pld.pld_privacy_accountant import PLDAccountant

    z, eps, dlt = dpsgd_calibration(1.0, 1e-5, 1.0, 3)
    acc = PLDAccountant(NeighboringRelation.REPLACE_ONE, value_discretization_interval=dpsgd.PLD_DISCRETIZATION)
    acc.compose(dpsgd._event(z, 1.0, 3))
    assert eps == pytest.approx(acc.get_epsilon(1e-5)) and dlt == 1e-5
    # one step: the analytic Gaussian sigma for L2 sensitivity 2 (in units of clip)
    from core.privacy.mechanisms import gaussian_sigma

    z1 = dpsgd_calibration(1.0, 1e-5, 1.0, 1)[0]
    assert z1 == pytest.approx(gaussian_sigma(sensitivity=2.0, epsilon=1.0, delta=1e-5, calibration="analytic"),
                               rel=1e-2)


def test_subsampled_accounting_is_add_remove_with_group_privacy():
    """q < 1: the add/remove accountant at (eps / 2, delta / (1 + e^(eps / 2))), doubled by
    group privacy of size 2."""
    from dp_accounting import NeighboringRelation
    from dp_accounting.pld.pld_privacy_accountant import PLDAccountant

    z, eps, dlt = dpsgd_calibration(1.0, 1e-5, 0.1, 50)
    d_ar = 1e-5 / (1 + math.exp(0.5)) * (1 - 1e-9)
    acc = PLDAccountant(NeighboringRelation.ADD_OR_REMOVE_ONE, value_discretization_interval=dpsgd.PLD_DISCRETIZATION)
    acc.compose(dpsgd._event(z, 0.1, 50))
    e_ar = acc.get_epsilon(d_ar)
    assert e_ar <= 0.5
    assert eps == pytest.approx(2 * e_ar) and dlt == pytest.approx((1 + math.exp(e_ar)) * d_ar)
    assert (eps, dlt) == dpsgd_epsilon(z, d_ar, 0.1, 50)


def test_sigma_grows_when_epsilon_shrinks_and_with_more_steps():
    sig = [dpsgd_calibration(e, 1e-5, 0.1, 50)[0] for e in (4.0, 1.0, 0.25)]
    assert sig[0] < sig[1] < sig[2]
    steps = [dpsgd_calibration(1.0, 1e-5, 0.1, s)[0] for s in (10, 50, 200)]
    assert steps[0] < steps[1] < steps[2]
    full = [dpsgd_calibration(1.0, 1e-5, 1.0, s)[0] for s in (1, 4)]
    assert full[0] < full[1]


def test_steps_and_default_rate(small):
    assert dpsgd_steps(0.25, 2) == 8 and dpsgd_steps(1.0, 3) == 3
    m = DPSGDLogisticRegression(epsilon=1.0, epochs=1, random_state=0).fit(*small)
    assert m.sampling_rate_ == 1.0  # 512 / 200 capped at 1
    X = np.repeat(small[0], 10, axis=0)
    y = np.repeat(small[1], 10)
    m = DPSGDLogisticRegression(epsilon=1.0, epochs=1, random_state=0).fit(X, y)
    assert m.sampling_rate_ == pytest.approx(512 / 2000) and m.steps_ == round(2000 / 512)


def test_it_learns_on_census_at_epsilon_one(census):
    Xtr, Xte, ytr, yte = census
    m = DPSGDLogisticRegression(epsilon=1.0, random_state=0).fit(Xtr, ytr)
    majority = max(np.mean(yte == c) for c in np.unique(ytr))
    assert m.score(Xte, yte) > majority + 0.05
    assert set(m.predict(Xte)) <= set(np.unique(ytr))
    p = m.predict_proba(Xte)
    assert p.shape == (len(yte), 2) and np.allclose(p.sum(axis=1), 1)


def test_same_seed_same_weights(small):
    a = DPSGDLogisticRegression(epsilon=1.0, sampling_rate=0.3, random_state=7).fit(*small)
    b = DPSGDLogisticRegression(epsilon=1.0, sampling_rate=0.3, random_state=7).fit(*small)
    c = DPSGDLogisticRegression(epsilon=1.0, sampling_rate=0.3, random_state=8).fit(*small)
    assert np.array_equal(a.coef_, b.coef_) and np.array_equal(a.intercept_, b.intercept_)
    assert not np.array_equal(a.coef_, c.coef_)


def test_more_noise_at_smaller_epsilon_in_the_fit(small):
    lo = DPSGDLogisticRegression(epsilon=0.2, random_state=0).fit(*small)
    hi = DPSGDLogisticRegression(epsilon=5.0, random_state=0).fit(*small)
    assert lo.noise_multiplier_ > hi.noise_multiplier_


@pytest.mark.parametrize("kw", [dict(sampling_rate=0.0), dict(sampling_rate=1.5), dict(delta=0.0),
                                dict(clip_norm=0.0), dict(learning_rate=-1.0), dict(epsilon=0.0)])
def test_bad_parameters_are_refused(small, kw):
    with pytest.raises((ValueError, TypeError)):
        DPSGDLogisticRegression(**{"epsilon": 1.0, **kw}).fit(*small)


def test_one_class_is_refused(small):
    from core.validation import DataError

    with pytest.raises(DataError):
        DPSGDLogisticRegression(epsilon=1.0).fit(small[0], np.zeros(len(small[0])))


@pytest.mark.parametrize("q", [1.0, 0.25])
def test_the_gradient_noise_is_drawn_by_the_exact_sampler(small, q):
    m = DPSGDLogisticRegression(epsilon=1.0, sampling_rate=q, epochs=1, random_state=0).fit(*small)
    assert "exact discrete Gaussian" in m.ledger_.entries[0].noise
    assert not m.ledger_.floating_point


def test_poisson_sampling_uses_integers_at_the_stated_rate():
    """floor(q 2^53) / 2^53 is the exact join probability: at most q, within 2^-53 of it."""
    q = 0.3
    cut = int(q * dpsgd._SAMPLING_DENOMINATOR)
    assert cut / dpsgd._SAMPLING_DENOMINATOR <= q < (cut + 1) / dpsgd._SAMPLING_DENOMINATOR
