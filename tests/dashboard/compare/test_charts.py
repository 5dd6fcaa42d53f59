"""The Compare page's frontier chart, built from a hand-made summary."""
from __future__ import annotations

import numpy as np
import pandas as pd

from dashboard.compare.charts import frontier_chart


def _summary() -> pd.DataFrame:
    rows = [
        # method, epsilon, is_dp, utility, utility sd, risk, risk sd
        ("Raw table", np.nan, False, 0.85, 0.0, 0.20, 0.0),
        ("kRR", 0.5, False, 0.70, 0.02, 0.01, 0.01),
        ("kRR", 2.0, False, 0.78, 0.01, 0.05, 0.01),
        ("IDP-KMeans", 1.0, True, 0.60, 0.03, 0.00, 0.00),
        ("CDP-LR", 1.0, True, 0.84, 0.00, np.nan, np.nan),  # a model: no attribute-inference risk
    ]
    return pd.DataFrame([{"method": m, "epsilon": e, "is_dp": dp, "utility_mean": u, "utility_std": us,
                          "ai_advantage_mean": r, "ai_advantage_std": rs} for m, e, dp, u, us, r, rs in rows])


def test_one_series_per_method_with_a_measured_risk():
    fig = frontier_chart(_summary(), risk="ai_advantage")
    names = [t.name for t in fig.data]
    assert names == ["Raw table", "kRR", "IDP-KMeans"]  # CDP-LR has no attribute-inference risk
    krr = fig.data[1]
    assert list(krr.x) == [0.01, 0.05] and list(krr.y) == [0.70, 0.78]  # by increasing epsilon
    assert list(krr.text) == ["0.5", "2"]


def test_dp_releases_are_filled_and_the_others_crosses():
    fig = frontier_chart(_summary())
    symbols = {t.name: t.marker.symbol for t in fig.data}
    assert symbols["IDP-KMeans"] == "circle" and symbols["Raw table"] == "x"


def test_whiskers_are_the_standard_deviations():
    krr = frontier_chart(_summary()).data[1]
    assert list(krr.error_y.array) == [0.02, 0.01] and list(krr.error_x.array) == [0.01, 0.01]


def test_the_pareto_front_is_drawn_through_its_points():
    front = _summary().iloc[[3, 1, 2, 0]]
    fig = frontier_chart(_summary(), front)
    line = fig.data[-1]
    assert line.name == "Pareto front" and list(line.x) == [0.0, 0.01, 0.05, 0.20]
    assert "attribute-inference" in fig.layout.xaxis.title.text


def _references(power=True):
    return {"utility": {"majority": 0.8, "nonprivate": 0.86},
            "risks": {"ai_advantage": {"raw": 0.2, "control": 0.0, "power": power}}}


def test_reference_lines_for_the_constant_guess_and_the_non_private_model():
    fig = frontier_chart(_summary(), references=_references())
    lines = {t.name: t for t in fig.data}
    guess, model = lines["majority class (constant guess)"], lines["non-private model"]
    assert set(guess.y) == {0.8} and guess.line.dash == "dash"
    assert set(model.y) == {0.86} and model.line.dash == "dot"
    assert min(guess.x) <= 0.0 and max(guess.x) >= 0.2  # across every point


def test_reference_lines_for_the_raw_table_and_the_control():
    fig = frontier_chart(_summary(), references=_references())
    lines = {t.name: t for t in fig.data}
    assert set(lines["raw table (no protection)"].x) == {0.2}
    assert set(lines["control (no more than without the release)"].x) == {0.0}


def test_no_reference_lines_without_references_or_for_another_utility():
    assert len(frontier_chart(_summary()).data) == 3
    fig = frontier_chart(_summary().assign(tv_one_way_mean=0.1), utility="tv_one_way", references=_references())
    assert "majority class (constant guess)" not in {t.name for t in fig.data}
