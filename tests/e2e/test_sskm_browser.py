"""The SSKM_DP page in a real browser: open it, move the epsilon slider, see the release change."""
from __future__ import annotations

import pytest

from tests.e2e.conftest import goto, screenshot, wait_idle

pytestmark = pytest.mark.e2e


def _metric(page, label: str) -> str:
    box = page.locator('[data-testid="stMetric"]').filter(has_text=label).first
    return box.locator('[data-testid="stMetricValue"]').inner_text()


def test_sskm_page_draws_the_map_and_moves_with_epsilon(page):
    goto(page, "SSKM_DP")
    page.get_by_role("heading", name="SSKM_DP").first.wait_for()
    # the map is fitted once (a setup job: a progress bar while it runs over 2 s), then drawn
    page.locator('[data-testid="stPlotlyChart"]').first.wait_for(timeout=180_000)
    # chart first: at 1280 x 720 the epsilon slider and the SOM grid start on the first screen
    page.set_viewport_size({"width": 1280, "height": 720})
    page.evaluate("window.scrollTo(0, 0)")
    slider_box = page.locator('[data-testid="stSlider"]').filter(has_text="Privacy budget epsilon").bounding_box()
    grid_box = page.locator('[data-testid="stPlotlyChart"]').first.bounding_box()
    assert slider_box is not None and slider_box["y"] < 650, slider_box
    assert grid_box is not None and grid_box["y"] < 650, grid_box
    # the other settings fold into one expander
    page.get_by_text("Attributes, map and mechanism").first.click()
    page.get_by_text("Hexagonal").or_(page.get_by_text("hexagonal")).first.click()
    wait_idle(page)
    page.locator('[data-testid="stPlotlyChart"]').first.wait_for()
    screenshot(page, "sskm_grid")
    before = _metric(page, "MSE")  # beside the slider, above the tabs
    slider = page.locator('[data-testid="stSlider"]').filter(has_text="Privacy budget epsilon")
    thumb = slider.get_by_role("slider")
    thumb.focus()
    for _ in range(4):  # 1.0 -> 0.05
        thumb.press("ArrowLeft")
    # the release is redrawn with the new budget: wait until the MSE metric changes
    page.wait_for_function(
        "(before) => [...document.querySelectorAll('[data-testid=\"stMetric\"]')]"
        ".some(m => m.innerText.startsWith('MSE') && !m.innerText.includes(before))",
        arg=before, timeout=120_000,
    )
    wait_idle(page)
    after = _metric(page, "MSE")
    assert float(after) > float(before)
    assert page.get_by_text("Traceback").count() == 0
    page.get_by_role("tab", name="Release").click()
    page.get_by_role("button", name="Prepare a release for download").click()
    wait_idle(page)
    page.get_by_role("button", name="Download release 1 (CSV)").wait_for(timeout=60_000)
    screenshot(page, "sskm")
