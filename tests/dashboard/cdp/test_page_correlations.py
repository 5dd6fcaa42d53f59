"""Correlations page: association heatmaps, record heatmap with delta0, CS vs GS."""
from __future__ import annotations

import pytest

from tests.dashboard.conftest import assert_clean
from tests.dashboard.shared.widgets.test_chart_data import assert_every_chart_has_its_csv


def _metric(at, label: str) -> float:
    return float(next(m.value for m in at.metric if m.label == label).replace(",", ""))


def test_page_shows_cs_below_gs(open_page):
    at = open_page("correlations", timeout=300)
    assert_clean(at)
    assert len(at.get("plotly_chart")) == 3
    assert _metric(at, "Correlated sensitivity CS") < _metric(at, "Group sensitivity GS")


def test_every_chart_offers_its_data_as_csv(open_page):
    at = open_page("correlations", timeout=300)
    assert_clean(at)
    assert_every_chart_has_its_csv(at)  # association, records, CS vs GS


def test_lower_threshold_raises_the_sensitivity(open_page):
    at = open_page("correlations", timeout=300)
    gs = _metric(at, "Group sensitivity GS")
    at.slider(key="corr_threshold").set_value(0.5).run()
    assert_clean(at)
    assert _metric(at, "Group sensitivity GS") > gs


def test_nmi_and_mahalanobis_switch(open_page):
    at = open_page("correlations", timeout=300)
    at.radio(key="corr_method").set_value("nmi").run()
    at.radio(key="corr_measure").set_value("mahalanobis").run()
    assert_clean(at)
    assert any("Normalised mutual information" in c.proto.spec for c in at.get("plotly_chart"))


@pytest.mark.slow
def test_page_works_on_adult(open_page_on_public, data_dir):
    at = open_page_on_public("adult", "correlations", data_dir)
    assert_clean(at)
    assert at.get("plotly_chart")


def test_dataset_name_is_shown_as_text_and_sensitivities_as_plain_numbers():
    import dataclasses

    from streamlit.testing.v1 import AppTest

    from core.data import load_sample
    from tests.dashboard.conftest import APP

    at = AppTest.from_file(str(APP), default_timeout=300)
    at.session_state["pux_dataset"] = dataclasses.replace(load_sample("supplier"), name="_x_ `y`")
    at.switch_page("cdp/correlations.py")
    at.run()
    assert not at.exception
    assert any("\\_x\\_ \\`y\\`" in c.value for c in at.caption)
    gs = next(m.value for m in at.metric if m.label.startswith("Group sensitivity"))
    assert not gs.endswith(".00") and not gs.endswith(".0")


def test_cs_and_c_are_shown_with_n():
    from streamlit.testing.v1 import AppTest

    from tests.dashboard.conftest import APP
    from tests.dashboard.skewed_table import skewed_dataset

    at = AppTest.from_file(str(APP), default_timeout=300)
    at.session_state["pux_dataset"] = skewed_dataset()
    at.switch_page("cdp/correlations.py")
    at.run()
    assert_clean(at)
    metrics = {m.label: m for m in at.metric}
    assert metrics["Correlated sensitivity CS"].proto.delta.endswith("% of N = 300 records")
    assert metrics["Data correlation C(x)"].proto.delta.endswith("of the 44,850 record pairs")
    assert any("of N = 300: one record" in c.value for c in at.caption)
