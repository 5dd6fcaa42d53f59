"""The Tour in a real browser: Next through every step, two steps photographed, presenting."""
from __future__ import annotations

import pytest

from dashboard.tour.steps import STEPS
from tests.e2e.conftest import screenshot, wait_idle

pytestmark = pytest.mark.e2e

#: the steps photographed (a paper's claim, and an audit that finds a violation)
SHOTS = ("cdp-claim", "sskm-breaks")


def _header(pg) -> str:
    return pg.locator('[data-testid="stHeading"] h2').first.inner_text(timeout=120_000)


def _wait_header(pg, title: str) -> None:
    pg.locator('[data-testid="stHeading"] h2', has_text=title).first.wait_for(timeout=180_000)
    wait_idle(pg, timeout=180_000)


def test_next_walks_the_tour_and_two_steps_are_photographed(browser, app_url):
    context = browser.new_context(viewport={"width": 1400, "height": 1100})
    pg = context.new_page()
    pg.set_default_timeout(120_000)
    pg.goto(f"{app_url}/tour")
    wait_idle(pg)
    shots = {}
    for i, step in enumerate(STEPS):
        _wait_header(pg, step.title)
        assert step.title in _header(pg)
        if step.story is not None:  # the step's chart is drawn
            pg.locator('[data-testid="stPlotlyChart"]').first.wait_for(timeout=180_000)
        pg.get_by_role("link", name=f"Open the full page: {step.page_title}").first.wait_for()
        if step.key in SHOTS:
            shots[step.key] = pg.screenshot(full_page=True)
            screenshot(pg, f"tour_{step.key}")
        if i < len(STEPS) - 1:
            pg.locator(".st-key-tour_next button").click()
    assert set(shots) == set(SHOTS) and all(len(png) > 20_000 for png in shots.values())
    assert pg.locator(".st-key-tour_next button").is_disabled()
    context.close()


def test_presenting_hides_the_sidebar_and_controls_but_keeps_next(browser, app_url):
    context = browser.new_context(viewport={"width": 1400, "height": 1000})
    pg = context.new_page()
    pg.set_default_timeout(120_000)
    pg.goto(f"{app_url}/tour?present=true")
    pg.locator('[data-testid="stHeading"] h2').first.wait_for()
    pg.locator(".st-key-present_exit button").wait_for()
    pg.locator('section[data-testid="stSidebar"]').wait_for(state="hidden", timeout=30_000)  # a loaded runner draws late
    assert not pg.locator('section[data-testid="stSidebar"]').is_visible()
    assert not pg.locator(".st-key-tour_large").is_visible()  # large text already
    assert not pg.locator('[data-testid="stDownloadButton"]').first.is_visible()  # controls hidden
    assert pg.locator(".st-key-tour_next button").is_visible()
    size = pg.locator('[data-testid="stMarkdownContainer"] p', has_text="Three published methods").first.evaluate(
        "e => parseFloat(getComputedStyle(e).fontSize)")
    assert size >= 22  # 1.45rem of 16 px
    screenshot(pg, "tour_presenting")
    pg.locator(".st-key-present_exit button").click()
    pg.locator('section[data-testid="stSidebar"]').wait_for(state="visible")
    context.close()


def test_a_steps_chart_starts_at_most_400_px_down_at_1280x720(browser, app_url):
    """Chart first: the navigation in one row, the step's title, then its chart."""
    context = browser.new_context(viewport={"width": 1280, "height": 720})
    pg = context.new_page()
    pg.set_default_timeout(120_000)
    pg.goto(f"{app_url}/tour")
    wait_idle(pg)
    pg.locator(".st-key-tour_next button").click()
    _wait_header(pg, STEPS[1].title)
    pg.locator(".js-plotly-plot").first.wait_for(timeout=180_000)
    top = pg.locator(".js-plotly-plot").first.bounding_box()["y"]
    assert top <= 400, f"the step's chart starts {top:.0f} px down"
    context.close()
