"""The privacy audit panel in a real browser: progress while it runs, then the verdict."""
from __future__ import annotations

import re

import pytest

from tests.e2e.conftest import goto, screenshot, wait_idle

pytestmark = pytest.mark.e2e


def test_cdp_lr_audit_runs_to_a_verdict(page):
    goto(page, "CDP-LR")
    page.get_by_text("Accuracy at epsilon = 2").first.wait_for(timeout=180_000)
    page.get_by_role("button", name="Run the audit").click()
    page.get_by_text(re.compile("^No violation: the 95% lower bound")).first.wait_for(timeout=120_000)
    wait_idle(page)
    assert page.get_by_text("Audited lower bound").count() >= 1
    assert page.get_by_text("Traceback").count() == 0
    screenshot(page, "cdp_lr_audit")


def test_sskm_paper_mode_audit_shows_the_violation(page):
    goto(page, "SSKM_DP")
    page.get_by_text("Sound mode: the release is").first.wait_for(timeout=180_000)
    page.get_by_text("Attributes, map and mechanism").first.click()  # the mode is a folded setting
    page.get_by_text("paper", exact=True).first.click()
    wait_idle(page)
    page.get_by_text("Paper mode: not differentially private").first.wait_for(timeout=180_000)
    wait_idle(page)  # the panel is keyed by mode: click the paper panel's button, not the old one
    page.locator(".st-key-sskm_paper_audit_run button").click()
    page.get_by_text(re.compile("^VIOLATION: the measured lower bound")).first.wait_for(timeout=180_000)
    wait_idle(page)
    assert page.get_by_text("Traceback").count() == 0
    screenshot(page, "sskm_paper_audit")
