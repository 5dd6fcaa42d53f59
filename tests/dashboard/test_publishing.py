"""Publishing page: MAE curves, Pearson vs Mahalanobis, product columns."""
from __future__ import annotations

import pytest
from streamlit.testing.v1 import AppTest

from tests.dashboard.conftest import APP, assert_clean


def test_page_draws_the_mae_curves(open_page):
    at = open_page("publishing", timeout=300)
    assert_clean(at)
    assert len(at.get("plotly_chart")) == 1


def test_both_measures_and_without_products(open_page):
    at = open_page("publishing", timeout=300)
    at.slider(key="pub_reps").set_value(2).run()
    at.radio(key="pub_measure").set_value("both").run()
    assert_clean(at)
    spec = at.get("plotly_chart")[0].proto.spec
    assert "Proposed (mahalanobis)" in spec and "Proposed (pearson)" in spec
    at.toggle(key="pub_products").set_value(False).run()
    assert_clean(at)


@pytest.mark.slow
def test_page_works_on_adult(data_dir):
    at = AppTest.from_file(str(APP), default_timeout=900)
    at.run()
    at.radio(key="data_source").set_value("Adult (data directory)").run()
    at.text_input(key="data_dir").set_value(str(data_dir)).run()
    assert at.session_state["pux_dataset"].name == "adult"
    at.switch_page("views/publishing.py")
    at.run()
    assert_clean(at)
    assert at.get("plotly_chart")
