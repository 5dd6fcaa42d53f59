"""core.audit_cases.marginal: the MST and AIM case runs the release's own OpenDP measurement.

The case used to audit a stand-in (one discrete Laplace marginal built like OpenDP's); it now
calls :func:`core.marginal.synthesizer.measure_marginals`, the function the release calls. A
real run takes seconds (OpenDP's noise-scale searches), so these tests check the case's
construction, its pair and its statistic, and replace OpenDP's measurement by a spy where a
run is needed; tests/core/compare/test_audit_real_release.py runs a short real audit (slow).
"""
from __future__ import annotations

import pickle

import numpy as np
import pandas as pd
import pytest

import core.marginal.synthesizer as marginal_synthesizer
from core.audit_cases import AuditCase, mst_case
from core.audit_cases.marginal import MarginalRelease, marginal_scale, no_fit
from core.data import load_sample
from core.privacy.schema_builtin import schema_for


@pytest.fixture(scope="module")
def census():
    data = load_sample("census")
    return data.frame.sample(200, random_state=0).reset_index(drop=True), schema_for(data)


def test_the_case_claims_the_releases_epsilon_and_runs_its_measurement(census):
    case = mst_case(*census, epsilon=1.0)
    assert isinstance(case, AuditCase) and case.claimed_epsilon == 1.0 and case.claimed_delta == 0.0
    assert isinstance(case.mechanism, MarginalRelease) and case.mechanism.algorithm == "MST"
    frame, schema = census
    assert case.mechanism.domain.names == [c for c in schema.names if c in frame.columns
                                           and schema[c].kind != "identifier"]


def test_the_mechanism_returns_every_measured_marginal(census, monkeypatch):
    class Measured:
        def __init__(self, clique, values, stddev):
            self.clique, self.noisy_measurement, self.stddev = clique, values, stddev

    class Table:
        marginals = type("M", (), {"flatten": lambda self: [Measured(("sex",), [1, 2, 3], 4.0)]})()

    seen = {}

    def fake(domain, frame, epsilon, algorithm, *, estimator=None):
        seen.update(epsilon=epsilon, algorithm=algorithm, estimator=estimator)
        return Table()

    monkeypatch.setattr(marginal_synthesizer, "measure_marginals", fake)
    case = mst_case(*census, epsilon=0.5, algorithm="AIM")
    ((clique, values, stddev),) = case.mechanism(case.pair.d0, 0)
    assert clique == ("sex",) and values.tolist() == [1.0, 2.0, 3.0] and stddev == 4.0
    assert seen == {"epsilon": 0.5, "algorithm": "AIM", "estimator": no_fit}
    assert np.isfinite(case.statistic(case.mechanism(case.pair.d1, 0)))


def test_the_pair_changes_one_record_on_every_column(census):
    frame, schema = census
    case = mst_case(frame, schema, epsilon=1.0)
    d0, d1 = case.pair.d0, case.pair.d1
    changed = [i for i in range(len(d0)) if not d0.iloc[i].equals(d1.iloc[i])]
    assert len(changed) == 1
    moved = [c for c in case.mechanism.domain.names if np.abs(np.subtract(*case.statistic.exact((c,)))).sum() == 2]
    assert len(moved) >= len(case.mechanism.domain.names) - 1  # nearly every one-way marginal moves


def test_the_scale_is_sensitivity_over_epsilon():
    assert marginal_scale(1.0) == pytest.approx(2.0, rel=1e-9)
    assert marginal_scale(0.5, contributions=1) == pytest.approx(2.0, rel=1e-9)


def test_the_case_pickles(census):
    case = mst_case(*census, epsilon=1.0)
    again = pickle.loads(pickle.dumps(case))
    assert again.mechanism.domain.names == case.mechanism.domain.names
    assert again.statistic.exact(("sex",))[0].tolist() == case.statistic.exact(("sex",))[0].tolist()


@pytest.mark.parametrize("frame, schema, epsilon, error", [
    ("table", None, 1.0, TypeError), (pd.DataFrame({"a": [1]}), "schema", 1.0, TypeError),
    (None, None, 0.0, ValueError),
])
def test_bad_arguments_are_refused(census, frame, schema, epsilon, error):
    frame = census[0] if frame is None else frame
    schema = census[1] if schema is None else schema
    with pytest.raises(error):
        mst_case(frame, schema, epsilon=epsilon)


def test_a_frame_where_no_record_can_move_a_marginal_is_refused(census):
    _, schema = census
    frame = pd.DataFrame({"age": [90] * 5, "hours_per_week": [90] * 5})  # every record in the top bins
    with pytest.raises(ValueError, match="no record"):
        mst_case(frame, schema, epsilon=1.0)


def test_the_case_is_named_for_its_synthesizer(census):
    assert mst_case(*census, epsilon=1.0).name == "MST marginals"
    assert mst_case(*census, epsilon=1.0, algorithm="AIM").name == "AIM marginals"
    with pytest.raises(ValueError):
        mst_case(*census, epsilon=1.0, algorithm="PrivBayes")
