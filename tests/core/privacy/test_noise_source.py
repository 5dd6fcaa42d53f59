"""Release noise (core.privacy.noise_source) and display noise seeds (core.runtime.randomness)."""
from __future__ import annotations

import numpy as np
import pytest

from core.privacy.noise_source import NoiseSource
from core.runtime.randomness import display_seed


def test_display_seed_is_stable_for_the_same_keys():
    assert display_seed(3, "SSKM_DP", 1.0) == display_seed(3, "SSKM_DP", 1.0)


def test_display_seed_differs_across_epsilon():
    assert display_seed(3, "SSKM_DP", 1.0) != display_seed(3, "SSKM_DP", 2.0)


def test_display_seed_refuses_a_negative_seed():
    with pytest.raises(TypeError):
        display_seed(-1, "x")


def test_fresh_noise_source_never_repeats():
    a = NoiseSource().generator().laplace(size=5)
    b = NoiseSource().generator().laplace(size=5)
    assert not np.array_equal(a, b)


def test_reproducible_noise_source_repeats_and_is_not_private():
    src = NoiseSource(reproducible_seed=7)
    assert not src.private
    np.testing.assert_array_equal(src.generator().laplace(size=5), src.generator().laplace(size=5))
    assert "NOT PRIVATE" in src.describe()
