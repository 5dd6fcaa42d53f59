"""MIC through the rebuilt minepy (core.correlation.maximal_information): known cases."""
from __future__ import annotations

import numpy as np
import pytest

from core.correlation.maximal_information import mic, mic_pairs


def test_identity_gives_one():
    x = np.linspace(0, 1, 300)
    assert mic(x, x) == pytest.approx(1.0)


def test_noiseless_nonlinear_function_gives_one():
    x = np.linspace(-1, 1, 300)
    assert mic(x, x**2) == pytest.approx(1.0, abs=1e-6)


def test_independent_noise_is_near_zero():
    # MIC is biased upwards for independent samples; the bias shrinks with n
    rng = np.random.default_rng(0)
    assert mic(rng.random(5000), rng.random(5000)) < 0.1


def test_constant_gives_zero():
    assert mic(np.ones(50), np.arange(50.0)) == 0.0


def test_mic_rejects_mismatched_lengths():
    with pytest.raises(ValueError, match="same length"):
        mic(np.arange(5.0), np.arange(6.0))


def test_pairs_row_cap_is_seeded_and_parallel_matches_serial():
    rng = np.random.default_rng(1)
    x = rng.random(2000)
    X = np.c_[x, x**2 + 0.05 * rng.random(2000), rng.random(2000)]
    a = mic_pairs(X, [(0, 1), (0, 2)], max_rows=1000, random_state=3)
    b = mic_pairs(X, [(0, 1), (0, 2)], max_rows=1000, random_state=3, n_jobs=2)
    assert np.allclose(a, b)
    assert a[0] > 0.8 and a[1] < 0.2
