"""The CDP-LR page in a real browser: moving the epsilon slider retrains and redraws."""
from __future__ import annotations

import pytest

from tests.e2e.conftest import goto, screenshot, wait_idle

pytestmark = pytest.mark.e2e


def test_epsilon_slider_retrains_the_schemes(page):
    goto(page, "CDP-LR")
    page.get_by_text("Accuracy at epsilon = 2").first.wait_for(timeout=180_000)
    slider = page.get_by_role("slider").first
    slider.focus()
    for _ in range(5):  # step 0.1 each
        page.keyboard.press("ArrowRight")
    wait_idle(page)
    page.get_by_text("Accuracy at epsilon = 2.5").first.wait_for(timeout=60_000)
    assert page.get_by_text("Traceback").count() == 0
    screenshot(page, "cdp_lr_slider")


def test_correlations_page_shows_cs_and_gs(page):
    goto(page, "Correlations")
    page.get_by_text("Correlated sensitivity CS", exact=True).first.wait_for(timeout=180_000)
    page.get_by_text("Group sensitivity GS", exact=True).first.wait_for()
    assert page.get_by_text("Traceback").count() == 0
