"""The power calculation that sizes the statistical tests (core.audit.power)."""
from __future__ import annotations

import numpy as np
import pytest

from core.audit.bounds import measure_epsilon
from core.audit.power import (
    best_power,
    best_runs,
    detection_power,
    gaussian_shift_rates,
    laplace_shift_rates,
    runs_for_power,
)


def _gaussian(shift):
    return lambda fp: gaussian_shift_rates(shift, false_positive=fp)


def _simulated_power(shift: float, runs: int, trials: int, *, delta: float, seed: int = 0) -> float:
    """The share of audits (the real bound, threshold chosen on half the runs) that flag a
    Gaussian shifted by ``shift`` against a claim of epsilon 1."""
    rng = np.random.default_rng(seed)
    hits = 0
    for _ in range(trials):
        stats = np.column_stack([rng.normal(0.0, 1.0, runs), rng.normal(shift, 1.0, runs)])
        hits += measure_epsilon(stats, delta, 0.95)[3] > 1.0
    return hits / trials


def test_the_calculation_bounds_the_real_audits_power_from_above_and_closely():
    """It assumes the selection half picks the test: slightly optimistic, never far off."""
    calc = best_power(100, _gaussian(2.0), claimed_epsilon=1.0, delta=1e-2)
    sim = _simulated_power(2.0, 100, 200, delta=1e-2)
    assert sim <= calc + 0.08 and sim >= calc - 0.15, (sim, calc)


def test_a_sound_gaussian_is_flagged_with_at_most_the_audits_error_rate():
    """Method 7's own noise (shift 0.53 at epsilon 1, delta 1e-2) is never a violation."""
    assert best_power(5000, _gaussian(0.532), claimed_epsilon=1.0, delta=1e-2) <= 0.025


def test_power_grows_with_the_runs_and_the_leak():
    p = [best_power(r, _gaussian(1.2), claimed_epsilon=1.0, delta=1e-2) for r in (200, 800, 3200)]
    assert p[0] < p[1] < p[2]
    assert best_power(800, _gaussian(1.6), claimed_epsilon=1.0, delta=1e-2) > p[1]


def test_runs_for_power_is_the_fewest_that_reach_it():
    rates = gaussian_shift_rates(1.6, false_positive=0.05)
    runs = runs_for_power(false_positive=rates[0], false_negative=rates[1], claimed_epsilon=1.0, delta=1e-2,
                          power=0.99)
    assert detection_power(runs, false_positive=rates[0], false_negative=rates[1], claimed_epsilon=1.0,
                           delta=1e-2) >= 0.99
    assert detection_power(runs - 20, false_positive=rates[0], false_negative=rates[1], claimed_epsilon=1.0,
                           delta=1e-2) < 0.99


def test_a_leak_too_small_for_the_largest_audit_is_a_value_error():
    with pytest.raises(ValueError, match="too close to the claim"):
        runs_for_power(false_positive=0.1, false_negative=0.85, claimed_epsilon=1.0, delta=1e-2, max_runs=2000)


def test_laplace_rates_follow_its_tails():
    fp, fn = laplace_shift_rates(2.0, false_positive=0.5)  # threshold at 0
    assert fp == 0.5 and fn == pytest.approx(0.5 * np.exp(-2.0))
    with pytest.raises(ValueError, match=r"\(0, 0.5\]"):
        laplace_shift_rates(2.0, false_positive=0.7)


def test_a_rate_that_is_not_a_number_is_a_type_error():
    with pytest.raises(TypeError, match="false_positive must be a number"):
        detection_power(100, false_positive="0.1", false_negative=0.1, claimed_epsilon=1.0)


def test_the_audit_case_sizes_reach_their_stated_power():
    """The run counts in tests/core/audit_cases/test_cases.py, recomputed."""
    from tests.core.audit_cases import test_cases as cases

    pld = best_power(cases.PLD_RUNS, _gaussian(2.0 * cases.PLD_MU), claimed_epsilon=1.0, delta=1e-2)
    assert pld >= 0.999
    epochs = best_power(cases.EPOCH_RUNS, _gaussian(cases.EPOCH_SHIFT), claimed_epsilon=1.0, delta=1e-2)
    assert epochs >= cases.EPOCH_POWER
    assert best_runs(_gaussian(2.0 * cases.PLD_MU), claimed_epsilon=1.0, delta=1e-2) == cases.PLD_RUNS
