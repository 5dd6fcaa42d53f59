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


@pytest.mark.parametrize("title, control", [("CDP-LR", "epsilon (privacy budget of training)"),
                                            ("Publishing", "epsilon"), ("DC-FBFS", "T_c (in units of C(x))")])
def test_the_main_chart_starts_in_the_first_screen_beside_its_control(page, title, control):
    """Chart first: at 1280x720 the page's first chart starts within the first screen, level
    with the slider that moves it (the slider in the left column, the chart in the right)."""
    page.set_viewport_size({"width": 1280, "height": 720})
    goto(page, title)
    page.locator(".js-plotly-plot").first.wait_for(timeout=180_000)
    wait_idle(page)
    chart = page.locator(".js-plotly-plot").first.bounding_box()
    slider = page.locator('[data-testid="stSlider"]').filter(has_text=control).first.bounding_box()
    assert chart["y"] < 650, f"{title}: the first chart starts {chart['y']:.0f} px down"
    assert slider["y"] < 650 and slider["x"] + slider["width"] <= chart["x"]  # side by side
    screenshot(page, f"{title.lower()}_first_screen")
