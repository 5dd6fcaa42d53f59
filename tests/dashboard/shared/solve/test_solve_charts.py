"""dashboard.shared.solve.solve_charts: the target and the solved epsilons on a curve (pure figures)."""
from __future__ import annotations

import json
import math

import pandas as pd
import plotly.graph_objects as go
import pytest

from core.decide import Target, solve_epsilon
from dashboard.shared.solve.solve_charts import (
    TARGET_COLOR, mark_solutions, marked_points, solution_curve, solution_curve_data,
)
from dashboard.shared.solve.solve_panel import Mark
from tests.dashboard.shared.widgets.test_chart_data import chart_problems


def _curve(means: dict[float, tuple[float, ...]]) -> pd.DataFrame:
    return pd.DataFrame([{"epsilon": e, "value": v} for e, vs in means.items() for v in vs])


def _solution(method: str = "DP reading", target: float = 0.6):
    """Means 0.4, 0.5, 0.7, 0.8 at epsilon 0.5, 1, 2, 4 (three repetitions each, spread 0.01)."""
    curve = _curve({0.5: (0.39, 0.4, 0.41), 1.0: (0.49, 0.5, 0.51), 2.0: (0.69, 0.7, 0.71), 4.0: (0.79, 0.8, 0.81)})
    return solve_epsilon(curve, Target("accuracy", at_least=target), method=method)


def _fig(log_y: bool = False) -> go.Figure:
    return go.Figure(go.Scatter(x=[0.5, 4.0], y=[0.4, 0.8], mode="lines+markers", name="curve"),
                     layout=dict(title="t", xaxis=dict(type="log", title="epsilon"),
                                 yaxis=dict(type="log" if log_y else "linear", title="accuracy")))


def test_marked_points_skip_an_answer_without_epsilon_and_keep_the_interval():
    met, never = _solution(), _solution("Zhang", target=0.95)
    assert never.epsilon is None
    (point,) = marked_points([met, never])
    assert point["method"] == "DP reading" and point["epsilon"] == pytest.approx(met.epsilon)
    assert point["low"] == pytest.approx(met.epsilon_low) and point["high"] == pytest.approx(met.epsilon_high)


def test_an_unknown_or_infinite_end_is_drawn_at_the_epsilon_itself():
    (point,) = marked_points([Mark("kRR", 2.0, None, math.inf)])
    assert point["low"] == point["high"] == 2.0


def test_mark_solutions_draws_the_target_line_and_one_diamond_per_answer():
    met = _solution()
    fig = mark_solutions(_fig(), [met, _solution("Zhang", target=0.95)], target_value=0.6,
                         target_text="accuracy at least 0.6")
    (line,) = [s for s in fig.layout.shapes if s.type == "line"]
    assert line.y0 == line.y1 == 0.6 and line.line.color == TARGET_COLOR and line.line.dash == "dash"
    assert fig.layout.annotations[0].text == "target: accuracy at least 0.6"
    diamonds = [t for t in fig.data if t.marker.symbol == "diamond"]
    assert [t.x[0] for t in diamonds] == [pytest.approx(met.epsilon)] and diamonds[0].y[0] == 0.6
    (band,) = [s for s in fig.layout.shapes if s.type == "rect"]
    assert (band.x0, band.x1) == (pytest.approx(met.epsilon_low), pytest.approx(met.epsilon_high))


def test_a_target_of_zero_has_no_line_on_a_log_axis():
    fig = mark_solutions(_fig(log_y=True), [Mark("DP reading", 1.0)], target_value=0.0, target_text="MAE at most 0")
    assert not [s for s in fig.layout.shapes if s.type == "line"] and not fig.layout.annotations
    assert [t.marker.symbol for t in fig.data[1:]] == ["diamond"]


def test_a_log_y_target_annotation_sits_at_its_log10():
    fig = mark_solutions(_fig(log_y=True), [], target_value=100.0, target_text="MAE at most 100")
    assert fig.layout.annotations[0].y == pytest.approx(2.0)


def test_a_user_name_in_the_target_is_escaped():
    fig = mark_solutions(_fig(), [], target_value=0.1, target_text="advantage (<b>x</b>) at most 0.1")
    assert "<b>" not in fig.layout.annotations[0].text


def test_solution_curve_draws_each_method_with_a_grid_on_a_log_axis():
    takes_none = solve_epsilon(_curve({1.0: (0.5, 0.6)}), Target("accuracy", at_least=0.9), method="x")
    empty = type(takes_none)(**{**takes_none.__dict__, "method": "MDAV", "grid": (), "means": (), "lows": (),
                                "highs": ()})
    fig = solution_curve([_solution(), empty], title="Accuracy against epsilon", y_title="accuracy")
    lines = [t for t in fig.data if t.mode == "lines+markers"]
    assert [t.name for t in lines] == ["DP reading"] and list(lines[0].x) == [0.5, 1.0, 2.0, 4.0]
    assert fig.layout.xaxis.type == "log"
    assert chart_problems(json.loads(fig.to_json())) == []


def test_solution_curve_data_lists_the_points_and_the_solved_epsilon():
    s = _solution()
    data = solution_curve_data([s])
    curve, solved = data[data["point"] == "curve"], data[data["point"] == "solved epsilon"]
    assert list(curve["epsilon"]) == [0.5, 1.0, 2.0, 4.0] and list(curve["mean"]) == pytest.approx([0.4, 0.5, 0.7, 0.8])
    assert solved["epsilon"].iloc[0] == pytest.approx(s.epsilon)
