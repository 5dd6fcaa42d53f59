"""Tour page: every step renders with Next, Back returns, links, large text, the HTML export."""
from __future__ import annotations

from html import escape

import pytest

from dashboard.tour.steps import STEPS
from tests.dashboard.conftest import assert_clean
from tests.dashboard.shared.widgets.test_chart_data import assert_charts_stand_alone
from tests.dashboard.test_report import assert_offline_html


@pytest.fixture(scope="module")
def walked():
    """The Tour walked from the first step to the last with Next, as a presenter would:
    (AppTest, what each step showed)."""
    from streamlit.testing.v1 import AppTest

    from tests.dashboard.conftest import APP

    at = AppTest.from_file(str(APP), default_timeout=300)
    at.run()
    at.switch_page("tour/tour.py")
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
    from dashboard.tour.cached import export_html

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
    at.switch_page("tour/tour.py")
    at.run()
    assert_clean(at)
    assert at.session_state["tour_step"] == 2


# ---------------------------------------------------------------- issue 24: every accuracy beside its reference
def _cdp_stub(accuracy: float = 0.5):
    """A CDP story whose private schemes sit under a 0.9 constant guess."""
    from types import SimpleNamespace

    import pandas as pd

    from core.cdp.claims import fig4_claim
    from core.cdp.sweeps import constant_guess, model_reference
    from core.evaluation.metrics import below_reference

    rows = [{"scheme": s, "epsilon": e, "accuracy_mean": (0.93 if s == "Non-private" else accuracy),
             "accuracy_std": 0.01, "accuracy_n": 3} for s in ("Non-private", "Group", "Zhang", "Proposed")
            for e in (0.5, 5.0)]
    curve = pd.DataFrame(rows)
    guess = constant_guess(["no"] * 180 + ["yes"] * 20)
    refs = (guess, model_reference(0.93, 200))
    notes = tuple(f"{s}: {below_reference(accuracy, guess.value)}" for s in ("Group", "Zhang", "Proposed"))
    return SimpleNamespace(curve=curve, claim=fig4_claim(curve, reference=guess), references=refs,
                           reference_notes=notes)


def test_the_cdp_claim_step_draws_and_says_the_constant_guess():
    import json

    view = next(s for s in STEPS if s.key == "cdp-claim").view(_cdp_stub())
    spec = json.dumps(view.figure.to_plotly_json(), default=str)
    assert "majority class (constant guess)" in spec and "non-private model" in spec
    assert any("is below the constant guess" in f for f in view.facts)
    assert any(f.startswith("References: always guessing the majority class") for f in view.facts)
    assert view.claim.holds is None  # the constant guess explains the curves: cannot be judged
    assert "reference: majority class (constant guess)" in set(view.data["scheme"])


def test_the_cdp_claim_step_says_nothing_below_when_schemes_beat_the_guess():
    stub = _cdp_stub(0.95)
    stub.reference_notes = ()
    view = next(s for s in STEPS if s.key == "cdp-claim").view(stub)
    assert not any("below the constant guess" in f for f in view.facts)


def test_the_sskm_claim_step_reads_the_release_against_a_random_one():
    from types import SimpleNamespace

    import pandas as pd

    from core.sskm.claims import fig5_claim

    rows = [{"m": 5, "grid": g, "epsilon": e, "a_mean": a, "a_std": 0.0, "a_min": a, "a_max": a,
             "mse_mean": 1.0 + 0.01 / e, "mse_std": 0.0, "rl_mean": 0.001, "rl_std": 0.0, "random_mse": 0.9,
             "random_mse_lo": 0.88, "random_rl": 0.001, "random_rl_hi": 0.002}
            for g, a in (("4x4", 14.0), ("6x6", 30.0)) for e in (0.1, 1.0)]
    table = pd.DataFrame(rows)
    stub = SimpleNamespace(table=table, columns=("a", "b"), claim=fig5_claim(table, mode="sound"))
    view = next(s for s in STEPS if s.key == "sskm-claim").view(stub)
    assert any("no better than a random release on utility" in f for f in view.facts)
    assert any(t.name == "random release (no information)" for t in view.figure.data)
    assert view.claim.holds is None and "cannot be judged" in view.claim.finding


def test_presenting_the_tour_shows_the_step_and_no_control_hint():
    from streamlit.testing.v1 import AppTest

    from tests.dashboard.conftest import APP

    at = AppTest.from_file(str(APP), default_timeout=300)
    at.session_state["present"] = True
    at.switch_page("tour/tour.py")
    at.run()
    assert_clean(at)
    assert [h.value for h in at.header] == [STEPS[0].title]
    assert not [c.value for c in at.caption if "Export" in c.value or "first visit computes" in c.value]
    assert not [b for b in at.button if b.key == "tour_export"]


def test_the_compare_step_says_which_method_falls_under_the_constant_guess():
    from types import SimpleNamespace

    import pandas as pd

    from dashboard.tour.steps import _compare_reference_facts

    summary = pd.DataFrame({"method": ["Raw table", "kRR", "kRR"], "epsilon": [float("nan"), 0.5, 2.0],
                            "utility_mean": [0.93, 0.62, 0.85]})
    stub = SimpleNamespace(summary=summary, label="y", references={"utility": {"majority": 0.9, "nonprivate": 0.93}})
    facts = _compare_reference_facts(stub)
    assert facts[0] == ("References for y on the held-out records (accuracy: the constant guess 0.900, the "
                        "non-private model 0.930).")
    assert facts[1].startswith("kRR: below the constant guess at every epsilon")
    assert not any(f.startswith("Raw table") for f in facts)
    assert _compare_reference_facts(SimpleNamespace(summary=summary, label="y", references={})) == []


def test_the_compare_step_opens_with_the_dp_headline_on_roc_auc():
    from types import SimpleNamespace

    import pandas as pd

    from dashboard.tour.steps import _compare

    summary = pd.DataFrame({"method": ["Raw table", "kRR"], "epsilon": [float("nan"), 1.0], "is_dp": [False, True],
                            "utility_mean": [0.85, 0.8], "utility_auc_mean": [0.9, 0.7], "utility_auc_std": [0, 0],
                            "utility_std": [0, 0], "ai_advantage_mean": [0.2, 0.0], "ai_advantage_std": [0, 0]})
    by = {"utility": {"guess": 0.76, "nonprivate": 0.85, "words": "accuracy"},
          "utility_auc": {"guess": 0.5, "nonprivate": 0.9, "words": "ROC AUC"}}
    stub = SimpleNamespace(summary=summary, front=summary, takeaway="T.", dp={"Raw table": False, "kRR": True},
                           epsilons=(1.0,), label="y", sensitive="s", extra={"rows": 100}, utility="utility_auc",
                           dp_headline="kRR at epsilon 1 beats the constant guess on ROC AUC.",
                           references={"utility": {"majority": 0.76, "nonprivate": 0.85, "by_measure": by}})
    view = _compare(stub)
    assert view.facts[0].startswith("kRR at epsilon 1 beats the constant guess") and view.facts[1] == "T."
    assert "ROC AUC" in view.figure.layout.title.text
