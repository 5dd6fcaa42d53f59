import numpy as np
import pandas as pd
import pytest

from core.imposter.krr_baseline import krr_baseline, krr_perturb, krr_sweep
from core.privacy.mechanisms import krr_keep_probability

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


def _declared(*names):
    from core.privacy.schema import PublicSchema
    from core.privacy.schema_columns import ColumnSchema

    return PublicSchema(tuple(ColumnSchema(n, "categorical", categories=("x", "y")) for n in names))


def test_krr_ledger_spends_epsilon_per_perturbed_column():
    from core.imposter import krr_ledger

    led = krr_ledger(["a", "b"], 1.5, table_columns=["a", "b"], schema=_declared("a", "b"))
    assert led.is_dp and led.total() == (pytest.approx(3.0), 0.0)


def test_krr_ledger_is_not_dp_when_other_columns_are_exact():
    from core.imposter import krr_ledger

    led = krr_ledger(["a"], 1.0, table_columns=["a", "b", "c"], schema=_declared("a", "b", "c"))
    assert not led.is_dp and "published exactly" in led.describe()
    assert led.nominal()[0] == pytest.approx(1.0)


def test_krr_ledger_without_a_schema_says_the_domain_was_read_from_the_data():
    from core.imposter import krr_ledger
    from core.imposter.krr_baseline import DATA_DOMAIN_REASON

    led = krr_ledger(["a", "b"], 1.5)
    assert not led.is_dp and DATA_DOMAIN_REASON in led.not_dp_reasons
    assert led.nominal() == (pytest.approx(3.0), 0.0)


def test_krr_ledger_with_a_public_schema_covers_the_perturbed_columns(census):
    from core.privacy.schema_builtin import schema_for
    from core.imposter import krr_ledger

    led = krr_ledger(["relationship", "age"], 1.5, schema=schema_for(census))
    assert led.is_dp and led.total() == (pytest.approx(3.0), 0.0)
    assert any("shipped with the dataset" in a for a in led.assumptions)
    assert not any("quantile" in a for a in led.assumptions)


def test_krr_ledger_with_a_drafted_schema_is_not_dp(census):
    from core.privacy.schema_draft import draft_schema
    from core.imposter import krr_ledger

    led = krr_ledger(["relationship"], 1.0, schema=draft_schema(census))
    assert not led.is_dp and "read from your data" in led.describe()


def test_schema_domain_reports_other_and_public_bins(census):
    from core.privacy.schema_builtin import schema_for
    from core.privacy.schema_columns import OTHER

    schema = schema_for(census)
    frame = census.frame.head(50).copy()
    frame.loc[0, "relationship"] = "Cousin"  # not in the declared list
    frame.loc[1, "age"] = 1_000  # far above the public bound 90
    high = krr_perturb(frame, columns=["relationship", "age"], epsilon=200.0, schema=schema, random_state=0)
    assert high.loc[0, "relationship"] == OTHER
    assert set(high["relationship"]) <= set(schema["relationship"].domain)
    edges = np.linspace(17, 90, 11)
    assert high.loc[1, "age"] == round((edges[-2] + edges[-1]) / 2)  # clipped into the top public bin
    assert high["age"].max() <= 90 and pd.api.types.is_integer_dtype(high["age"])


def test_keep_rate_over_the_public_domain(census):
    """k is the declared list plus OTHER: the keep rate follows that k, not the observed one."""
    from core.privacy.schema_builtin import schema_for
    from core.privacy.schema_columns import OTHER

    schema = schema_for(census)
    col, eps = "occupation", 1.0
    noisy = krr_perturb(census, columns=[col], epsilon=eps, schema=schema, random_state=1)
    kept = (noisy[col] == census.frame[col]).mean()
    k = len(schema[col].domain)
    p = krr_keep_probability(k=k, epsilon=eps)
    sd = np.sqrt(p * (1 - p) / len(noisy))
    assert abs(kept - p) < 4 * sd
    # OTHER, which no record holds, is reported at its kRR rate: a domain read from the data never would
    other = (noisy[col] == OTHER).mean()
    q = (1 - p) / (k - 1)
    assert other > 0 and abs(other - q) < 4 * np.sqrt(q * (1 - q) / len(noisy))
