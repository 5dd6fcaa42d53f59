"""The Compare page in a real browser: a small comparison on the built-in sample, then the
report downloaded and checked to stand alone."""
from __future__ import annotations

from urllib.parse import urlencode

import pytest

from tests.e2e.conftest import screenshot, wait_idle

pytestmark = pytest.mark.e2e

METHODS = ["Raw table", "kRR", "MDAV", "IDP-KMeans", "CDP-LR", "Logistic regression (non-private)"]


def test_a_small_comparison_draws_its_frontier_and_hands_over_a_report(browser, app_url, tmp_path):
    query = urlencode([("methods", m) for m in METHODS] + [("eps", "0.5"), ("eps", "2"), ("reps", "1"),
                                                           ("rows", "600")])
    context = browser.new_context(viewport={"width": 1400, "height": 1000}, accept_downloads=True)
    pg = context.new_page()
    pg.set_default_timeout(60_000)
    pg.goto(f"{app_url}/compare?{query}")
    wait_idle(pg)
    pg.get_by_role("heading", name="Compare").first.wait_for()
    pg.locator('[data-testid="stPlotlyChart"]').first.wait_for(timeout=240_000)
    wait_idle(pg)
    assert pg.get_by_text("keeps the most utility").count() + pg.get_by_text("No method").count() >= 1
    assert pg.get_by_text("Traceback").count() == 0
    screenshot(pg, "compare")
    with pg.expect_download(timeout=120_000) as info:
        pg.get_by_role("button", name="Report (HTML)").click()
    path = tmp_path / "comparison.html"
    info.value.save_as(path)
    html = path.read_text(encoding="utf-8")
    assert html.lstrip().lower().startswith("<!doctype html")
    assert "Takeaway" in html and all(m.split(" (")[0] in html for m in METHODS)
    assert '<script src="http' not in html and "<link" not in html.lower().split("<script")[0]
    context.close()
