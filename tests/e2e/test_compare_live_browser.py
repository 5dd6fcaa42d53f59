"""Live in a room, in a real browser (issue 41): Compare, presenting, draws the methods measured so
far while a long training runs, in the first screen at 1280x720 with Stop at hand (a closed
tab's training: tests/e2e/test_reattach_browser.py)."""
from __future__ import annotations

import time
from urllib.parse import urlencode

import pytest

from tests.e2e.conftest import screenshot, wait_app_idle

pytestmark = pytest.mark.e2e

#: cheap methods, then IMPOSTER with many epochs: it runs last and long, so the frontier of the
#: others must be on screen while it trains
QUERY = urlencode([("methods", m) for m in ("Raw table", "kRR", "MDAV", "CDP-LR", "IMPOSTER")]
                  + [("eps", "1"), ("reps", "1"), ("rows", "500"), ("epochs", "200"), ("present", "true")])
PARTIAL = ".st-key-cmp_frontier_partial .js-plotly-plot .main-svg"


def test_presenting_compare_draws_the_first_methods_while_imposter_trains_and_stops(browser, app_url):
    context = browser.new_context(viewport={"width": 1280, "height": 720})
    pg = context.new_page()
    pg.set_default_timeout(120_000)
    start = time.monotonic()
    pg.goto(f"{app_url}/compare?{QUERY}")
    pg.locator(PARTIAL).first.wait_for(timeout=120_000)
    first_points = time.monotonic() - start
    pg.get_by_text("still running: IMPOSTER", exact=False).first.wait_for(timeout=60_000)
    top = pg.evaluate("() => document.querySelector('.st-key-cmp_frontier_partial .js-plotly-plot')"
                      ".getBoundingClientRect().top")
    stop = pg.locator(".st-key-cmp_run_stop button")
    box = stop.bounding_box()
    assert stop.is_visible() and box is not None and box["y"] + box["height"] <= 720, "Stop is not in the first screen"
    assert pg.get_by_text("Step 1 of 2").count() == 0  # presenting: no audit, so one step
    screenshot(pg, "compare_live_present_1280")
    assert top <= 400, f"the frontier so far starts {top:.0f} px down"
    stop.click()
    pg.get_by_text("was stopped").first.wait_for(timeout=60_000)
    wait_app_idle(pg)
    assert pg.get_by_text("Traceback").count() == 0
    print(f"first points after {first_points:.1f} s, chart top {top:.0f} px")
    context.close()
