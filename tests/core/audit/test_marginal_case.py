"""core.audit.cases.marginal: the noisy marginal measurement of MST and AIM passes its audit,
and the mutant with OpenDP's privacy unit at one contribution (half the noise) is flagged.

OpenDP's noise cannot be seeded, so these audits vary from run to run; the run count was
chosen for margins measured over 25 audits each at 1,000 runs: the right noise's lower bound
between 0.44 and 0.80 against its claim of 1, the mutant's between 1.25 and 1.98.
"""
from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

import core.marginal.synthesizer as marginal_synthesizer
from core.audit.cases import AuditCase, mst_case, run_case
from core.audit.cases.marginal import marginal_scale
from core.data import load_sample
from core.privacy.schema_builtin import schema_for

RUNS = 1000


@pytest.fixture(scope="module")
def census():
    data = load_sample("census")
    return data.frame.sample(200, random_state=0).reset_index(drop=True), schema_for(data)


def test_the_right_noise_passes_its_audit(census):
    case = mst_case(*census, epsilon=1.0)
    assert isinstance(case, AuditCase) and case.claimed_epsilon == 1.0 and case.claimed_delta == 0.0
    res = run_case(case, runs=RUNS, random_state=0)
    assert not res.violation and res.epsilon_lower > 0.2  # the pair is near worst case


def test_one_contribution_instead_of_two_is_flagged(census, monkeypatch):
    monkeypatch.setattr(marginal_synthesizer, "CONTRIBUTIONS", 1)
    res = run_case(mst_case(*census, epsilon=1.0), runs=RUNS, random_state=0)
    assert res.violation


def test_the_scale_is_sensitivity_over_epsilon():
    assert marginal_scale(1.0) == pytest.approx(2.0, rel=1e-9)
    assert marginal_scale(0.5, contributions=1) == pytest.approx(2.0, rel=1e-9)


def test_the_pair_brings_a_new_category_and_an_out_of_range_value(census):
    frame, schema = census
    case = mst_case(frame, schema, epsilon=1.0)
    cat, num = case.mechanism.clique
    assert schema[cat].kind == "categorical" and schema[num].kind == "numeric"
    d1 = case.pair.d1
    changed = d1.index[(d1[cat] != frame[cat]) | (d1[num] != frame[num])]
    assert len(changed) == 1
    row = changed[0]
    assert d1.loc[row, num] > schema[num].upper
    assert str(d1.loc[row, cat]) not in {str(c) for c in frame[cat]}
    # from the schema the record moves one count out of its cell and one into another
    mu0, mu1 = case.mechanism.counts(case.pair.d0), case.mechanism.counts(d1)
    assert np.abs(mu0 - mu1).sum() == 2 and len(mu0) == np.prod(list(case.mechanism.domain.sizes.values()))


def test_the_mechanism_releases_noisy_counts_of_every_cell(census):
    case = mst_case(*census, epsilon=5.0)
    out = case.mechanism(case.pair.d0, 0)
    exact = case.mechanism.counts(case.pair.d0)
    assert out.shape == exact.shape and np.all(out == np.rint(out))  # discrete Laplace: whole numbers
    assert np.abs(out - exact).mean() < 3


def test_a_table_without_a_categorical_column_audits_two_numbers():
    data = load_sample("census")
    frame = data.frame[["age", "hours_per_week"]].iloc[:50]
    case = mst_case(frame, schema_for(data), epsilon=1.0)
    assert case.mechanism.clique == ("age", "hours_per_week")


def test_the_case_pickles_without_opendp_handles(census):
    import pickle

    case = mst_case(*census, epsilon=1.0)
    case.mechanism(case.pair.d0, 0)
    again = pickle.loads(pickle.dumps(case.mechanism))
    assert again(case.pair.d0, 0).shape == case.mechanism(case.pair.d0, 0).shape


@pytest.mark.parametrize("frame, schema, epsilon, error", [
    ("table", None, 1.0, TypeError), (pd.DataFrame({"a": [1]}), "schema", 1.0, TypeError),
    (None, None, 0.0, ValueError),
])
def test_bad_arguments_are_refused(census, frame, schema, epsilon, error):
    frame = census[0] if frame is None else frame
    schema = census[1] if schema is None else schema
    with pytest.raises(error):
        mst_case(frame, schema, epsilon=epsilon)


def test_a_frame_where_no_record_can_move_the_marginal_is_refused(census):
    _, schema = census
    frame = pd.DataFrame({"age": [90] * 5, "hours_per_week": [90] * 5})  # every record in the top bins
    with pytest.raises(ValueError, match="no record"):
        mst_case(frame, schema, epsilon=1.0)


def test_the_case_is_named_for_its_synthesizer(census):
    assert mst_case(*census, epsilon=1.0).name == "MST marginals"
    assert mst_case(*census, epsilon=1.0, algorithm="AIM").name == "AIM marginals"
    with pytest.raises(ValueError):
        mst_case(*census, epsilon=1.0, algorithm="PrivBayes")
