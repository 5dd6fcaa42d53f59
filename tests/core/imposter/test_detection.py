import math

import numpy as np
import pandas as pd
import pytest

from core.imposter.detection import detect_implicit, discretize, nmi_scores, printed_ratio
from core.validation import DataError


def test_census_leak_is_found(census):
    res = detect_implicit(census.frame, "sex", theta=0.01, beta=0.7, random_state=0)
    assert res.scores["attribute"].iloc[0] == "relationship"
    assert set(res.candidates) == {"relationship", "occupation", "hours_per_week"}
    assert res.implicit == res.candidates
    assert res.tau > res.majority_share + 0.1


def test_scores_are_sorted_and_cover_every_other_column(census):
    scores = nmi_scores(census.frame, "sex")
    assert set(scores["attribute"]) == set(census.frame.columns) - {"sex"}
    assert scores["nmi"].is_monotonic_decreasing
    assert scores["nmi"].between(0, 1).all()


def test_printed_ratio_is_a_distance():
    x = np.array([0, 0, 1, 1, 2, 2] * 50)
    assert printed_ratio(x, x) == pytest.approx(0.0)
    rng = np.random.default_rng(0)
    a, b = rng.integers(0, 3, 20000), rng.integers(0, 2, 20000)
    assert printed_ratio(a, b) == pytest.approx(1.0, abs=0.01)


def test_nmi_and_printed_ratio_run_opposite_ways(census):
    scores = nmi_scores(census.frame, "sex")
    assert scores["printed_ratio"].is_monotonic_increasing


def test_beta_above_tau_returns_empty_set(census):
    res = detect_implicit(census.frame, "sex", theta=0.01, beta=0.99, random_state=0)
    assert res.candidates and res.implicit == ()
    assert not res.detected


def test_theta_above_every_nmi_gives_no_candidates(census):
    res = detect_implicit(census.frame, "sex", theta=0.9, beta=0.5)
    assert res.candidates == () and math.isnan(res.tau)


def test_higher_theta_gives_a_subset(census):
    low = detect_implicit(census.frame, "sex", theta=0.001, beta=0.0)
    high = detect_implicit(census.frame, "sex", theta=0.05, beta=0.0)
    assert set(high.candidates) <= set(low.candidates)
    assert len(high.candidates) < len(low.candidates)


def test_f1_metric_and_other_classifier(census):
    res = detect_implicit(census.frame, "sex", theta=0.01, beta=0.5, metric="f1",
                          classifier="xgboost", random_state=0)
    assert 0.5 < res.tau <= 1.0


def test_same_seed_same_tau(census):
    a = detect_implicit(census.frame, "sex", theta=0.01, beta=0.5, random_state=3)
    b = detect_implicit(census.frame, "sex", theta=0.01, beta=0.5, random_state=3)
    assert a.tau == b.tau


def test_exclude_keeps_a_column_out(census):
    res = detect_implicit(census.frame, "sex", theta=0.01, beta=0.0, exclude=["relationship"])
    assert "relationship" not in res.candidates
    assert "relationship" not in set(res.scores["attribute"])


def test_quantile_binning_of_continuous_columns():
    s = pd.Series(np.arange(1000, dtype=float))
    codes = discretize(s, bins=10, numeric=True)
    assert sorted(set(codes)) == list(range(10))
    small = pd.Series([1.0, 2.0, 2.0, np.nan])
    assert list(discretize(small, bins=10, numeric=True)) == [0, 1, 1, -1]


def test_to_dict_is_json_able(census):
    import json

    res = detect_implicit(census.frame, "sex", theta=0.01, beta=0.7)
    json.dumps(res.to_dict())


@pytest.mark.parametrize(
    "kwargs, exc",
    [
        ({"theta": 1.5}, ValueError),
        ({"theta": "high"}, TypeError),
        ({"beta": -0.1}, ValueError),
        ({"metric": "auc"}, ValueError),
        ({"classifier": "svm"}, ValueError),
    ],
)
def test_bad_parameters(census, kwargs, exc):
    with pytest.raises(exc):
        detect_implicit(census.frame, "sex", **kwargs)


def test_bad_sensitive_columns(census):
    with pytest.raises(DataError):
        detect_implicit(census.frame, "nope")
    frame = census.frame.assign(sex="Male")
    with pytest.raises(DataError, match="single value"):
        detect_implicit(frame, "sex")
    frame = census.frame.assign(sex=np.arange(len(census.frame)))
    with pytest.raises(DataError, match="categorical"):
        detect_implicit(frame, "sex")


def test_accepts_a_dataset(census):
    res = detect_implicit(census, "sex", theta=0.05, beta=0.5)
    assert res.sensitive == "sex"


def test_adult_gender_at_theta_001(adult):
    """Fig. 6 / Table 1 setting: theta = 0.01 on Adult flags seven attributes (income among
    them) and an attacker predicts sex from them with accuracy about 0.84 (the paper: 0.84-0.85)."""
    res = detect_implicit(adult.frame, "sex", theta=0.01, beta=0.7, random_state=0)
    assert res.scores["attribute"].iloc[0] == "relationship"
    assert set(res.implicit) == {"relationship", "marital_status", "occupation", "income",
                                 "hours_per_week", "workclass", "race"}
    assert 0.82 < res.tau < 0.87
    assert abs(res.majority_share - 0.668) < 0.002


def test_progress_names_the_steps_and_changes_nothing(census):
    seen = []
    quiet = detect_implicit(census.frame, "sex", theta=0.01, beta=0.5, random_state=0)
    told = detect_implicit(census.frame, "sex", theta=0.01, beta=0.5, random_state=0,
                           progress=lambda f, m: seen.append((f, m)))
    assert told.tau == quiet.tau and told.implicit == quiet.implicit
    fractions = [f for f, _ in seen]
    assert fractions == sorted(fractions)
    assert seen[0][1].startswith("NMI") and seen[-1][1] == "The attacker's check: fold 3 of 3"
