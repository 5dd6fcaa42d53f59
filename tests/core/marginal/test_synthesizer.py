"""core.marginal.synthesizer: MST and AIM through OpenDP release a table inside the public schema,
with the ledger's epsilon as OpenDP's guarantee.

One small MST release (4 columns, 200 records: about 10 s, most of it JAX's compilation) is
shared by the contract tests; the refusals need no release.
"""
from __future__ import annotations

import math

import numpy as np
import pandas as pd
import pytest

from core.data import load_sample
from core.marginal import MarginalSynthesizer, marginal_ledger, synthesizer
from core.marginal.config import marginal_config
from core.marginal.domain import marginal_domain
from core.privacy.schema_builtin import schema_for
from core.privacy.schema_columns import OTHER

COLUMNS = ["age", "workclass", "sex", "income"]
EPSILON = 1.0


@pytest.fixture(scope="module")
def census():
    data = load_sample("census")
    frame = data.frame[COLUMNS].iloc[:200].reset_index(drop=True)
    frame.loc[0, ["workclass", "age"]] = ["Secret-employer", 500]  # outside the schema
    return frame, schema_for(data)


@pytest.fixture(scope="module")
def fitted(census):
    frame, schema = census
    return MarginalSynthesizer(epsilon=EPSILON, schema=schema, columns=COLUMNS, bins=4).fit(frame)


def test_the_ledger_is_epsilon_dp(fitted):
    ledger = fitted.ledger_
    assert ledger.is_dp and ledger.total() == (EPSILON, 0.0)
    assert "not seeded" in ledger.entries[0].noise and "OpenDP" in ledger.entries[0].label


def test_opendp_spent_no_more_than_epsilon(fitted):
    from core.marginal.synthesizer import CONTRIBUTIONS, _measurement

    domain = fitted.domain_
    measurement = _measurement(tuple(domain.names), tuple(domain.sizes.values()), EPSILON, fitted.config_,
                               CONTRIBUTIONS)
    assert measurement.map(CONTRIBUTIONS) <= EPSILON


def test_the_release_stays_inside_the_schema(fitted, census):
    _, schema = census
    out = fitted.sample(500, random_state=0)
    assert list(out.columns) == COLUMNS and len(out) == 500
    for col in ("workclass", "sex", "income"):
        assert set(out[col]) <= set(schema[col].domain), col
    assert "Secret-employer" not in set(out["workclass"])  # the record's value never leaks as a category
    assert out["age"].between(schema["age"].lower, schema["age"].upper).all()  # nor its age as a range


def test_sampling_is_seeded_post_processing(fitted):
    pd.testing.assert_frame_equal(fitted.sample(300, random_state=4), fitted.sample(300, random_state=4))
    assert not fitted.sample(300, random_state=4).equals(fitted.sample(300, random_state=5))
    assert len(fitted.sample(random_state=0)) == fitted.n_rows_ == 200


def test_rows_are_drawn_independently_not_in_lockstep(fitted):
    """Two columns that share the label as their only parent are independent given it in the
    model: drawn rows show no rank correlation within a label group. Private-PGM's default
    rounding gives them the same within-group rank (the wrong sampler), which the check catches."""
    from scipy.stats import spearmanr

    def lockstep(codes) -> float:
        """The largest within-group rank correlation of two children of the label."""
        rhos = [abs(spearmanr(g[a], g[b])[0]) for _, g in codes.groupby("income") if len(g) > 2000
                for a, b in (("age", "workclass"), ("age", "sex"), ("workclass", "sex"))
                if g[a].nunique() > 1 and g[b].nunique() > 1]
        assert rhos, "no label group with two varying columns"
        return max(rhos)

    with synthesizer._numpy_seeded(0):
        rounded = fitted.table_.model.synthetic_data(20_000, method="round").df
    drawn = fitted.domain_.encode(fitted.sample(20_000, random_state=0))
    assert fitted.config_.sampling == "sample"
    assert lockstep(pd.DataFrame(drawn)) < 0.1
    assert lockstep(rounded) > 0.3


def test_sampling_leaves_numpys_global_generator_as_it_was(fitted):
    np.random.seed(123)
    expected = np.random.random()
    np.random.seed(123)
    fitted.sample(50, random_state=0)
    assert np.random.random() == expected


def test_mst_measures_the_labels_star_with_the_whole_budget(fitted):
    """The label's 2-way marginal with each of the k - 1 other columns, each with epsilon / (k - 1)
    and nothing else (no one-way marginal, no selection): core.audit_cases.marginal.marginal_scale
    finds the same scale, not the one of a split over k measurements."""
    from core.audit_cases.marginal import marginal_scale

    k = len(COLUMNS)
    measured = fitted.table_.marginals.flatten()
    assert sorted(m.clique for m in measured) == sorted(("income", c) for c in COLUMNS if c != "income")
    scales = {m.stddev / math.sqrt(2) for m in measured}
    assert len(scales) == 1
    scale = scales.pop()
    assert scale == pytest.approx(marginal_scale(EPSILON / (k - 1)), rel=1e-6)
    assert scale != pytest.approx(marginal_scale(EPSILON / k), rel=1e-3)


def test_a_schema_read_from_the_rows_makes_it_not_dp(census):
    frame, schema = census
    drafted = schema.replace_column(schema["age"].__class__("age", "numeric", lower=17, upper=90,
                                                           source="read from data"))
    config = marginal_config(drafted, columns=COLUMNS, n=len(frame), epsilon=1.0)
    ledger = marginal_ledger(config, 1.0, drafted)
    assert not ledger.is_dp and math.isinf(ledger.total()[0])


def test_the_domain_is_the_schemas(fitted, census):
    _, schema = census
    assert fitted.domain_ == marginal_domain(schema, columns=COLUMNS, bins=4)
    assert OTHER in fitted.domain_.columns[1].values


@pytest.mark.parametrize("kwargs, error", [
    ({"algorithm": "PrivBayes"}, ValueError), ({"algorithm": 1}, TypeError),
    ({"epsilon": 0.0}, ValueError), ({"epsilon": "1"}, TypeError), ({"epsilon": math.inf}, ValueError),
    ({"bins": 1}, ValueError), ({"bins": 4.0}, TypeError), ({"schema": {"age": (0, 1)}}, TypeError),
    ({"columns": ["nope"]}, ValueError),
])
def test_bad_settings_are_refused_before_opendp_runs(census, kwargs, error):
    frame, schema = census
    settings = {"epsilon": 1.0, "schema": schema, "columns": COLUMNS, **kwargs}
    with pytest.raises(error):
        MarginalSynthesizer(**settings).fit(frame)


@pytest.mark.parametrize("frame, error", [(np.zeros((3, 4)), TypeError), (pd.DataFrame(columns=COLUMNS), ValueError)])
def test_bad_frames_are_refused(census, frame, error):
    with pytest.raises(error):
        MarginalSynthesizer(epsilon=1.0, schema=census[1], columns=COLUMNS).fit(frame)


def test_sampling_needs_a_fit_and_a_whole_number_of_rows(fitted, census):
    with pytest.raises(ValueError):
        MarginalSynthesizer(epsilon=1.0, schema=census[1]).sample(3)
    with pytest.raises(ValueError):
        fitted.sample(0)
    with pytest.raises(TypeError):
        fitted.sample(2.5)


def test_a_stop_before_the_release_spends_nothing(census):
    import threading

    from core.runtime.progress import Stopped

    stop = threading.Event()
    stop.set()
    syn = MarginalSynthesizer(epsilon=1.0, schema=census[1], columns=COLUMNS)
    with pytest.raises(Stopped):
        syn.fit(census[0], stop=stop)
    assert not hasattr(syn, "table_")
