"""The four schemes of Fig. 4 (paper 000)."""
from __future__ import annotations

import pytest

from core.cdp.baselines import SCHEMES, fit_scheme, method_curve, prepare_schemes, scheme_curve
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
