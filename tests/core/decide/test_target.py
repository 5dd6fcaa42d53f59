"""Target: parsing good and bad strings, objects, meeting a value, words."""
from __future__ import annotations

import math

import pytest

from core.decide.target import Target


@pytest.mark.parametrize("text, measure, side, value", [
    ("accuracy>=0.8", "accuracy", "at_least", 0.8),
    ("  mae <= 0.5 ", "mae", "at_most", 0.5),
    ("utility ≥ 0.7", "utility", "at_least", 0.7),
    ("ai_advantage_sex≤5e-2", "ai_advantage_sex", "at_most", 0.05),
    ("mae<=-1", "mae", "at_most", -1.0),
])
def test_parse_reads_measure_side_and_bound(text, measure, side, value):
    target = Target.parse(text)
    assert target.measure == measure and target.to_dict() == {"measure": measure, side: value}


@pytest.mark.parametrize("text", ["accuracy > 0.8", "accuracy>=", ">=0.8", "accuracy>=abc", "accuracy>=inf",
                                  "accuracy>=nan", "", "accuracy >= 0.8 0.9", "1acc>=0.8", "accuracy==0.8"])
def test_parse_refuses_bad_strings_in_words(text):
    with pytest.raises(ValueError, match="target|bound|finite"):
        Target.parse(text)


def test_parse_refuses_a_non_string():
    with pytest.raises(TypeError, match="string"):
        Target.parse(0.8)


def test_exactly_one_bound():
    with pytest.raises(ValueError, match="exactly one bound"):
        Target("mae")
    with pytest.raises(ValueError, match="exactly one bound"):
        Target("mae", at_least=0.1, at_most=0.5)


@pytest.mark.parametrize("kwargs, error", [
    (dict(measure=3, at_least=0.5), TypeError), (dict(measure=" ", at_least=0.5), ValueError),
    (dict(measure="mae", at_most=True), TypeError), (dict(measure="mae", at_most="0.5"), TypeError),
    (dict(measure="mae", at_most=math.inf), ValueError),
])
def test_bad_fields(kwargs, error):
    with pytest.raises(error):
        Target(**kwargs)


def test_from_dict_round_trip_and_refusals():
    target = Target.from_dict({"measure": "ai_advantage", "at_most": 0.05})
    assert Target.from_dict(target.to_dict()) == target
    with pytest.raises(ValueError, match="unknown key"):
        Target.from_dict({"measure": "mae", "at_most": 0.5, "below": 1})
    with pytest.raises(ValueError, match="needs a measure"):
        Target.from_dict({"at_most": 0.5})
    with pytest.raises(TypeError, match="object"):
        Target.from_dict("mae<=0.5")


def test_met_in_both_directions_and_never_for_missing():
    assert Target("accuracy", at_least=0.8).met(0.8) and not Target("accuracy", at_least=0.8).met(0.79)
    assert Target("mae", at_most=0.5).met(0.5) and not Target("mae", at_most=0.5).met(0.51)
    for missing in (None, math.nan, "0.9", True):
        assert not Target("accuracy", at_least=0.1).met(missing)


def test_describe_uses_the_measures_words():
    assert Target.parse("utility>=0.8").describe() == "accuracy at least 0.8"
    assert Target.parse("mae<=0.5").describe() == "MAE at most 0.5"
    assert Target.parse("ai_advantage<=0.05").describe() == "attribute-inference advantage at most 0.05"
