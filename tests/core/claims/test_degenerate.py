"""The definitions of a degenerate statistic (core.claims.degenerate): each at its edge."""
from __future__ import annotations

import numpy as np
import pytest

from core.claims import degenerate as dg


def test_a_tie_is_a_relative_difference_within_the_tolerance():
    assert dg.tied(1309.0, 1309.0 * (1 - dg.TIE_RTOL / 2))
    assert not dg.tied(1309.0, 1309.0 * (1 - dg.TIE_RTOL * 2))
    assert dg.tied(0.0, 0.0) and not dg.tied(float("nan"), float("nan"))


def test_below_says_none_on_a_tie_and_decides_otherwise():
    assert dg.below(1308.9999999, 1309.0) is None
    assert dg.below(1300.0, 1309.0) is True and dg.below(1309.0, 1300.0) is False
    assert dg.below(float("nan"), 1.0) is None


def test_a_constant_series_moves_by_no_more_than_a_tie():
    assert dg.constant([493_697.5, 493_697.5, 493_697.5])
    assert dg.constant([493_697.5, 493_697.5 * (1 + dg.TIE_RTOL / 2)])
    assert not dg.constant([493_697.5, 493_697.5 * (1 + dg.TIE_RTOL * 2)])
    assert dg.constant([5.0, np.nan])  # one finite value: nothing moves


def test_the_pair_ceiling_is_n_choose_two_and_a_value_there_is_degenerate():
    n = 2380
    assert dg.pair_ceiling(n) == n * (n - 1) // 2
    assert dg.at_ceiling(float(n * (n - 1) // 2), dg.pair_ceiling(n))
    assert not dg.at_ceiling(float(n * (n - 1) // 2 - 10), dg.pair_ceiling(n))


def test_pearson_needs_three_features_mahalanobis_one():
    assert dg.pearson_degenerate(2, "pearson") and not dg.pearson_degenerate(dg.MIN_PEARSON_FEATURES, "pearson")
    assert not dg.pearson_degenerate(1, "mahalanobis")


def test_wrong_types_and_values_are_refused():
    with pytest.raises(TypeError):
        dg.tied("1", 1.0)
    with pytest.raises(ValueError, match="rtol"):
        dg.tied(1.0, 1.0, rtol=2.0)
    with pytest.raises(ValueError, match="0 or more"):
        dg.pair_ceiling(-1)
    with pytest.raises(TypeError):
        dg.pearson_degenerate(2.0, "pearson")
