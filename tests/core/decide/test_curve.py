"""curve_points and crossing: the means, their t intervals, and where a series meets a target for good."""
from __future__ import annotations

import math

import pandas as pd
import pytest
from scipy import stats

from core.decide.curve import crossing, curve_points
from core.decide.target import Target


def test_curve_points_gives_the_t_interval_of_each_mean():
    curve = pd.DataFrame({"epsilon": [2, 1, 1, 1, 2, 2], "value": [0.5, 1.0, 2.0, 3.0, 0.7, float("nan")]})
    points = curve_points(curve, confidence=0.9)
    assert points.grid == (1.0, 2.0) and points.counts == (3, 2)
    half = stats.t.ppf(0.95, 2) * 1.0 / math.sqrt(3)
    assert points.means[0] == pytest.approx(2.0)
    assert points.lows[0] == pytest.approx(2.0 - half) and points.highs[0] == pytest.approx(2.0 + half)
    assert points.intervals_known


def test_one_repetition_leaves_the_interval_unknown():
    points = curve_points(pd.DataFrame({"epsilon": [1, 2], "value": [0.1, 0.2]}))
    assert points.lows == (None, None) and not points.intervals_known


@pytest.mark.parametrize("frame, words", [
    (pd.DataFrame({"epsilon": [1.0]}), "columns epsilon and value"),
    (pd.DataFrame({"epsilon": [0.0], "value": [1.0]}), "above 0"),
    (pd.DataFrame({"epsilon": [1.0], "value": [float("nan")]}), "no value"),
])
def test_bad_curves_are_refused_in_words(frame, words):
    with pytest.raises(ValueError, match=words):
        curve_points(frame)


def test_bad_confidence():
    curve = pd.DataFrame({"epsilon": [1.0], "value": [1.0]})
    with pytest.raises(ValueError, match="strictly between 0 and 1"):
        curve_points(curve, confidence=1.0)
    with pytest.raises(TypeError):
        curve_points(curve, confidence="0.95")


def test_crossing_interpolates_on_log_epsilon():
    c = crossing([1.0, 2.0, 4.0], [0.5, 0.7, 0.9], Target("accuracy", at_least=0.8))
    assert c.where == "inside" and c.segment == (2.0, 4.0)
    assert c.epsilon == pytest.approx(2 * math.sqrt(2))


def test_crossing_below_never_and_for_good():
    target = Target("mae", at_most=0.5)
    assert crossing([1, 2], [0.4, 0.3], target).where == "below"
    assert crossing([1, 2], [0.9, 0.6], target).where == "never"
    wobbly = crossing([1, 2, 4, 8], [0.4, 0.6, 0.45, 0.3], target)
    assert wobbly.where == "inside" and wobbly.segment == (2.0, 4.0) and wobbly.also_met == (1.0,)


def test_crossing_needs_matching_lengths():
    with pytest.raises(ValueError, match="same"):
        crossing([1, 2], [0.5], Target("mae", at_most=0.5))
