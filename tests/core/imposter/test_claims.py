"""Paper 002's claims on small hand-made tables: one that holds and one that does not."""
from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

from core.claims.claim import Claim
from core.imposter import detect_implicit
from core.imposter.claims import fig6_claim, fig7_claim, fig8_claim, table1_claim, table2_claim
from core.imposter.paper import PAPER_CLAIMS


# ---------------------------------------------------------------- Fig. 6
def _scores(nmi):
    return pd.DataFrame({"attribute": [f"x{i}" for i in range(len(nmi))], "nmi": nmi})


def test_fig6_holds_when_an_attribute_reaches_theta_and_names_the_strongest():
    claim = fig6_claim(_scores([0.002, 0.2, 0.05]), theta=0.01, sensitive="sex")
    assert isinstance(claim, Claim) and claim.holds is True
    assert claim.figure == "Paper 002, Fig. 6" and claim.paper == PAPER_CLAIMS["Fig. 6"]
    assert "2 of 3 attributes reach theta = 0.01" in claim.finding
    assert "x1 leaks most (NMI 0.200" in claim.finding


def test_fig6_does_not_hold_when_nothing_reaches_theta():
    claim = fig6_claim(_scores([0.002, 0.004]), theta=0.01)
    assert claim.holds is False and "0 of 2 attributes" in claim.finding


def test_fig6_cannot_be_judged_when_no_attribute_beats_the_constant_guess():
    # issue 39: "Holds here" sat beside "no implicit attribute found"; s is independent of a and b,
    # yet their sample NMI reaches a small theta
    rng = np.random.default_rng(0)
    frame = pd.DataFrame({"a": rng.choice(list("abcdefghij"), 300), "b": rng.integers(0, 100, 300),
                          "sex": rng.choice(["F", "M"], 300)})
    det = detect_implicit(frame, "sex", theta=0.002, beta=0.6, classifier="lr", random_state=0)
    assert det.default_implicit == () and (det.scores["nmi"] >= 0.002).any()
    claim = fig6_claim(det.scores, theta=0.002, sensitive="sex")
    assert claim.holds is None and "no implicit attribute found" in claim.finding
    flagged = det.scores.assign(flagged=det.scores["attribute"] == "a")
    assert fig6_claim(flagged, theta=0.002, sensitive="sex").holds is True


def test_fig6_cannot_be_judged_without_attributes_and_refuses_a_non_frame():
    assert fig6_claim(_scores([]), theta=0.01).holds is None
    with pytest.raises(TypeError, match="DataFrame"):
        fig6_claim([0.1], theta=0.01)
    with pytest.raises(ValueError, match="theta"):
        fig6_claim(_scores([0.1]), theta=2.0)


# ---------------------------------------------------------------- Table 1
def _table1(b_sens, a_label, b_label, floor=0.67):
    cols = pd.MultiIndex.from_tuples([(s, t, "accuracy") for s in "AB" for t in ("sensitive", "label")],
                                     names=["setting", "task", "metric"])
    rows = [[0.84, a, b, c] for b, a, c in zip(b_sens, a_label, b_label)]
    t = pd.DataFrame(rows, index=[f"C{i}" for i in range(len(rows))], columns=cols)
    t.attrs.update(majority_synthetic=floor, sensitive="sex", label="income")
    return t


def test_table1_holds_when_b_is_at_the_floor_and_the_label_keeps_its_accuracy():
    claim = table1_claim(_table1([0.66, 0.69], [0.83, 0.83], [0.81, 0.82]))
    assert claim.holds is True
    assert "0.660-0.690 against the majority share 0.670" in claim.finding
    assert "largest gap 0.020, within 0.03" in claim.finding
    assert "at most 0.020 (within 0.05" in claim.finding


def test_table1_does_not_hold_when_one_classifier_still_leaks():
    claim = table1_claim(_table1([0.66, 0.75], [0.83, 0.83], [0.81, 0.82]))
    assert claim.holds is False and "beyond 0.03, worst C1" in claim.finding


def test_table1_does_not_hold_when_the_label_loses_too_much():
    claim = table1_claim(_table1([0.66, 0.67], [0.83, 0.83], [0.70, 0.82]))
    assert claim.holds is False and "at most 0.130 (beyond 0.05, worst C0)" in claim.finding


def _no_leak_table(a_sens: float, *, n: int = 900, label_majority: float = 0.76) -> pd.DataFrame:
    """A Table 1 whose real-table attacker scores ``a_sens`` against a 0.90 majority share."""
    t = _table1([0.90], [0.85], [0.84], floor=0.90)
    t[("A", "sensitive", "accuracy")] = a_sens
    t.attrs.update(majority_real=0.90, label_majority_real=label_majority, n_test_real=n)
    return t


def test_table1_cannot_be_judged_when_the_real_table_leaks_nothing():
    """B at the floor proves nothing when A is already at the constant guess."""
    claim = table1_claim(_no_leak_table(0.905))
    assert claim.holds is None
    assert "no leak to remove" in claim.finding and "majority share 0.900" in claim.finding


def test_table1_is_judged_when_the_real_table_leaks():
    claim = table1_claim(_no_leak_table(0.96))
    assert claim.holds is True and "no leak" not in claim.finding


def test_table1_cannot_be_judged_when_the_label_is_not_learned():
    claim = table1_claim(_no_leak_table(0.96, label_majority=0.85))
    assert claim.holds is None and "no utility to keep" in claim.finding


def test_table1_cannot_be_judged_without_setting_b():
    t = _table1([0.66], [0.83], [0.81]).drop(columns="B", level="setting")
    assert table1_claim(t).holds is None


# ---------------------------------------------------------------- Fig. 7
def _curve():
    return pd.DataFrame({"epsilon": [1.0, 10.0, 100.0], "sensitive_accuracy": [0.66, 0.75, 0.84],
                         "label_accuracy": [0.70, 0.78, 0.83]})


def test_fig7_holds_when_krr_is_less_useful_at_the_same_leak():
    claim = fig7_claim(_curve(), imposter=(0.705, 0.82))
    assert claim.holds is True
    assert "kRR's label accuracy is 0.740 (interpolated; nearest budget epsilon = 1)" in claim.finding


def test_fig7_does_not_hold_when_krr_is_more_useful_at_the_same_leak():
    assert fig7_claim(_curve(), imposter=(0.75, 0.70)).holds is False


def test_fig7_outside_krr_range_holds_only_when_krr_is_beaten_on_both():
    assert fig7_claim(_curve(), imposter=(0.60, 0.82)).holds is True  # kRR leaks more, less useful
    claim = fig7_claim(_curve(), imposter=(0.60, 0.65))
    assert claim.holds is None and "No kRR budget matches" in claim.finding


# ---------------------------------------------------------------- Table 2
def _theta_runs(b_sens, b_label, n_implicit, floor=0.67):
    thetas = [0.002, 0.01, 0.02, 0.1][:len(b_sens)]
    return pd.DataFrame({"theta": thetas, "implicit": [["a"] * n for n in n_implicit],
                         "A_label_accuracy": 0.83, "B_sensitive_accuracy": b_sens,
                         "B_label_accuracy": b_label, "majority_synthetic": floor})


def test_table2_holds_when_lower_theta_protects_more_at_the_floor_and_the_label_falls():
    claim = table2_claim(_theta_runs([0.66, 0.67, 0.68, 0.69], [0.84, 0.83, 0.82, 0.77], [5, 3, 2, 1]))
    assert claim.holds is True
    assert "Protected attributes: 5 at 0.002, 3 at 0.01, 2 at 0.02, 1 at 0.1 (more at lower theta)" in claim.finding
    assert "label accuracy in B is 0.840 at theta = 0.002 and 0.770 at 0.1 (falls" in claim.finding


def test_table2_does_not_hold_when_a_theta_leaves_the_leak():
    claim = table2_claim(_theta_runs([0.66, 0.67, 0.68, 0.78], [0.84, 0.83, 0.82, 0.77], [5, 3, 2, 1]))
    assert claim.holds is False and "not within 0.03 for every theta; worst at theta = 0.1" in claim.finding


def test_table2_cannot_be_judged_on_one_theta():
    claim = table2_claim(_theta_runs([0.66], [0.84], [5]))
    assert claim.holds is None and "Only 1 theta" in claim.finding


# ---------------------------------------------------------------- Fig. 8
def _lambda_runs(b_sens, b_label, lambdas=(0.0, 0.5, 1.0, 2.0, 5.0, 10.0), floor=0.67):
    return pd.DataFrame({"lambda": list(lambdas), "repetition": 0, "B_sensitive_accuracy": b_sens,
                         "B_label_accuracy": b_label, "majority_synthetic": floor})


def test_fig8_holds_when_the_leak_falls_to_the_floor_from_lambda_one_and_the_label_is_level():
    claim = fig8_claim(_lambda_runs([0.80, 0.72, 0.68, 0.67, 0.66, 0.69], [0.83, 0.83, 0.82, 0.82, 0.81, 0.80]))
    assert claim.holds is True
    assert "0.800 at lambda = 0 and 0.660-0.690 for lambda >= 1 (falls" in claim.finding
    assert "label accuracy spans 0.030" in claim.finding


def test_fig8_does_not_hold_when_the_label_collapses_at_large_lambda():
    claim = fig8_claim(_lambda_runs([0.80, 0.72, 0.68, 0.67, 0.66, 0.69], [0.83, 0.83, 0.82, 0.82, 0.81, 0.60]))
    assert claim.holds is False and "not level" in claim.finding


def test_fig8_averages_repetitions_and_needs_both_sides_of_one():
    runs = pd.concat([_lambda_runs([0.80, 0.66], [0.8, 0.8], lambdas=(0.0, 1.0)),
                      _lambda_runs([0.70, 0.68], [0.8, 0.8], lambdas=(0.0, 1.0))])
    claim = fig8_claim(runs)
    assert claim.holds is True and "0.750 at lambda = 0 and 0.670-0.670" in claim.finding
    assert fig8_claim(_lambda_runs([0.7, 0.68], [0.8, 0.8], lambdas=(1.0, 2.0))).holds is None
    with pytest.raises(ValueError, match="lacks"):
        fig8_claim(pd.DataFrame({"lambda": [0.0]}))
