import numpy as np
import pytest

from core.evaluation.metrics import accuracy, f1, majority_share


def test_accuracy_and_f1():
    assert accuracy([1, 0, 1, 1], [1, 0, 0, 1]) == 0.75
    assert f1([1, 0, 1, 1], [1, 0, 0, 1]) == pytest.approx(0.8)


def test_f1_on_string_labels_uses_the_last_class_as_positive():
    assert f1(["<=50K", ">50K", ">50K"], ["<=50K", ">50K", "<=50K"]) == pytest.approx(2 / 3)


def test_majority_share():
    assert majority_share(["a", "a", "b", "a"]) == 0.75


# --- references and intervals (issue 24) --------------------------------------------------

def test_proportion_interval_covers_the_share():
    from core.evaluation.metrics import proportion_interval
    lo, hi = proportion_interval(84, 100)
    assert lo < 0.84 < hi and 0 <= lo and hi <= 1


def test_proportion_interval_narrows_with_more_trials():
    from core.evaluation.metrics import proportion_interval
    lo1, hi1 = proportion_interval(84, 100)
    lo2, hi2 = proportion_interval(8400, 10000)
    assert hi2 - lo2 < (hi1 - lo1) / 5


def test_proportion_interval_coverage_is_near_nominal():
    from core.evaluation.metrics import proportion_interval
    rng = np.random.default_rng(0)
    p, n = 0.9, 200
    hits = [proportion_interval(rng.binomial(n, p), n) for _ in range(2000)]
    coverage = np.mean([lo <= p <= hi for lo, hi in hits])
    assert 0.93 <= coverage <= 0.97
    # a interval of half the width (the wrong scale) would not cover at 95 %
    narrow = np.mean([(lo + hi) / 2 - (hi - lo) / 4 <= p <= (lo + hi) / 2 + (hi - lo) / 4 for lo, hi in hits])
    assert narrow < 0.85


def test_proportion_interval_rejects_a_bad_confidence():
    from core.evaluation.metrics import proportion_interval
    with pytest.raises(ValueError, match="strictly between 0 and 1"):
        proportion_interval(1, 2, confidence=1.0)


def test_mean_interval_of_one_value_has_no_spread():
    from core.evaluation.metrics import mean_interval
    mean, lo, hi = mean_interval([0.7])
    assert mean == 0.7 and np.isnan(lo) and np.isnan(hi)


def test_mean_interval_brackets_the_mean():
    from core.evaluation.metrics import mean_interval
    mean, lo, hi = mean_interval([0.5, 0.6, 0.7, np.nan])
    assert mean == pytest.approx(0.6) and lo < 0.6 < hi


def test_below_reference_says_it_in_words():
    from core.evaluation.metrics import below_reference
    text = below_reference(0.61, 0.84)
    assert "below the constant guess" in text and "0.84" in text
    assert below_reference(0.9, 0.84) is None


def test_no_better_than_reads_the_references_interval():
    from core.evaluation.metrics import no_better_than
    assert "below the constant guess" in no_better_than(0.6, 0.7, (0.68, 0.72))
    inside = no_better_than(0.71, 0.7, (0.68, 0.72), meaning="always guessing the majority class")
    assert inside == ("0.71 lies inside the constant guess's 95% interval (0.680-0.720): not distinguishable from "
                      "always guessing the majority class.")
    assert no_better_than(0.73, 0.7, (0.68, 0.72)) is None  # above the interval: told apart
    assert no_better_than(0.71, 0.7) is None  # no interval: only "below" can be said
    assert no_better_than(float("nan"), 0.7, (0.68, 0.72)) is None


def test_no_better_than_for_an_error_is_inside_from_below():
    from core.evaluation.metrics import no_better_than
    assert "lies inside" in no_better_than(1.9, 2.0, (1.8, 2.2), what="a zero-noise release", higher_is_better=False)
    assert no_better_than(1.7, 2.0, (1.8, 2.2), higher_is_better=False) is None


def test_below_reference_for_an_error_is_above():
    from core.evaluation.metrics import below_reference
    assert "above a zero-noise release" in below_reference(5.0, 2.0, what="a zero-noise release",
                                                            higher_is_better=False)
    assert below_reference(1.0, 2.0, higher_is_better=False) is None
