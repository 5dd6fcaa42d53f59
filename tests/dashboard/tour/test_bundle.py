"""The Tour's "Download bundle": the chosen stories' numbers, as the page shows them, in a zip
whose script and notebook rerun them exactly."""
from __future__ import annotations

import json

import pytest

from dashboard.tour.steps import step_index
from tests.core.bundle.support import assert_reruns
from tests.dashboard.conftest import assert_clean


def _facts(at) -> str:
    """The step's text and facts, markdown escapes dropped."""
    return "\n".join(m.value for m in at.markdown).replace("\\", "")


@pytest.fixture
def no_prefetch(monkeypatch):
    """The page computes only the stories it shows (no background thread for the others)."""
    from dashboard.tour import cached

    monkeypatch.setattr(cached, "prefetch", lambda: None)


def test_the_tour_report_goes_only_with_every_story(monkeypatch):
    """Every story: the page's numbers and the Tour's own HTML page; fewer: the numbers alone."""
    from core.bundle.pages import tour as tour_bundle
    from dashboard.tour import bundle_block, cached

    monkeypatch.setattr(cached, "story", lambda key, progress=None: f"result of {key}")
    monkeypatch.setattr(cached, "export_html", lambda progress=None: b"<html>the tour</html>")
    monkeypatch.setattr(tour_bundle, "tour_numbers", lambda results: {"stories": dict(results)})
    every = bundle_block.tour_extra(list(tour_bundle.STORY_KEYS))
    assert every["report_html"] == "<html>the tour</html>"
    assert every["numbers"]["stories"]["sskm"] == "result of sskm"
    assert bundle_block.tour_extra(["cdp"]) == {"numbers": {"stories": {"cdp": "result of cdp"}}}


def test_tour_bundle_reruns_to_the_pages_numbers(open_page, no_prefetch, tmp_path):
    at = open_page("tour", timeout=300)
    at.multiselect(key="tour_bundle_stories").set_value(["cdp"]).run()
    at.selectbox(key="tour_step").set_value(step_index("cdp-problem")).run()
    assert_clean(at)
    problem = _facts(at)
    at.selectbox(key="tour_step").set_value(step_index("cdp-claim")).run()
    claim = _facts(at)
    at.button(key="tour_bundle_prepare").click().run()
    assert_clean(at)
    bundle = at.session_state["tour_bundle"]
    assert bundle.manifest["kind"] == "colleague" and not bundle.ledger.is_dp
    result = assert_reruns(bundle.data, tmp_path)
    cdp = result["numbers"]["stories"]["cdp"]
    # the page's sentences hold the bundle's numbers
    assert f"Of {cdp['training records']:,} training records" in problem
    assert f"move up to {cdp['sensitivity']['Group']:.0f} correlated records" in problem
    assert f"gives {cdp['sensitivity']['Proposed']:.1f}" in problem
    top = max(r["epsilon"] for r in cdp["fig4 curve"])
    proposed = next(r for r in cdp["fig4 curve"] if r["scheme"] == "Proposed" and r["epsilon"] == top)
    assert f"Proposed {proposed['accuracy_mean']:.3f}" in claim
    config = json.loads((tmp_path / "config.json").read_text())
    assert config["page"] == "tour" and config["seed"] == 0 and config["settings"]["stories"] == ["cdp"]
    # one story of four: the bundle's own report, not the Tour's page
    assert "guided tour" not in (tmp_path / "report.html").read_text()
