"""Accuracy, ROC AUC and balanced accuracy beside the constant guess (core.evaluation.classification)."""
from __future__ import annotations

import math

import numpy as np
import pytest
from sklearn.metrics import balanced_accuracy_score, roc_auc_score

from core.evaluation.classification import classification_scores, guess_scores, undefined_note


def _binary(n=400, signal=1.5, seed=0):
    rng = np.random.default_rng(seed)
    y = rng.integers(0, 2, n)
    score = rng.normal(size=n) + signal * y
    p = 1 / (1 + np.exp(-score))
    return y, np.column_stack([1 - p, p])


def test_binary_scores_match_scikit_learn():
    y, P = _binary()
    s = classification_scores(y, P, [0, 1])
    assert s["auc"] == pytest.approx(roc_auc_score(y, P[:, 1]))
    assert s["balanced_accuracy"] == pytest.approx(balanced_accuracy_score(y, P.argmax(1)))
    assert s["accuracy"] == pytest.approx(np.mean(y == P.argmax(1)))
    for key in ("accuracy", "auc", "balanced_accuracy"):
        lo, hi = s[f"{key}_interval"]
        assert lo < s[key] < hi


def test_more_classes_give_the_macro_one_vs_rest_auc():
    rng = np.random.default_rng(1)
    y = rng.integers(0, 3, 300)
    P = rng.dirichlet(np.ones(3), 300) + np.eye(3)[y]
    P = P / P.sum(1, keepdims=True)
    s = classification_scores(y, P, [0, 1, 2])
    assert s["auc"] == pytest.approx(roc_auc_score(y, P, multi_class="ovr", average="macro"))


def test_the_auc_interval_covers_the_truth_at_its_rate():
    # 200 draws of 200 records from a known AUC: the 95% interval covers it about 95% of the time
    signal = 1.0
    true_auc = float(__import__("scipy.stats", fromlist=["norm"]).norm.cdf(signal / math.sqrt(2)))
    # 120 draws: a 95% rate lands in [0.88, 1] with probability above 0.99; half the width
    # (a wrong scale, about 67% coverage) lands there with probability below 0.001
    intervals = [classification_scores(*_binary(200, signal, seed), [0, 1])["auc_interval"] for seed in range(120)]
    hits = np.mean([lo <= true_auc <= hi for lo, hi in intervals])
    narrow = np.mean([abs(true_auc - (lo + hi) / 2) <= (hi - lo) / 4 for lo, hi in intervals])
    assert hits >= 0.88 and narrow < 0.88


def test_a_one_class_holdout_has_no_auc_and_says_why():
    s = classification_scores(np.zeros(10, int), np.tile([0.3, 0.7], (10, 1)), [0, 1])
    assert math.isnan(s["auc"]) and math.isnan(s["balanced_accuracy"]) and s["accuracy"] == 0.0
    assert "one class only" in undefined_note(s["classes_held_out"]) and undefined_note(2) is None


def test_a_class_the_model_never_saw_scores_zero_probability():
    y = np.array([0, 1, 2, 2])
    P = np.array([[0.9, 0.1, 0.0], [0.2, 0.8, 0.0], [0.6, 0.4, 0.0], [0.4, 0.6, 0.0]])
    s = classification_scores(y, P, [0, 1, 2])
    assert s["balanced_accuracy"] == pytest.approx((1 + 1 + 0) / 3)


def test_given_predictions_override_the_highest_probability():
    y = np.array([0, 1, 1, 0])
    P = np.array([[0.5, 0.5]] * 4)
    assert classification_scores(y, P, [0, 1], predicted=np.ones(4, int))["accuracy"] == 0.5
    with pytest.raises(ValueError, match="not among the classes"):
        classification_scores(y, P, [0, 1], predicted=np.full(4, 7))


def test_the_guess_scores_half_and_one_over_k():
    y = np.array(["a"] * 70 + ["b"] * 20 + ["c"] * 10)
    g = guess_scores(y)
    assert g["accuracy"] == pytest.approx(0.7) and g["auc"] == 0.5 and g["balanced_accuracy"] == pytest.approx(1 / 3)
    assert g["auc_interval"][0] < 0.5 < g["auc_interval"][1]


def test_the_guess_interval_holds_scores_that_ignore_the_label():
    # the right spread passes: random scores stay inside it about 95% of the time; a spread
    # half as wide (a wrong scale) would leave far more outside
    y = np.repeat([0, 1], [150, 50])
    lo, hi = guess_scores(y)["auc_interval"]
    rng = np.random.default_rng(3)
    aucs = np.array([roc_auc_score(y, rng.normal(size=200)) for _ in range(400)])
    inside = np.mean((aucs >= lo) & (aucs <= hi))
    half = np.mean(np.abs(aucs - 0.5) <= (hi - lo) / 4)
    assert 0.91 <= inside <= 0.99 and half < 0.8


def test_shapes_and_labels_are_checked():
    with pytest.raises(ValueError, match="one row per record"):
        classification_scores(np.array([0, 1]), np.ones((3, 2)), [0, 1])
    with pytest.raises(ValueError, match="not among the classes"):
        classification_scores(np.array([0, 5]), np.ones((2, 2)), [0, 1])
