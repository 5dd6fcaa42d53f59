"""The audit beside every DP point on the Compare page, its chart, its report and its CSV (issue 26).

The chart tests use a hand-made summary (charts are pure functions); the table, report and
CSV tests one small comparison audited at 100 runs per side, and the same result with one
audit turned into a violation.
"""
from __future__ import annotations

import dataclasses
import io

import numpy as np
import pandas as pd
import pytest

from core.compare.config import config_from_result
from core.compare.run import compare
from core.data import load_sample
from dashboard.compare.cached import AUDIT_COLUMN, audit_caption, table_rows, violations
from dashboard.compare.charts import VIOLATION_MARKER, frontier_chart
from dashboard.compare.report import build_report, summary_csv

RUNS = 100


def _summary(violation: bool) -> pd.DataFrame:
    rows = [
        # method, epsilon, is_dp, utility, risk, claim, lower, ceiling, violation
        ("Raw table", np.nan, False, 0.85, 0.20, np.nan, np.nan, np.nan, None),
        ("IDP-KMeans", 1.0, True, 0.60, 0.01, 1.0, 1.8 if violation else 0.2, 4.2, violation),
        ("IDP-KMeans", 8.0, True, 0.70, 0.03, 8.0, 2.0, 4.2, False),
    ]
    return pd.DataFrame([{"method": m, "epsilon": e, "is_dp": dp, "utility_mean": u, "utility_std": 0.0,
                          "ai_advantage_mean": r, "ai_advantage_std": 0.0, "audit_claim": c, "audit_lower": lo,
                          "audit_ceiling": ce, "audit_violation": v} for m, e, dp, u, r, c, lo, ce, v in rows])


# ----------------------------------------------------------------------------- the chart
def test_a_violation_is_a_distinct_marker_with_its_legend_entry():
    fig = frontier_chart(_summary(True), risk="ai_advantage")
    marks = [t for t in fig.data if t.name == VIOLATION_MARKER]
    assert len(marks) == 1
    assert list(marks[0].x) == [0.01] and list(marks[0].y) == [0.60]  # only the violating point
    assert marks[0].marker.symbol == "circle-x-open" and marks[0].showlegend is not False
    method_symbols = {t.marker.symbol for t in fig.data if t.name in ("Raw table", "IDP-KMeans")}
    assert "circle-x-open" not in method_symbols


def test_no_violation_no_marker():
    fig = frontier_chart(_summary(False), risk="ai_advantage")
    assert VIOLATION_MARKER not in [t.name for t in fig.data]


def test_each_dp_points_hover_says_its_audit():
    fig = frontier_chart(_summary(True), risk="ai_advantage")
    idp = next(t for t in fig.data if t.name == "IDP-KMeans")
    assert "audit: lower bound 1.8 for the claim 1 (ceiling 4.2): VIOLATION" in idp.hovertext[0]
    assert "the audit cannot test this claim" in idp.hovertext[1]
    raw = next(t for t in fig.data if t.name == "Raw table")
    assert "audit" not in raw.hovertext[0]


def test_a_summary_without_audit_columns_draws_as_before():
    plain = _summary(True).drop(columns=["audit_claim", "audit_lower", "audit_ceiling", "audit_violation"])
    assert VIOLATION_MARKER not in [t.name for t in frontier_chart(plain, risk="ai_advantage").data]


# ----------------------------------------------------------------------------- table, report, CSV
@pytest.fixture(scope="module")
def result():
    return compare(load_sample("census"), methods=["Raw table", "kRR", "CDP-LR"], epsilons=[1.0, 8.0],
                   repetitions=1, max_rows=300, random_state=0, audit_runs=RUNS)


@pytest.fixture(scope="module")
def violated(result):
    """The same result with CDP-LR's audit at epsilon 1 a violation."""
    audits = result.audits.copy()
    at = audits.index[(audits["method"] == "CDP-LR") & (audits["epsilon"] == 1.0)][0]
    audits.loc[at, ["audit_lower", "audit_verdict"]] = [1.9, "VIOLATION: the audited lower bound 1.9 exceeds 1."]
    audits.at[at, "audit_violation"] = True
    return dataclasses.replace(result, audits=audits)


def test_the_table_shows_claim_lower_bound_ceiling_and_verdict(result):
    rows = table_rows(result).set_index(["method", "epsilon (setting)"], drop=False)
    for col in ("claimed epsilon", "audited lower bound", "audit ceiling", AUDIT_COLUMN):
        assert col in rows
    cdp = rows[rows["method"] == "CDP-LR"]
    assert (cdp["audited lower bound"] <= cdp["audit ceiling"]).all() and (cdp["claimed epsilon"] == [1.0, 8.0]).all()
    assert cdp[AUDIT_COLUMN].iloc[1].startswith("the audit cannot test this claim")
    krr = rows[rows["method"] == "kRR"]
    assert (krr[AUDIT_COLUMN] == "not audited: not DP, its epsilon is nominal").all()


def test_a_violation_is_named_in_words(violated, result):
    assert violations(result) == []
    (text,) = violations(violated)
    assert text.startswith("CDP-LR at epsilon 1: VIOLATION") and "Worst pair: CDP-LR" in text


def test_the_caption_says_runs_ceiling_and_time(result):
    text = audit_caption(result)
    assert "2 DP point(s), 100 runs per side each (ceiling 2.57)" in text and " s a point" in text


def test_no_audit_says_so(result):
    empty = dataclasses.replace(result, audits=result.audits.iloc[0:0],
                                parameters={**result.parameters, "audit_runs": 0})
    assert audit_caption(empty) == "No privacy audit was run (audit runs 0)."
    assert (table_rows(empty).loc[lambda t: t["method"] == "CDP-LR", AUDIT_COLUMN]
            == "not audited (audit runs 0)").all()
    assert "No privacy audit was run" in build_report(empty, config=config_from_result(empty))


def test_the_summary_csv_has_the_audit_columns(result):
    csv = pd.read_csv(io.StringIO(summary_csv(result)))
    for col in ("audit_claim", "audit_lower", "audit_ceiling", "audit_runs", "audit_violation", "audit_verdict"):
        assert col in csv.columns
    cdp = csv[csv["method"] == "CDP-LR"]
    assert (cdp["audit_runs"] == RUNS).all() and (cdp["audit_lower"] <= cdp["audit_ceiling"]).all()
    assert csv.loc[csv["method"] == "kRR", "audit_lower"].isna().all()


def test_the_report_has_the_audit_section_and_the_table_columns(result):
    html = build_report(result, config=config_from_result(result), created="2026-01-01T00:00:00+00:00")
    assert "<h2>Privacy audit beside every DP point</h2>" in html
    assert "<th>audited lower bound</th>" in html and "<th>audit ceiling</th>" in html
    assert "the audit cannot test this claim with 100 runs" in html and "VIOLATION" not in html


def test_the_report_says_a_violation_under_the_frontier(violated):
    html = build_report(violated, config=config_from_result(violated), created="2026-01-01T00:00:00+00:00")
    frontier = html.index("<h2>Frontier</h2>")
    box = html.index('<p class="takeaway">CDP-LR at epsilon 1: VIOLATION')
    assert frontier < box < html.index("<h2>References</h2>")
    assert "1.9 VIOLATION" in html  # the table's lower bound cell


def test_the_page_caps_its_audits_in_time_and_says_so_in_the_help(monkeypatch):
    from dashboard.compare import cached

    seen = {}
    monkeypatch.setattr(cached, "compare", lambda *a, **kw: seen.update(kw))
    cached._compare(None, dataset=None, methods=("CDP-LR",), epsilons=(1.0,), repetitions=1, max_rows=None,
                    epochs=None, seed=0)
    assert seen["audit_seconds"] == cached.AUDIT_CAP_S
    assert f"stop after {cached.AUDIT_CAP_S:.0f} s" in cached.audit_help()
