"""Issue 39, item 7: no text clipped or crossed at 1280x720 in a real browser.

A value or a table is clipped when its element scrolls: ``scrollWidth > clientWidth`` (a
selectbox's value is an ``input``; a table is a canvas grid whose scroller is
``.dvn-scroller``). Each test opens one page and names what it measured.
"""
from __future__ import annotations

from urllib.parse import urlencode

import pytest

from tests.e2e.conftest import screenshot, wait_idle, wait_laid_out

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
    pg.get_by_text("Settings: methods").click()  # folded above the frontier
    pg.locator(".st-key-cmp_audit_runs input").wait_for()
    wait_laid_out(pg)  # the expander opens with an animation
    seen = pg.evaluate(_INPUTS_JS, ["cmp_rows", "cmp_audit_runs"])
    screenshot(pg, f"compare_settings_{rows}")
    context.close()
    assert all(text for _, text, _, _ in seen), seen
    clipped = [f"{k}: {text!r} needs {sw} px, shows {cw}" for k, text, sw, cw in seen if sw > cw]
    assert not clipped, clipped


#: each table on the page: (its headers, the widest scrollWidth and its clientWidth): a canvas
#: grid (st.dataframe, st.data_editor) scrolls in its '.dvn-scroller', a static table
#: (st.table) in itself or any element inside it
_GRIDS_JS = """() => [...document.querySelectorAll('[data-testid=stDataFrame], [data-testid=stTable]')].map(e => {
    const boxes = e.dataset.testid === 'stTable' ? [e, ...e.querySelectorAll('*')] : [e.querySelector('.dvn-scroller')];
    const worst = boxes.filter(b => b).reduce((w, b) => b.scrollWidth - b.clientWidth > w[0] - w[1]
        ? [b.scrollWidth, b.clientWidth] : w, [0, 0]);
    return [[...e.querySelectorAll('th')].map(t => t.textContent.trim()), worst[0], worst[1]];
})"""


def _grid(pg, header: str):
    """(headers, scrollWidth, clientWidth) of the first table with the column ``header``."""
    found = [g for g in pg.evaluate(_GRIDS_JS) if header in g[0]]
    assert found, f"no table with a column {header!r}"
    return found[0]


def test_the_schema_panels_privacy_column_shows_whole_on_a_drafted_upload(browser, app_url, tmp_path):
    """A drafted entry's privacy cell held a 130-character sentence, so the schema table ran
    past its box; it says 'not private: read from your data' (the box above says it in full)."""
    csv = tmp_path / "visits.csv"
    csv.write_text("visit_day,age,ward,outcome\n" + "".join(
        f"{(i * 7) % 30},{30 + (i * 7) % 20},{'AB'[i % 2]},{'yes' if i % 3 else 'no'}\n" for i in range(40)))
    context, pg = _open(browser, app_url, "")
    pg.get_by_text("Upload a CSV").click()
    wait_idle(pg)
    pg.locator('[data-testid="stFileUploaderDropzoneInput"]').first.set_input_files(str(csv))
    pg.get_by_text("Using visits").wait_for(timeout=60_000)
    wait_idle(pg)
    headers, scroll, width = _grid(pg, "privacy")
    screenshot(pg, "data_schema_privacy")
    context.close()
    assert scroll <= width, f"the schema table needs {scroll} px, shows {width} ({headers})"


def test_cdp_lr_schemes_table_shows_its_sensitivity_column_whole(browser, app_url):
    """The schemes' table (sensitivity: '38 (GS, read from the records; 4.1% of N = 928 training
    records)') ran to 1,121 px in a 482 px box; it spans the page and its long cells wrap."""
    context, pg = _open(browser, app_url, "cdp_lr")
    pg.get_by_text("Accuracy at epsilon = 2").first.wait_for(timeout=240_000)
    wait_idle(pg)
    headers, scroll, width = _grid(pg, "sensitivity")
    screenshot(pg, "cdp_lr_schemes_table")
    context.close()
    assert scroll <= width, f"the schemes' table needs {scroll} px, shows {width} ({headers})"


#: in the chart keyed ``key``: the boxes of its bars (with their whiskers) and of every name written in it (legend
#: entries and annotations), as [text, left, top, right, bottom]
_BARS_AND_NAMES_JS = """(key) => {
    const g = document.querySelector('.st-key-' + key + ' .js-plotly-plot');
    const box = (e) => { const r = e.getBoundingClientRect(); return [r.left, r.top, r.right, r.bottom]; };
    return {bars: [...g.querySelectorAll('.trace.bars .point path, .trace.bars .errorbar path')].map(box),
            names: [...g.querySelectorAll('.legend text.legendtext, .infolayer .annotation text')]
                   .map(e => [e.textContent, ...box(e)])};
}"""


def test_cdp_lr_reference_names_cross_no_bar(browser, app_url):
    """'majority class (constant guess) 0.634' was written at its line, over the DP reading's bar."""
    context, pg = _open(browser, app_url, "cdp_lr")
    pg.get_by_text("Accuracy at epsilon = 2").first.wait_for(timeout=240_000)
    wait_idle(pg)
    found = pg.evaluate(_BARS_AND_NAMES_JS, "lr_live")
    screenshot(pg, "cdp_lr_bars")
    context.close()
    assert found["bars"] and any("constant guess" in n[0] for n in found["names"]), found
    crossing = [f"{text!r} over a bar at {b[0]:.0f},{b[1]:.0f}" for text, *n in found["names"] for b in found["bars"]
                if min(n[2], b[2]) - max(n[0], b[0]) > 2 and min(n[3], b[3]) - max(n[1], b[1]) > 2]
    assert not crossing, crossing
