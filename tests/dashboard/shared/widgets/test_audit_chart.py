"""The audit chart (dashboard.shared.widgets.audit_chart) and the markdown escape (dashboard.shared.safe)."""
from __future__ import annotations

import math

from dashboard.shared.widgets.audit_chart import audit_interval
from dashboard.shared.safe import md
from tests.dashboard.conftest import dataset_state


def test_audit_chart_marks_the_claim_and_the_measured_interval():
    fig = audit_interval(claimed=1.0, lower=0.4, point=0.7)
    assert fig.layout.title.text == "Privacy audit: claimed vs measured epsilon"
    assert list(fig.data[0].x) == [0.4, 0.7]
    assert fig.layout.shapes[0].x0 == 1.0
    assert fig.data[0].line.color == "#2ca02c"


def test_audit_chart_labels_the_claim_and_spans_every_value():
    fig = audit_interval(claimed=2.0, lower=0.4, point=3.0)
    assert [a.text for a in fig.layout.annotations] == ["claimed epsilon = 2"]
    assert (fig.layout.shapes[0].x0, fig.layout.shapes[0].x1) == (2.0, 2.0)
    assert tuple(fig.layout.xaxis.range) == (0, 3.0 * 1.25)  # the largest value, and a margin
    assert fig.layout.xaxis.title.text == "epsilon (privacy loss)"
    assert fig.data[0].name == "measured: 95% lower bound to point estimate"


def test_audit_chart_is_red_for_a_violation():
    assert audit_interval(claimed=1.0, lower=2.5, point=3.0).data[0].line.color == "#d62728"


def test_audit_chart_without_a_claim_says_so():
    fig = audit_interval(claimed=math.inf, lower=4.0, point=math.inf)
    assert not fig.layout.shapes
    assert "no epsilon claimed" in fig.layout.annotations[0].text
    assert list(fig.data[0].x) == [4.0, 4.0 * 1.25]  # an infinite estimate drawn at the axis end
    assert fig.data[0].line.color == "#2ca02c"  # no claim, so nothing to violate


def test_md_escapes_an_image_link():
    assert md("![x](http://evil)") == r"\!\[x\]\(http\:" + "\u2060" + r"//evil\)"  # a joiner breaks the bare address


def test_audit_chart_draws_the_ceiling_of_the_runs():
    fig = audit_interval(claimed=1.0, lower=0.4, point=0.7, ceiling=4.9, runs=1000)
    ceiling = fig.layout.shapes[1]
    assert (ceiling.x0, ceiling.line.dash) == (4.9, "dot")
    assert fig.layout.annotations[1].text == "most this audit can show with 1,000 runs = 4.9"
    assert fig.layout.xaxis.range[1] == 4.9 * 1.25


def test_audit_chart_says_when_the_bound_reaches_the_ceiling():
    fig = audit_interval(claimed=1.0, lower=3.28, point=math.inf, ceiling=3.28, runs=200)
    assert fig.layout.annotations[1].text.endswith("(reached: saturated)")


def test_audit_data_carries_the_ceiling_and_saturation():
    from dashboard.shared.widgets.audit_chart import audit_data

    row = audit_data(claimed=1.0, lower=4.9, point=math.inf, ceiling=4.9, runs=1000).iloc[0]
    assert row["ceiling (largest lower bound these runs can show)"] == 4.9 and row["runs per side"] == 1000
    assert bool(row["saturated (bound at the ceiling: more runs could show more)"])
    assert "runs per side" not in audit_data(claimed=1.0, lower=0.4, point=0.7).columns


# ------------------------------------------------------------------ the panel's job (several pairs)


def _toy_cases():
    from core.audit.pairs import NeighbouringPair
    from core.audit_cases import AuditCase
    from core.privacy.mechanisms import laplace

    def noisy(data, random_state):
        return laplace(float(data), sensitivity=1.0, epsilon=1.0, random_state=random_state)

    def leaky(data, random_state):
        return float(data)  # no noise: every run told apart

    pair = NeighbouringPair(0, 1, "0 vs 1")
    return [AuditCase("noisy", noisy, pair, None, 1.0, 0.0, "the noisy one"),
            AuditCase("leaky", leaky, pair, None, 1.0, 0.0, "the leaky one")]


def test_audit_job_runs_every_case_and_keeps_the_worst():
    from dashboard.shared.serving.audit_jobs import AuditJob

    job = AuditJob(_toy_cases(), runs=40, seed=0, key="k")
    job._work()
    assert len(job.results) == 2 and job.result is job.results[1] and job.case.name == "leaky"
    assert job.result.saturated and job.result.violation


def test_audit_job_still_takes_one_case():
    from dashboard.shared.serving.audit_jobs import AuditJob

    job = AuditJob(_toy_cases()[0], runs=40, seed=0, key="k")
    job._work()
    assert len(job.results) == 1 and job.case.name == "noisy" and not job.result.violation


def _panel_script():
    from core.audit.pairs import NeighbouringPair
    from core.audit_cases import AuditCase
    from core.privacy.mechanisms import laplace
    from dashboard.shared.widgets.privacy import audit_panel

    def noisy(data, random_state):
        return laplace(float(data), sensitivity=1.0, epsilon=1.0, random_state=random_state)

    def leaky(data, random_state):
        return float(data)

    pair = NeighbouringPair(0, 1, "0 vs 1")
    audit_panel("toy", lambda: [AuditCase("noisy", noisy, pair, None, 1.0, 0.0, "the noisy one"),
                                AuditCase("leaky", leaky, pair, None, 1.0, 0.0, "the leaky one")],
                case_key="k", seed=0, default_runs=200)


def test_audit_panel_runs_several_pairs_and_shows_the_worst_with_its_ceiling():
    from streamlit.testing.v1 import AppTest

    at = AppTest.from_function(_panel_script, default_timeout=60)
    at.run()
    at.button(key="toy_audit_run").click().run()
    assert dataset_state(at, "toy_audit_job").wait(60)
    at.run()
    assert not at.exception
    bound = next(m for m in at.metric if m.label.startswith("Audited lower bound"))
    assert bound.value == "3.28" and bound.delta == "most these runs can show: 3.28"
    assert any("the audit saturates" in w.value for w in at.warning)
    assert any("VIOLATION" in e.value and "cannot show more than 3" in e.value for e in at.error)  # escaped
    assert at.expander[-1].label == "All 2 pairs audited (the worst is shown above)"
    rows = at.dataframe[0].value
    assert list(rows["shown above"]) == ["", "worst"] and list(rows["verdict"]) == ["no violation", "VIOLATION"]


def test_audit_chart_says_in_words_what_an_infinite_point_estimate_means():
    from dashboard.shared.widgets.audit_chart import UNBOUNDED_SHORT

    fig = audit_interval(claimed=1.0, lower=3.28, point=math.inf, ceiling=3.28, runs=200)
    assert fig.layout.annotations[-1].text == UNBOUNDED_SHORT
    assert "never on the other" in UNBOUNDED_SHORT
    assert UNBOUNDED_SHORT in fig.data[0].customdata


def test_audit_data_explains_inf_and_keeps_a_finite_estimate_as_a_number():
    from dashboard.shared.widgets.audit_chart import audit_data

    unbounded = audit_data(claimed=1.0, lower=4.9, point=math.inf).iloc[0]["point estimate in words"]
    assert unbounded.startswith("unbounded (inf)") and "number of runs" in unbounded
    assert audit_data(claimed=1.0, lower=0.4, point=0.7).iloc[0]["point estimate in words"] == "0.7"


def test_audit_result_point_text_explains_inf():
    from core.audit.result import AuditResult

    res = AuditResult(claimed_epsilon=1.0, claimed_delta=0.0, epsilon_lower=4.9, epsilon_point=math.inf, runs=1000,
                      threshold=0.5, direction="x", confidence=0.95, violation=True, seconds=1.0, description="d",
                      ceiling=4.9)
    assert res.point_text.startswith("Unbounded (inf): ") and "never on the other" in res.point_text
    assert res.to_dict()["point_text"] == res.point_text
