import numpy as np
import pandas as pd
import pytest

from core.imposter.krr_baseline import krr_baseline, krr_perturb, krr_sweep
from core.mechanisms import krr_keep_probability

IMPLICIT = ["relationship", "occupation", "hours_per_week"]


def test_only_the_named_columns_change(census):
    noisy = krr_perturb(census, columns=["relationship"], epsilon=1.0, random_state=0)
    others = [c for c in census.frame.columns if c != "relationship"]
    pd.testing.assert_frame_equal(noisy[others], census.frame[others])
    assert (noisy["relationship"] != census.frame["relationship"]).any()


@pytest.mark.parametrize("epsilon", [0.5, 2.0])
def test_keep_rate_matches_eq1(census, epsilon):
    col = "occupation"
    k = census.frame[col].nunique()
    noisy = krr_perturb(census, columns=[col], epsilon=epsilon, random_state=1)
    kept = (noisy[col] == census.frame[col]).mean()
    p = krr_keep_probability(k=k, epsilon=epsilon)
    sd = np.sqrt(p * (1 - p) / len(noisy))
    assert abs(kept - p) < 4 * sd
    wrong = krr_keep_probability(k=k, epsilon=epsilon * 2)
    assert abs(kept - wrong) > 4 * sd  # a wrong budget would be detected


def test_numeric_columns_are_binned_and_stay_numeric(census):
    noisy = krr_perturb(census, columns=["hours_per_week"], epsilon=100.0, bins=5, random_state=0)
    assert pd.api.types.is_integer_dtype(noisy["hours_per_week"])
    assert noisy["hours_per_week"].nunique() <= 5
    # at a huge epsilon each value stays in its own quantile bin: strong rank correlation
    assert noisy["hours_per_week"].corr(census.frame["hours_per_week"], method="spearman") > 0.8


def test_same_seed_same_perturbation(census):
    a = krr_perturb(census, columns=IMPLICIT, epsilon=1.0, random_state=3)
    b = krr_perturb(census, columns=IMPLICIT, epsilon=1.0, random_state=3)
    pd.testing.assert_frame_equal(a, b)


def test_more_budget_leaks_more(census):
    low = krr_baseline(census, sensitive="sex", label="income", implicit=IMPLICIT, epsilon=0.1,
                       classifier="lr", random_state=0)
    high = krr_baseline(census, sensitive="sex", label="income", implicit=IMPLICIT, epsilon=50.0,
                        classifier="lr", random_state=0)
    assert low["sensitive_accuracy"] < 0.72 < 0.8 < high["sensitive_accuracy"]
    assert set(low) == {"sensitive_accuracy", "sensitive_f1", "label_accuracy", "label_f1"}


def test_sweep_has_one_row_per_run(census):
    runs = krr_sweep(census, sensitive="sex", label="income", implicit=IMPLICIT,
                     epsilons=[1.0, 10.0], repetitions=2, classifier="lr", max_rows=1000)
    assert len(runs) == 4
    assert runs["epsilon"].tolist() == [1.0, 1.0, 10.0, 10.0]


@pytest.mark.parametrize("epsilon, exc", [(0.0, ValueError), (float("nan"), ValueError), ("1", TypeError)])
def test_bad_epsilon(census, epsilon, exc):
    with pytest.raises(exc):
        krr_perturb(census, columns=IMPLICIT, epsilon=epsilon)


def test_krr_ledger_spends_epsilon_per_perturbed_column():
    from core.imposter import krr_ledger

    led = krr_ledger(["a", "b"], 1.5, table_columns=["a", "b"])
    assert led.is_dp and led.total() == (pytest.approx(3.0), 0.0)


def test_krr_ledger_is_not_dp_when_other_columns_are_exact():
    from core.imposter import krr_ledger

    led = krr_ledger(["a"], 1.0, table_columns=["a", "b", "c"])
    assert not led.is_dp
    assert led.nominal()[0] == pytest.approx(1.0)
