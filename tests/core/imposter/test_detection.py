import math

import numpy as np
import pandas as pd
import pytest

from core.imposter.detection import detect_implicit, discretize, nmi_scores, printed_ratio
from core.validation import DataError


def test_census_leak_is_found(census):
    res = detect_implicit(census.frame, "sex", theta=0.01, beta=0.7, random_state=0, rule="paper")
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
    res = detect_implicit(census.frame, "sex", theta=0.01, beta=0.99, random_state=0, rule="paper")
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
        ({"rule": "strict"}, ValueError),
        ({"confidence": 1.0}, ValueError),
        ({"confidence": "high"}, TypeError),
        ({"min_gain": -0.1}, ValueError),
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
    res = detect_implicit(adult.frame, "sex", theta=0.01, beta=0.7, random_state=0, rule="paper")
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
    assert seen[0][1].startswith("NMI")
    assert ("The attacker's check: fold 3 of 3" in [m for _, m in seen]
            and seen[-1][1] == "Each attribute against the constant guess")


# ------------------------------------------------------------------ the default rule: against a null
def _table(n: int = 3000, *, seed: int = 0) -> pd.DataFrame:
    """A 0.9-majority sensitive column, a pure-noise attribute (numeric and categorical), a
    leaking attribute (s copied with 3% flips: with 10% flips under a 0.9 majority a 'b'
    copy is right half the time, so it changes no guess) and a row number with gaps."""
    rng = np.random.default_rng(seed)
    s = np.where(rng.random(n) < 0.9, "a", "b")
    flip = rng.random(n) < 0.03
    leak = np.where(flip, np.where(s == "a", "b", "a"), s)
    return pd.DataFrame({
        "row": np.sort(rng.choice(10 * n, size=n, replace=False)),
        "noise_num": rng.normal(size=n),
        "noise_cat": rng.choice(list("pqrstu"), size=n),
        "leak": np.char.add("v", leak),
        "s": s,
    })


def test_default_rule_does_not_flag_pure_noise_beside_a_majority_class():
    frame = _table().drop(columns=["leak"])
    res = detect_implicit(frame, "s", exclude=["row"], random_state=0)
    assert res.rule == "default" and res.implicit == () and res.default_implicit == ()
    noise = res.scores.set_index("attribute").loc[["noise_num", "noise_cat"]]
    assert (noise["gain_lo"] <= 0).all() and not noise["flagged"].any()


def test_paper_rule_flags_that_noise_at_a_low_beta():
    """The paper's rule has no reference: beta = 0.7 under a 0.9 majority keeps any candidate."""
    frame = _table().drop(columns=["leak"])
    res = detect_implicit(frame, "s", theta=0.0, beta=0.7, exclude=["row"], random_state=0, rule="paper")
    assert set(res.implicit) == {"noise_num", "noise_cat"}
    assert res.paper_implicit == res.implicit and res.default_implicit == ()


def test_shuffled_sensitive_flags_nothing():
    frame = _table()
    frame["s"] = np.random.default_rng(1).permutation(frame["s"].to_numpy())
    res = detect_implicit(frame, "s", exclude=["row"], random_state=0)
    assert res.implicit == ()
    assert not res.scores["flagged"].any()


def test_shuffled_balanced_sensitive_flags_nothing():
    rng = np.random.default_rng(2)
    frame = pd.DataFrame({f"x{i}": rng.choice(list("abcdefgh"), size=2000) for i in range(13)})
    frame["s"] = rng.choice(["m", "f"], size=2000)
    res = detect_implicit(frame, "s", random_state=0)
    assert res.implicit == ()


def test_a_real_leak_is_flagged_with_its_gain_interval_above_zero():
    res = detect_implicit(_table(), "s", exclude=["row"], random_state=0)
    assert res.implicit == ("leak",)
    row = res.scores.set_index("attribute").loc["leak"]
    assert 0 < row["gain_lo"] <= row["gain"] <= row["gain_hi"]
    # s copied with 10% flips: 0.9 accuracy against the 0.9 constant guess is no gain;
    # the per-value majority predicts b for 'vb' rows: about 0.09 of the rows right instead of wrong
    assert row["accuracy"] > row["majority_accuracy"]
    assert res.gains(["leak"])["gain"].iloc[0] == pytest.approx(row["gain"])


def test_a_balanced_copy_with_10_percent_flips_is_flagged():
    rng = np.random.default_rng(3)
    s = rng.choice(["m", "f"], size=1000)
    leak = np.where(rng.random(1000) < 0.1, np.where(s == "m", "f", "m"), s)
    frame = pd.DataFrame({"leak": leak, "noise": rng.normal(size=1000), "s": s})
    res = detect_implicit(frame, "s", random_state=0)
    assert res.implicit == ("leak",)
    row = res.scores.set_index("attribute").loc["leak"]
    assert row["gain_lo"] > 0.3 and abs(row["accuracy"] - 0.9) < 0.03


def test_the_constant_guess_is_scored_on_the_same_rows():
    res = detect_implicit(_table(), "s", exclude=["row"], random_state=0)
    maj = res.scores["majority_accuracy"]
    assert maj.nunique() == 1 and abs(maj.iloc[0] - res.majority_share) < 0.01
    assert np.allclose(res.scores["accuracy"] - maj, res.scores["gain"])


def test_paper_verdict_is_computed_beside_the_default_one():
    res = detect_implicit(_table(), "s", theta=0.0, beta=0.7, exclude=["row"], random_state=0)
    assert res.implicit == res.default_implicit == ("leak",)
    assert set(res.paper_implicit) == {"leak", "noise_num", "noise_cat"}
    assert set(res.scores.loc[res.scores["paper_flagged"], "attribute"]) == set(res.paper_implicit)


def test_min_gain_raises_the_bar():
    res = detect_implicit(_table(), "s", exclude=["row"], min_gain=0.5, random_state=0)
    assert res.implicit == ()


def test_paper_rule_keeps_its_tau_and_verdict(census):
    """The default rule is computed after the paper's tau: the reproduced numbers do not move."""
    paper = detect_implicit(census.frame, "sex", theta=0.01, beta=0.7, random_state=0, rule="paper")
    default = detect_implicit(census.frame, "sex", theta=0.01, beta=0.7, random_state=0)
    assert paper.tau == default.tau and paper.paper_implicit == default.paper_implicit
    assert paper.tau == pytest.approx(0.861, abs=1e-4)  # as before the default rule
    lo, hi = paper.tau_interval
    assert lo < paper.tau < hi
