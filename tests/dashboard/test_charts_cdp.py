"""Chart builders of the paper-000 pages (pure functions, no streamlit)."""
from __future__ import annotations

import numpy as np
import pandas as pd

from core.cdp.dc_fbfs import DCFBFSResult
from dashboard.charts.cdp import (
    accuracy_bars,
    association_heatmap,
    curve_with_spread,
    importance_dc_bars,
    record_heatmap,
    sensitivity_bars,
    traversal_curves,
)


def _result():
    names = ["a", "b", "c"]
    return DCFBFSResult(
        names=names, importance=np.array([0.5, 0.3, 0.2]), dc=np.array([50.0, 5.0, 1.0]),
        data_correlation=100.0, correlation_without=np.array([50.0, 95.0, 99.0]),
        order=names, forward_accuracy=[0.7, 0.8, 0.78], backward_accuracy=[0.79, 0.81, 0.7],
        k1=2, k2=2, F_fb_del=["c"], F_c_del=["b", "c"], F_del=["c"], selected=["a", "b"], tc=10.0,
    )


def test_traversal_curves_mark_k1_and_k2():
    fig = traversal_curves(_result())
    names = [t.name for t in fig.data]
    assert "k1 = 2" in names and "k2 = 2" in names
    assert list(fig.data[0].y) == [0.7, 0.8, 0.78]


def test_importance_and_dc_bars_share_the_features():
    fig = importance_dc_bars(_result())
    assert list(fig.data[0].x) == ["a", "b", "c"] and list(fig.data[0].y) == [50.0, 5.0, 1.0]
    assert list(fig.data[1].y) == [0.5, 0.3, 0.2]


def test_accuracy_bars_show_the_mean_per_scheme():
    runs = pd.DataFrame({"scheme": ["G", "G", "P", "P"], "accuracy": [0.5, 0.7, 0.8, 0.8]})
    fig = accuracy_bars(runs, epsilon=2.5)
    assert list(fig.data[0].y) == [0.6, 0.8]
    assert "2.5" in fig.layout.title.text


def test_curve_with_spread_draws_a_band_and_a_line_per_group():
    summary = pd.DataFrame({
        "scheme": ["A", "A", "B", "B"], "epsilon": [1.0, 2.0, 1.0, 2.0],
        "accuracy_mean": [0.5, 0.6, 0.55, 0.7], "accuracy_std": [0.1, 0.1, np.nan, 0.05],
    })
    fig = curve_with_spread(summary, group="scheme", value="accuracy", title="t", y_title="acc", marker_x=1.5)
    assert len(fig.data) == 4
    assert list(fig.data[1].y) == [0.5, 0.6]
    assert fig.layout.shapes[0].x0 == 1.5


def test_heatmaps_and_sensitivity_bars_build():
    m = pd.DataFrame(np.eye(3), index=list("abc"), columns=list("abc"))
    assert association_heatmap(m, title="x").data[0].z.shape == (3, 3)
    assert record_heatmap(np.eye(4), threshold=0.8, measure="pearson").data[0].z.shape == (4, 4)
    assert list(sensitivity_bars(3.5, 5.0).data[0].y) + list(sensitivity_bars(3.5, 5.0).data[1].y) == [3.5, 5.0]
