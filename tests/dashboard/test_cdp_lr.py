"""CDP-LR page: the epsilon slider retrains with no button and the chart changes."""
from __future__ import annotations

import pytest

from tests.dashboard.conftest import assert_clean


def _live_spec(at) -> str:
    return next(c.proto.spec for c in at.get("plotly_chart") if "Accuracy at epsilon" in c.proto.spec)


def test_epsilon_slider_retrains_and_redraws(open_page):
    at = open_page("cdp_lr", timeout=300)
    assert_clean(at)
    before = _live_spec(at)
    at.slider(key="lr_eps").set_value(7.5).run()
    assert_clean(at)
    after = _live_spec(at)
    assert after != before
    assert "epsilon = 7.5" in after


def test_method_four_says_it_protects_only_the_sample_size(open_page):
    at = open_page("cdp_lr", timeout=300)
    at.selectbox(key="lr_method").set_value(4).run()
    assert_clean(at)
    assert any("NOT differentially private" in c.value for c in at.caption)


def test_paper_preset_runs(open_page):
    at = open_page("cdp_lr", timeout=300)
    at.radio(key="lr_preset").set_value("paper").run()
    assert_clean(at)
    assert len(at.get("plotly_chart")) >= 2


@pytest.mark.slow
def test_page_works_on_adult(open_page_on_public, data_dir):
    at = open_page_on_public("adult", "cdp_lr", data_dir)
    assert_clean(at)
    before = _live_spec(at)
    at.slider(key="lr_eps").set_value(6.0).run()
    assert_clean(at)
    assert _live_spec(at) != before
