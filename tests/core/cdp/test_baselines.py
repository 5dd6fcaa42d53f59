"""The four schemes of Fig. 4 (paper 000)."""
from __future__ import annotations

import pytest

from core.cdp.baselines import DP_SCHEME, SCHEMES, fit_scheme, method_curve, prepare_schemes, scheme_curve
from core.data import load_sample


@pytest.fixture(scope="module")
def setup():
    ds = load_sample("supplier", with_products=False).head(300)
    return prepare_schemes(ds, tc=40.0, random_state=0)


def test_schemes_use_their_attributes_and_sensitivities(setup):
    assert setup.columns["Group"] == setup.columns["Non-private"]
    assert setup.columns["Proposed"] == setup.selection.selected
    assert setup.columns["Zhang"] == setup.selection.importance_selected
    assert setup.sensitivity["Group"] == setup.reports["Group"]["GS"]
    assert setup.sensitivity["Proposed"] == setup.reports["Proposed"]["CS"]
    for rep in setup.reports.values():
        assert 1.0 <= rep["CS"] <= rep["GS"]


def test_split_is_disjoint_and_complete(setup):
    assert set(setup.train).isdisjoint(setup.test)
    assert len(setup.train) + len(setup.test) == setup.dataset.n_rows


def test_scheme_curve_has_every_point_and_repetition(setup):
    summary, runs = scheme_curve(setup, epsilons=[1.0, 5.0], repetitions=2, random_state=0)
    assert len(runs) == len(SCHEMES) * 2 * 2
    assert set(summary["scheme"]) == set(SCHEMES)
    assert summary["accuracy_mean"].between(0, 1).all()


def test_method_curve_covers_the_methods(setup):
    summary, _ = method_curve(setup, epsilons=[2.0], methods=[0, 1, 4], repetitions=2, random_state=0)
    assert list(summary["method"]) == [0, 1, 4]


def test_fit_scheme_is_seeded(setup):
    _, a = fit_scheme(setup, "Proposed", epsilon=3.0, random_state=1)
    _, b = fit_scheme(setup, "Proposed", epsilon=3.0, random_state=1)
    assert a == b
    with pytest.raises(ValueError):
        fit_scheme(setup, "Other", epsilon=1.0)


@pytest.mark.parametrize("scheme,reason", [
    ("Group", "standardised with the mean and spread of your records"),
    ("Zhang", "random-forest importance on your records"),
    ("Proposed", "DC-FBFS on your records"),
])
def test_faithful_schemes_are_labelled_not_dp_with_their_reasons(setup, scheme, reason):
    model, _ = fit_scheme(setup, scheme, epsilon=1.0, noise_method=1, random_state=0)
    ledger = model.ledger_
    assert not ledger.is_dp and ledger.nominal()[0] == pytest.approx(1.0)
    text = ledger.describe()
    assert text.startswith("Not differentially private") and reason in text
    assert "computed from your records" in text  # the sensitivity
    assert not any("taken as public" in a or "given" in a for a in ledger.assumptions)


def test_dp_reading_is_dp_with_the_declared_bound_and_schema_features(setup):
    assert setup.columns[DP_SCHEME] == list(setup.dataset.features)
    assert setup.sensitivity[DP_SCHEME] == 45.0 and setup.source(DP_SCHEME) == "built-in"
    model, acc = fit_scheme(setup, DP_SCHEME, epsilon=1.0, noise_method=1, random_state=0)
    assert model.ledger_.is_dp and model.ledger_.total()[0] == pytest.approx(1.0)
    assert model.sensitivity_ == 45.0 and 0.0 <= acc <= 1.0
    assert any("group of up to 45" in a for a in model.ledger_.assumptions)
    assert all("exact discrete Laplace" in e.noise for e in model.ledger_.entries)


def test_the_split_reads_no_label(setup):
    """Flipping every label leaves the split unchanged: it is a permutation of row numbers."""
    import dataclasses

    ds = setup.dataset
    frame = ds.frame.copy()
    frame[ds.label] = 1 - frame[ds.label]
    other = prepare_schemes(dataclasses.replace(ds, frame=frame), tc=40.0, random_state=0)
    assert (other.train == setup.train).all() and (other.test == setup.test).all()


def test_a_draft_schema_makes_the_dp_reading_say_it_is_not_dp():
    from core.privacy.schema_draft import draft_schema

    ds = load_sample("supplier", with_products=False).head(200)
    setup = prepare_schemes(ds, schema=draft_schema(ds), tc=40.0, random_state=0)
    model, _ = fit_scheme(setup, DP_SCHEME, epsilon=1.0, noise_method=1, random_state=0)
    assert not model.ledger_.is_dp and "read from your data" in model.ledger_.describe()
    assert setup.sensitivity[DP_SCHEME] == 1.0  # no declared bound: one record
