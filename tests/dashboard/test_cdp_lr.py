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


def test_method_four_says_it_is_not_differentially_private(open_page):
    at = open_page("cdp_lr", timeout=300)
    at.selectbox(key="lr_method").set_value(4).run()
    assert_clean(at)
    assert any(c.value.startswith("Not differentially private") for c in at.caption)
    assert _metric(at, "Guarantee").value == "not differentially private"


def _metric(at, label: str):
    return next(m for m in at.metric if m.label.startswith(label))


def test_guarantee_is_the_ledger_total(open_page):
    at = open_page("cdp_lr", timeout=300)
    assert _metric(at, "Guarantee").value == "epsilon = 2"
    at.selectbox(key="lr_method").set_value(5).run()
    assert _metric(at, "Guarantee").value == "epsilon = 1"  # half noises the public N


def test_audit_panel_runs_and_shows_the_verdict(open_page):
    at = open_page("cdp_lr", timeout=300)
    at.select_slider(key="lr_audit_runs").set_value(200).run()
    at.button(key="lr_audit_run").click().run()
    job = at.session_state["lr_audit_job"]
    assert job.wait(120)
    at.run()
    assert_clean(at)
    assert _metric(at, "Claimed epsilon").value == "2"
    assert float(_metric(at, "Audited lower bound").value) <= 2
    assert any(s.value.startswith("No violation") for s in at.success)


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
