"""Issue 39, item 7: no text clipped or crossed at 1280x720 in a real browser.

A value or a table is clipped when its element scrolls: ``scrollWidth > clientWidth`` (a
selectbox's value is an ``input``; a table is a canvas grid whose scroller is
``.dvn-scroller``). Each test opens one page and names what it measured.
"""
from __future__ import annotations

from urllib.parse import urlencode

import pytest

from tests.e2e.conftest import screenshot, wait_idle

pytestmark = pytest.mark.e2e

SMALL = {"width": 1280, "height": 720}

#: each keyed selectbox's value: (key, shown text, scrollWidth, clientWidth)
_INPUTS_JS = """(keys) => keys.map(k => { const i = document.querySelector('.st-key-' + k + ' input');
    return i ? [k, i.value, i.scrollWidth, i.clientWidth] : [k, null, 0, 0]; })"""


def _open(browser, app_url, path: str):
    context = browser.new_context(viewport=SMALL)
    pg = context.new_page()
    pg.set_default_timeout(240_000)
    pg.goto(f"{app_url}/{path}")
    wait_idle(pg)
    return context, pg


@pytest.mark.parametrize("rows", ["all", "1000"])
def test_compare_settings_show_each_value_whole(browser, app_url, rows):
    """'Rows used' and 'Audit runs' showed "Every ro..." and "500 (ceili..." in a fifth of the row;
    the longest row choice ("1,000 (intervals about 1.7x wider)") fits too."""
    query = urlencode([("methods", "Raw table"), ("eps", "1"), ("reps", "1"), ("rows", rows)])
    context, pg = _open(browser, app_url, f"compare?{query}")
    pg.locator(".st-key-cmp_audit_runs input").wait_for()
    seen = pg.evaluate(_INPUTS_JS, ["cmp_rows", "cmp_audit_runs"])
    screenshot(pg, f"compare_settings_{rows}")
    context.close()
    assert all(text for _, text, _, _ in seen), seen
    clipped = [f"{k}: {text!r} needs {sw} px, shows {cw}" for k, text, sw, cw in seen if sw > cw]
    assert not clipped, clipped
