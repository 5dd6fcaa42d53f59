"""dashboard.tour.report: the Tour as one offline HTML page."""
from __future__ import annotations

import pandas as pd
import plotly.graph_objects as go
import pytest

from core.claims.claim import Claim
from dashboard.tour.steps import STEPS, StepView
from dashboard.tour.report import build_tour_report
from tests.dashboard.test_report import assert_offline_html

EVIL = "<script>alert(1)</script>"


def _views():
    fig = go.Figure(go.Scatter(x=[1, 2], y=[3, 4]))
    fig.update_layout(title="t")
    view = StepView(fig, pd.DataFrame({"x": [1, 2], "y": [3, 4]}), "chart", facts=[f"fact {EVIL}"],
                    claim=Claim("Paper 000, Fig. 4", "paper says", False, f"finding {EVIL}"))
    return [(STEPS[0], StepView()), (STEPS[1], view)]


def test_report_is_offline_and_complete():
    html = build_tour_report(_views(), created="2026-01-01T00:00:00+00:00")
    assert_offline_html(html)
    assert "Does not hold here" in html and "paper says" in html
    assert STEPS[1].title in html and "step 2 of 2" in html


def test_every_text_is_escaped():
    html = build_tour_report(_views(), created="x")
    assert EVIL not in html and "&lt;script&gt;alert(1)&lt;/script&gt;" in html


def test_a_fixed_time_gives_the_same_page():
    assert build_tour_report(_views(), created="x") == build_tour_report(_views(), created="x")


def test_views_must_be_step_and_view_pairs():
    with pytest.raises(TypeError, match="TourStep, StepView"):
        build_tour_report([("welcome", StepView())])
