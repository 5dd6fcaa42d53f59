"""The IMPOSTER page in a real browser: detection on the census sample, press Train, see
the live curves and then the results."""
from __future__ import annotations

import pytest

from tests.e2e.conftest import goto, screenshot, wait_idle

pytestmark = pytest.mark.e2e


def test_imposter_trains_and_shows_results(page):
    goto(page, "IMPOSTER")
    page.get_by_text("Implicit privacy attributes for").first.wait_for(timeout=120_000)
    # few epochs and one classifier, to keep the run short
    epochs = page.get_by_label("Epochs", exact=True)
    epochs.fill("3")
    epochs.press("Enter")
    wait_idle(page)
    page.get_by_role("button", name="Train", exact=True).click()
    page.get_by_text("Training finished after").wait_for(timeout=240_000)
    page.get_by_text("3 · Settings A and B (Table 1)").wait_for(timeout=240_000)
    page.get_by_role("button", name="Prepare a release for download").click(timeout=300_000)
    wait_idle(page)
    page.get_by_role("button", name="Download release 1 (CSV)").wait_for(timeout=60_000)
    assert page.get_by_text("Traceback").count() == 0
    screenshot(page, "imposter_trained")


def test_imposter_stop_button_stops_training(page):
    goto(page, "IMPOSTER")
    page.get_by_text("Implicit privacy attributes for").first.wait_for(timeout=120_000)
    epochs = page.get_by_label("Epochs", exact=True)
    epochs.fill("1000")
    epochs.press("Enter")
    wait_idle(page)
    page.get_by_role("button", name="Train", exact=True).click()
    page.get_by_text("Training: iteration").wait_for(timeout=60_000)
    page.locator(".st-key-imposter_stop button").click()  # ours, not the header's Stop
    page.get_by_text("Training stopped early after").wait_for(timeout=120_000)
    assert page.get_by_text("Traceback").count() == 0
