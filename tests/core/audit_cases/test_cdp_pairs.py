"""Audits that attack paper 000's pipeline, not only its noise (issue 23).

Each pair moves a step the faithful schemes read from the records before the noise: a hub
record that moves the group sensitivity, a value far outside the declared bounds that moves
a scaler fitted on the rows, a value no other record has that moves query ranges drawn from
the values. The DP reading (schema bounds and queries, the declared group bound) passes at
its claim on the same pair; the leak put back (the mutant) is caught.
"""
from __future__ import annotations

import math
from dataclasses import replace
from functools import partial

import numpy as np
import pytest

from core.audit.auditor import audit
from core.audit_cases.cdp_pairs import (
    HUB_GROUP,
    declared_bound_weight,
    faithful_group_weight,
    hub_pair,
    mutant_dp_label_weight,
    new_value_pair,
    outlier_pair,
    query_top,
    rows_scaled_weight,
    schema_scaled_weight,
)
from core.cdp.dp_reading import schema_matrix
from core.cdp.logistic import CDPLogisticRegression
from core.cdp.publishing import dp_count_release
from core.correlation.records import correlated_sensitivity
from core.data import load_sample
from core.privacy.schema_builtin import schema_for

RUNS = 600


@pytest.fixture(scope="module")
def hub():
    return hub_pair()


def test_the_hub_record_moves_the_sensitivity_read_from_the_records(hub):
    gs = [correlated_sensitivity(X, threshold=0.8).group for X, _ in (hub.d0, hub.d1)]
    assert gs == [1.0, float(HUB_GROUP)]


def test_the_faithful_group_scheme_says_it_is_not_dp_and_leaks_beyond_its_nominal_epsilon(hub):
    X, y = hub.d1
    ledger = CDPLogisticRegression(epsilon=1.0, sensitivity="group", random_state=0).fit(X, y).ledger_
    assert not ledger.is_dp and "computed from your records" in ledger.describe()
    res = audit(faithful_group_weight, hub, claimed_epsilon=1.0, runs=RUNS, random_state=0)
    assert res.violation and res.epsilon_lower > 1.3  # the nominal 1 would be false


def test_the_dp_reading_passes_at_its_claim_on_the_hub_pair(hub):
    schema = replace(schema_for(load_sample("supplier")), max_group_size=HUB_GROUP)  # kept by D and D'
    res = audit(partial(declared_bound_weight, schema=schema), hub, claimed_epsilon=1.0, runs=RUNS,
                random_state=0)
    assert not res.violation


def test_mutant_sensitivity_from_the_records_under_a_dp_label_is_caught(hub):
    X, y = hub.d1
    gs = correlated_sensitivity(X, threshold=0.8).group
    claimed = CDPLogisticRegression(epsilon=1.0, sensitivity=gs, random_state=0).fit(X, y).ledger_
    assert claimed.is_dp  # the mutant claims epsilon 1 ...
    res = audit(mutant_dp_label_weight, hub, claimed_epsilon=claimed.total()[0], runs=RUNS, random_state=0)
    assert res.violation  # ... and the audit shows it is false


@pytest.fixture(scope="module")
def outlier():
    return outlier_pair()


def test_the_schema_clips_the_out_of_range_value(outlier):
    pair, schema = outlier
    a, b = (schema_matrix(d, schema, ["x", "z"]).X for d in (pair.d0, pair.d1))
    np.testing.assert_array_equal(a, b)


def test_the_dp_reading_passes_on_the_outlier_pair(outlier):
    pair, schema = outlier
    res = audit(partial(schema_scaled_weight, schema=schema), pair, claimed_epsilon=1.0, runs=RUNS,
                random_state=0)
    assert not res.violation


def test_mutant_scaler_fitted_on_all_rows_is_caught(outlier):
    pair, _ = outlier
    res = audit(rows_scaled_weight, pair, claimed_epsilon=1.0, runs=RUNS, random_state=0)
    assert res.violation and res.epsilon_lower > 2.0


@pytest.fixture(scope="module")
def new_value():
    return new_value_pair()


def test_schema_queries_pass_on_the_new_value_pair(new_value):
    pair, schema = new_value
    assert dp_count_release(pair.d1, schema, epsilon=1.0, n_queries=5, random_state=0).ledger.is_dp
    res = audit(partial(query_top, schema=schema), pair, claimed_epsilon=1.0, runs=300, random_state=0)
    assert not res.violation


def test_mutant_query_ranges_from_the_values_is_caught(new_value):
    pair, schema = new_value
    rel = dp_count_release(pair.d1, schema, epsilon=1.0, n_queries=5, random_state=0, query_source="values")
    assert not rel.ledger.is_dp  # the release says so ...
    res = audit(partial(query_top, schema=schema, query_source="values"), pair, claimed_epsilon=1.0,
                runs=300, random_state=0)
    assert res.violation and (math.isinf(res.epsilon_point) or res.epsilon_lower > 2.0)  # ... and leaks


def test_the_pages_pipeline_cases_hold_their_claims():
    """The cases the CDP-LR and Publishing audit panels add beside the noise step's."""
    from core.audit_cases import run_case
    from core.audit_cases.cdp_pairs import hub_case, new_value_case

    for case in (hub_case(schema_for(load_sample("supplier"))), new_value_case(epsilon=1.0)):
        assert case.claimed_epsilon == pytest.approx(1.0)
        assert not run_case(case, runs=200, random_state=0).violation
