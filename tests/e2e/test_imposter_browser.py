"""The IMPOSTER page in a real browser: detection on the census sample (both verdicts), the
chart beside theta/beta in the first screen, presenting, Train with live curves and then the
results."""
from __future__ import annotations

import pytest

from tests.e2e.conftest import goto, screenshot, wait_idle

pytestmark = pytest.mark.e2e


def _epochs(page, value: str) -> None:
    """Set the epochs (under "Training settings", folded away)."""
    page.get_by_text("Training settings: epochs, latent size").click()
    epochs = page.get_by_label("Epochs", exact=True)
    epochs.fill(value)
    epochs.press("Enter")
    wait_idle(page)


def test_imposter_trains_and_shows_results(page):
    goto(page, "IMPOSTER")
    page.get_by_text("Default rule:").first.wait_for(timeout=120_000)
    assert page.get_by_text("The paper's rule:").count() >= 1  # both verdicts side by side
    _epochs(page, "3")  # few epochs and one classifier, to keep the run short
    page.get_by_role("button", name="Train", exact=True).click()
    page.get_by_text("Training finished after").wait_for(timeout=240_000)
    page.get_by_text("3 · Settings A and B (Table 1)").wait_for(timeout=240_000)
    page.get_by_role("button", name="Prepare a release for download").click(timeout=300_000)
    wait_idle(page)
    page.get_by_role("button", name="Download release 1").wait_for(timeout=60_000)
    assert page.get_by_text("Traceback").count() == 0
    screenshot(page, "imposter_trained")


def test_imposter_stop_button_stops_training(page):
    goto(page, "IMPOSTER")
    page.get_by_text("Default rule:").first.wait_for(timeout=120_000)
    _epochs(page, "1000")
    page.get_by_role("button", name="Train", exact=True).click()
    page.get_by_text("Training: iteration").wait_for(timeout=60_000)
    page.locator(".st-key-imposter_stop button").click()  # ours, not the header's Stop
    page.get_by_text("Training stopped early after").wait_for(timeout=120_000)
    assert page.get_by_text("Traceback").count() == 0


@pytest.mark.parametrize("present", [False, True])
def test_detection_chart_starts_in_the_first_screen_beside_theta(page, app_url, present):
    """Chart first (1280x720): the detection chart starts in the first screen, to the right of
    the theta slider; presenting, the page shows it too (with theta still live)."""
    page.set_viewport_size({"width": 1280, "height": 720})
    page.goto(f"{app_url}/imposter" + ("?present=true" if present else ""))
    wait_idle(page)
    page.get_by_text("Default rule:").first.wait_for(timeout=120_000)
    chart = page.locator(".st-key-imposter_nmi_chart").first
    chart.wait_for(timeout=60_000)
    page.locator(".st-key-imposter_theta").first.wait_for(timeout=60_000)
    box = chart.bounding_box()
    theta = page.locator(".st-key-imposter_theta").first.bounding_box()
    assert box is not None and theta is not None
    assert box["y"] < 650, box
    assert box["x"] > theta["x"] + theta["width"] - 1  # side by side
    assert page.get_by_text("Traceback").count() == 0
    if present:
        assert page.get_by_text("Press Train").count() == 0
    screenshot(page, f"imposter_first_screen{'_present' if present else ''}")
