"""The privacy audit panel in a real browser: progress while it runs, then the verdict (its job in
a real child process). The SSKM_DP paper mode's violation is checked on its page in AppTest
(tests/dashboard/sskm/test_page.py), whose jobs pickle what crosses to a child as here."""
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
