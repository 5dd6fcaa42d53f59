"""User text is never markup, in a real browser (issue 40, part 4).

A CSV whose file name is a bare address and whose column names and category values hold a
URL, markdown, HTML and spreadsheet formulas is uploaded on the Data page; then every page of
:mod:`dashboard.navigation` is opened at its defaults (its main action is never pressed). No
page may show a link to the attacker's host, an element made from the injected HTML, a dialog,
or Streamlit's exception box.
"""
from __future__ import annotations

import pytest

from dashboard.navigation import SECTIONS
from tests.core.test_user_text_safety import EVIL_HOST, HOSTILE, hostile_csv
from tests.e2e.conftest import goto, screenshot, wait_idle

pytestmark = pytest.mark.e2e

#: every markup the hostile names could turn into, found in the page (shadow roots included)
_FOUND_JS = r"""
(host) => {
  const all = [];
  const walk = (root) => { for (const e of root.querySelectorAll('*')) { all.push(e);
    if (e.shadowRoot) walk(e.shadowRoot); } };
  walk(document);
  const href = (e) => e.getAttribute('href') || e.getAttribute('xlink:href') || '';
  return {
    links: all.filter(e => e.tagName.toLowerCase() === 'a' && href(e).includes(host)).map(href),
    handlers: all.filter(e => e.hasAttribute('onerror') || e.hasAttribute('onload')).map(e => e.outerHTML.slice(0, 80)),
    images: all.filter(e => e.tagName.toLowerCase() === 'img' && e.getAttribute('src') === 'x').length,
    scripts: all.filter(e => e.tagName.toLowerCase() === 'script' && (e.textContent || '').includes('alert')).length,
    exceptions: [...document.querySelectorAll('[data-testid="stException"]')].map(e => e.innerText.slice(0, 300)),
  };
}
"""


def _titles() -> list[str]:
    return [p.title for section in SECTIONS.values() for p in section]


def _upload(page, tmp_path) -> None:
    csv = tmp_path / f"www.{EVIL_HOST}.csv"  # the dataset's name is a bare address
    csv.write_text(hostile_csv())
    # Correlations first, while no job runs: its first import of core.cdp can meet a job's
    # thread importing the same circle (core.cdp -> baselines -> dc_fbfs -> core.cdp.sensitivity)
    # and fail with "cannot import name 'DCFBFSResult'", which is not what this test is about
    goto(page, "Correlations")
    goto(page, "Data")
    page.get_by_text("Upload a CSV").click()
    wait_idle(page)
    page.locator('[data-testid="stFileUploaderDropzoneInput"]').first.set_input_files(str(csv))
    page.get_by_text("Using www").first.wait_for(timeout=60_000)
    wait_idle(page)
    # roles named by the attack, so that the pages go past "choose a label" to their messages
    _pick(page, "Label (predicted)", HOSTILE["html"])  # yes / no
    _pick(page, "Sensitive attributes", HOSTILE["mdlink"])


def _pick(page, box: str, option: str) -> None:
    """Choose ``option`` in the selectbox or multiselect labelled ``box``, as a user does."""
    combo = page.get_by_role("combobox", name=box, exact=True)
    combo.click()
    page.get_by_role("option", name=option, exact=True).click()
    if combo.get_attribute("aria-expanded") == "true":  # a multiselect's list stays open
        combo.press("Escape")
    wait_idle(page)


def test_no_page_renders_user_text_as_markup(page, tmp_path):
    dialogs: list[str] = []
    page.on("dialog", lambda d: (dialogs.append(d.message), d.dismiss()))
    _upload(page, tmp_path)
    problems = {}
    for title in _titles():
        if title != "Data":
            goto(page, title)
        found = page.evaluate(_FOUND_JS, EVIL_HOST)
        bad = {k: v for k, v in found.items() if v}
        if bad:
            problems[title] = bad
            screenshot(page, f"user_text_{title}")
    assert not dialogs, dialogs
    assert not problems, problems
