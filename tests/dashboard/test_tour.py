"""Tour page: every step renders with Next, Back returns, links, large text, the HTML export."""
from __future__ import annotations

from html import escape

import pytest

from dashboard.tour import STEPS
from tests.dashboard.conftest import assert_clean
from tests.dashboard.test_chart_data import assert_charts_stand_alone
from tests.dashboard.test_report import assert_offline_html


@pytest.fixture(scope="module")
def walked():
    """The Tour walked from the first step to the last with Next, as a presenter would:
    (AppTest, what each step showed)."""
    from streamlit.testing.v1 import AppTest

    from tests.dashboard.conftest import APP

    at = AppTest.from_file(str(APP), default_timeout=300)
    at.run()
    at.switch_page("views/tour.py")
    at.run()
    seen = []
    for i in range(len(STEPS)):
        assert not at.exception, (STEPS[i].key, [e.value for e in at.exception])
        problems = [e.value for e in at.error if not e.value.startswith("**Audit")]  # a violation found is news
        assert not problems, (STEPS[i].key, problems)
        seen.append({
            "step": at.session_state["tour_step"],
            "header": [h.value for h in at.header],
            "charts": len(at.get("plotly_chart")),
            "links": [link.proto.page for link in at.get("page_link")],
            "claims": [b.value for b in list(at.success) + list(at.warning) + list(at.info)],
        })
        assert_charts_stand_alone(at)
        if i < len(STEPS) - 1:
            next(b for b in at.button if b.key == "tour_next").click().run()
    return at, seen


def test_next_walks_every_step_in_order(walked):
    _, seen = walked
    assert [s["step"] for s in seen] == list(range(len(STEPS)))
    assert [s["header"] for s in seen] == [[step.title] for step in STEPS]


def test_every_step_with_a_story_draws_its_chart(walked):
    _, seen = walked
    for step, s in zip(STEPS, seen):
        assert s["charts"] == (0 if step.story is None else 1), step.key


def test_every_step_links_to_its_full_page(walked):
    _, seen = walked
    for step, s in zip(STEPS, seen):
        assert any(link.endswith(step.page.split("/")[-1].removesuffix(".py")) or link == step.page
                   for link in s["links"]), (step.key, s["links"])


def test_claim_steps_show_the_paper_and_our_verdict(walked):
    _, seen = walked
    for step, s in zip(STEPS, seen):
        if step.key.endswith("-claim"):
            assert any("The paper:" in c and "here" in c for c in s["claims"]), step.key


def test_the_last_step_disables_next_and_back_returns(walked):
    at, _ = walked
    assert next(b for b in at.button if b.key == "tour_next").disabled
    next(b for b in at.button if b.key == "tour_back").click().run()
    assert not at.exception
    assert at.session_state["tour_step"] == len(STEPS) - 2


def test_the_paper_mode_audit_finds_the_violation(walked):
    at, _ = walked
    at.selectbox(key="tour_step").set_value(next(i for i, s in enumerate(STEPS) if s.key == "sskm-breaks")).run()
    assert not at.exception
    assert any("VIOLATION" in e.value for e in at.error)


def test_export_gives_one_offline_page_with_every_step(walked):
    at, _ = walked
    at.selectbox(key="tour_step").set_value(0).run()
    next(b for b in at.button if b.key == "tour_export").click().run()
    assert_clean(at)
    from dashboard.cached.tour import export_html

    html = export_html().decode("utf-8")
    assert all(escape(step.title) in html for step in STEPS)
    assert_offline_html(html)
    assert [b for b in at.download_button if b.key == "tour_download"]


def test_large_text_adds_the_style(open_page):
    at = open_page("tour")
    at.toggle(key="tour_large").set_value(True).run()
    assert_clean(at)
    assert any("font-size: 1.45rem" in h.proto.body for h in at.get("html"))


def test_a_link_opens_its_step(open_page):
    from streamlit.testing.v1 import AppTest

    from tests.dashboard.conftest import APP

    at = AppTest.from_file(str(APP), default_timeout=300)
    at.query_params["step"] = "2"
    at.switch_page("views/tour.py")
    at.run()
    assert_clean(at)
    assert at.session_state["tour_step"] == 2
