"""Count-query publishing (Section 6.3 of paper 000) and Eq. 22."""
from __future__ import annotations

from dataclasses import replace

import numpy as np
import pandas as pd
import pytest

from core.cdp.publishing import DP_SCHEME, mae_curve, prepare_publishing, release_counts
from core.cdp.queries import (
    Query,
    answer_counts,
    random_range_queries,
    schema_range_queries,
    values_coded,
)
from core.cdp.sensitivity import dataset_sensitivity
from core.data import load_sample
from core.evaluation.metrics import count_query_mae
from core.privacy.schema_builtin import schema_for


def test_eq22_adds_the_noise_error_and_the_selection_error():
    assert count_query_mae([12, 8], [10, 10], [9, 10]) == pytest.approx(((2 + 1) + (2 + 0)) / 2)
    with pytest.raises(ValueError):
        count_query_mae([1, 2], [1], [1, 2])


def test_conditions_on_removed_attributes_are_dropped():
    coded = pd.DataFrame({"a": [1.0, 2.0, 3.0, 4.0], "b": [0.0, 0.0, 1.0, 1.0]})
    q = [Query((("a", 2.0, 4.0), ("b", 1.0, 1.0)))]
    assert answer_counts(coded, q, ["a", "b"])[0] == 2
    assert answer_counts(coded, q, ["a"])[0] == 3
    assert answer_counts(coded, q, [])[0] == 4


def test_random_queries_are_seeded_and_within_the_data():
    ds = load_sample("supplier", with_products=False).head(200)
    a = random_range_queries(ds, n_queries=30, random_state=4)
    b = random_range_queries(ds, n_queries=30, random_state=4)
    assert a == b
    coded = values_coded(ds)
    for q in a:
        assert 1 <= len(q.conditions) <= 3
        for c, lo, hi in q.conditions:
            assert coded[c].min() <= lo <= hi <= coded[c].max()


@pytest.fixture(scope="module")
def setup():
    ds = load_sample("supplier", with_products=False).head(300)
    return prepare_publishing(ds, tc=40.0, n_queries=50, random_state=0)


def test_group_scheme_uses_all_attributes_and_the_group_sensitivity(setup):
    assert setup.columns["Proposed"] == setup.selection.selected
    ds = load_sample("supplier", with_products=False).head(300)
    assert setup.sensitivity["Group"] == dataset_sensitivity(ds, threshold=0.8).group
    np.testing.assert_array_equal(setup.true_reduced["Group"], setup.true_original)


def test_mae_falls_as_epsilon_grows(setup):
    summary, runs = mae_curve(setup, epsilons=[0.1, 10.0], repetitions=3, random_state=0)
    assert len(runs) == 3 * 2 * 3
    for scheme, g in summary.groupby("scheme"):
        g = g.set_index("epsilon")
        assert g.loc[0.1, "mae_mean"] > g.loc[10.0, "mae_mean"]


def test_per_query_budget_makes_the_release_cost_q_times_epsilon(setup):
    rel = release_counts(setup, DP_SCHEME, epsilon=0.5, random_state=0)
    assert rel.ledger.is_dp
    assert rel.ledger.total()[0] == pytest.approx(0.5 * len(setup.queries))


def test_total_budget_splits_epsilon_over_the_queries(setup):
    rel = release_counts(setup, DP_SCHEME, epsilon=0.5, budget="total", random_state=0)
    assert rel.epsilon_per_query == pytest.approx(0.5 / len(setup.queries))
    assert rel.ledger.total()[0] == pytest.approx(0.5)


@pytest.mark.parametrize("scheme,what", [("Group", "GS"), ("Zhang", "CS"), ("Proposed", "CS")])
def test_faithful_releases_say_they_are_not_dp_and_why(setup, scheme, what):
    rel = release_counts(setup, scheme, epsilon=1.0, random_state=0)
    assert not rel.ledger.is_dp and rel.ledger.total()[0] == float("inf")
    assert rel.ledger.nominal()[0] == pytest.approx(len(setup.queries))
    assert any(what in r and "computed from your records" in r for r in rel.ledger.not_dp_reasons)
    assert not any("raw records" in a for a in rel.ledger.assumptions)


def test_dp_reading_takes_the_declared_group_bound(setup):
    assert setup.sensitivity[DP_SCHEME] == 45.0  # the supplier schema's max_group_size
    assert setup.columns[DP_SCHEME] == list(load_sample("supplier", with_products=False).features)
    rel = release_counts(setup, DP_SCHEME, epsilon=1.0, random_state=0)
    assert any("group of up to 45" in a for a in rel.ledger.assumptions)
    assert all("exact discrete Laplace" in e.noise and "grid 1" in e.noise for e in rel.ledger.entries)


def test_dp_reading_without_a_declared_bound_protects_one_record():
    ds = load_sample("supplier", with_products=False).head(200)
    schema = replace(schema_for(ds), max_group_size=None)
    su = prepare_publishing(ds, schema=schema, n_queries=10, random_state=0)
    rel = release_counts(su, DP_SCHEME, epsilon=1.0, random_state=0)
    assert su.sensitivity[DP_SCHEME] == 1.0 and rel.ledger.is_dp
    assert any("covers one record" in a for a in rel.ledger.assumptions)


@pytest.fixture(scope="module")
def one_record():
    """The DP reading with no declared group bound: sensitivity 1, counts on the grid 1."""
    ds = load_sample("supplier", with_products=False).head(200)
    schema = replace(schema_for(ds), max_group_size=None)
    return prepare_publishing(ds, schema=schema, n_queries=50, random_state=0)


def _abs_laplace_moments(t: float) -> tuple[float, float]:
    """Mean and standard deviation of |Y| for the discrete Laplace of scale t (exact pmf)."""
    y = np.arange(-400, 401)
    p = np.exp(-np.abs(y) / t)
    p /= p.sum()
    mean = float((np.abs(y) * p).sum())
    return mean, float(np.sqrt((y**2 * p).sum() - mean**2))


@pytest.mark.parametrize("epsilon", [0.7, 2.0, 10.0])
def test_dp_reading_noise_follows_sensitivity_over_epsilon(one_record, epsilon):
    """The DP reading's error above the zero-noise release is the mean |noise| of scale
    1 / epsilon exactly, not of the scale rounded up to a whole count (1 for every epsilon
    of 1 or more, 2 at 0.7)."""
    from core.cdp.publishing import publish_mae, zero_noise_mae

    base = zero_noise_mae(one_record, DP_SCHEME)
    reps = 20
    err = np.mean([publish_mae(one_record, DP_SCHEME, epsilon=epsilon, random_state=r) - base
                   for r in range(reps)])
    n = reps * len(one_record.queries)
    for scale, right in ((1.0 / epsilon, True), (float(np.ceil(1.0 / epsilon)), False)):
        mean, sd = _abs_laplace_moments(scale)
        assert bool(abs(err - mean) < 5 * sd / np.sqrt(n)) == right


def test_dp_reading_error_falls_to_the_zero_noise_release_as_epsilon_grows(one_record):
    from core.cdp.publishing import publish_mae, zero_noise_mae

    base = zero_noise_mae(one_record, DP_SCHEME)
    err = {e: np.mean([publish_mae(one_record, DP_SCHEME, epsilon=e, random_state=r) - base
                       for r in range(10)]) for e in (1.0, 2.0, 10.0)}
    assert err[1.0] > err[2.0] > err[10.0] >= 0
    assert err[10.0] < err[1.0] / 20


def test_schema_queries_stay_in_the_declared_domain_whatever_the_rows():
    ds = load_sample("supplier", with_products=False)
    schema = schema_for(ds)
    a = schema_range_queries(schema, n_queries=100, random_state=3)
    assert a == schema_range_queries(schema, n_queries=100, random_state=3)
    for q in a:
        for c, lo, hi in q.conditions:
            spec = schema[c]
            top = (spec.upper if spec.kind == "numeric" else len(spec.domain) - 1)
            bottom = (spec.lower if spec.kind == "numeric" else 0)
            assert bottom <= lo <= hi <= top


def test_counts_are_integers_and_values_queries_are_marked_not_dp():
    ds = load_sample("supplier", with_products=False).head(200)
    su = prepare_publishing(ds, n_queries=10, random_state=0, query_source="values")
    rel = release_counts(su, DP_SCHEME, epsilon=1.0, random_state=0)
    np.testing.assert_array_equal(rel.noisy, np.round(rel.noisy))
    assert not rel.ledger.is_dp and "drawn from your records' values" in rel.ledger.describe()


def test_unknown_budget_reading_is_refused(setup):
    with pytest.raises(ValueError, match="budget must be one of"):
        release_counts(setup, "Proposed", epsilon=1.0, budget="each")


def test_zero_noise_release_keeps_only_the_selection_error(setup):
    """The MAE of a release without noise: 0 for a scheme that keeps every attribute, the
    mean gap between reduced and original answers for one that drops some."""
    from core.cdp.publishing import mean_true_count, publish_mae, zero_noise_mae

    assert zero_noise_mae(setup, "Group") == 0.0
    gap = np.mean(np.abs(setup.true_reduced["Proposed"] - setup.true_original))
    assert zero_noise_mae(setup, "Proposed") == pytest.approx(gap)
    assert mean_true_count(setup) == pytest.approx(np.mean(setup.true_original))
    noisy = publish_mae(setup, "Proposed", epsilon=1.0, random_state=0)
    assert noisy >= zero_noise_mae(setup, "Proposed") - 1e-9


def test_zero_noise_release_of_an_unknown_scheme_is_refused(setup):
    from core.cdp.publishing import zero_noise_mae

    with pytest.raises(ValueError, match="scheme must be one of"):
        zero_noise_mae(setup, "Nobody")
