"""The solve panel and charts on a risk target: its answer reads "up to epsilon X", not "from"."""
from __future__ import annotations

import pandas as pd
import plotly.graph_objects as go
import pytest

from core.decide import Target, solve_epsilon
from dashboard.shared.solve.solve_charts import mark_solutions, marked_points, solution_curve_data
from dashboard.shared.solve.solve_panel import snap_down, solution_rows

#: an attack's advantage growing with epsilon: 0.01, 0.02, 0.03 at epsilon 1, 2, 4
RISK = pd.DataFrame([{"epsilon": e, "value": v + d} for e, v in ((1.0, 0.01), (2.0, 0.02), (4.0, 0.03))
                     for d in (-0.001, 0.0, 0.001)])


def _risk(target: float = 0.025):
    return solve_epsilon(RISK, Target("ai_advantage", at_most=target), method="MST")


def test_a_risk_answer_reads_up_to_its_epsilon():
    row = solution_rows([_risk()]).iloc[0]
    assert row["meets the target"] == f"up to epsilon {row['epsilon']:.3g}"


def test_a_risk_met_everywhere_reads_at_or_above_the_largest_epsilon():
    row = solution_rows([_risk(target=0.5)]).iloc[0]
    assert row["meets the target"] == "at or above 4 (the largest tried)"


def test_snap_down_rounds_a_risk_answer_down_to_an_offered_epsilon():
    assert snap_down(2.83, [0.5, 1, 2, 4]) == 2.0 and snap_down(2.0, [0.5, 1, 2, 4]) == 2.0


def test_snap_down_gives_the_smallest_option_below_the_range():
    assert snap_down(0.1, [0.5, 1]) == 0.5


def test_the_mark_of_a_risk_stays_at_its_epsilon_and_says_up_to():
    sol = _risk()
    (point,) = marked_points([sol])
    assert point["epsilon"] == pytest.approx(sol.epsilon) and point["direction"] == "up_to"
    fig = mark_solutions(go.Figure(), [sol], target_value=0.025, target_text=sol.target.describe())
    (diamond,) = [t for t in fig.data if t.marker.symbol == "diamond"]
    assert diamond.x[0] == pytest.approx(sol.epsilon) and "up to epsilon" in diamond.hovertemplate


def test_the_chart_data_says_the_risk_is_met_up_to_the_solved_epsilon():
    data = solution_curve_data([_risk()])
    solved = data[data["point"] == "solved epsilon"]
    assert solved["meets the target"].iloc[0] == "up to this epsilon"
