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
    assert list(sensitivity_bars(3.5, 5.0).data[0].y) == [3.5, 5.0]


# ----------------------------------------------------------- browser-review fixes

from dashboard.palette import color, noise_method_label  # noqa: E402


def _summary(groups, epsilons=(0.1, 0.2, 0.5, 1.0, 2.0, 5.0, 10.0)):
    rows = [{"scheme": g, "epsilon": e, "accuracy_mean": 0.6, "accuracy_std": 0.01}
            for g in groups for e in epsilons]
    return pd.DataFrame(rows)


def test_bars_and_curve_give_each_scheme_the_same_palette_colour():
    schemes = ["Non-private", "Group", "Zhang", "Proposed"]
    runs = pd.DataFrame({"scheme": schemes, "accuracy": [0.8, 0.5, 0.55, 0.6]})
    bars = accuracy_bars(runs, epsilon=2.0)
    # the curve's groups in another order: colours follow the name, not the position
    curve = curve_with_spread(_summary(schemes[::-1]), group="scheme", value="accuracy", title="t",
                              y_title="acc")
    bar_colour = dict(zip(bars.data[0].x, bars.data[0].marker.color))
    line_colour = {t.name: t.line.color for t in curve.data if t.showlegend is not False}
    assert bar_colour == line_colour == {s: color(s) for s in schemes}
    assert len(set(bar_colour.values())) == 4


def test_accuracy_labels_sit_at_the_base_clear_of_the_whiskers():
    runs = pd.DataFrame({"scheme": ["Zhang", "Zhang", "Proposed", "Proposed"], "accuracy": [0.5, 0.7, 0.8, 0.8]})
    bar = accuracy_bars(runs, epsilon=1.0).data[0]
    assert bar.textposition == "inside" and bar.insidetextanchor == "start"


def test_log_epsilon_axis_has_readable_ticks_over_the_whole_range():
    fig = curve_with_spread(_summary(["Zhang"]), group="scheme", value="accuracy", title="t",
                            y_title="acc", log_x=True, marker_x=0.3)
    assert fig.layout.xaxis.type == "log"
    assert list(fig.layout.xaxis.ticktext) == ["0.1", "0.2", "0.5", "1", "2", "5", "10"]
    assert fig.layout.shapes[0].x0 == 0.3


def test_noise_methods_are_named_in_the_legend():
    summary = _summary([1, 4]).rename(columns={"scheme": "method"})
    fig = curve_with_spread(summary, group="method", value="accuracy", title="t", y_title="acc",
                            labels={m: noise_method_label(m) for m in (1, 4)})
    names = [t.name for t in fig.data if t.showlegend is not False]
    assert names[0] == "1: Laplace on the mean gradient"
    assert fig.data[1].line.color == color(1) != color(4)


def test_dc_and_importance_are_two_panels_with_a_readable_tc():
    fig = importance_dc_bars(_result())
    assert fig.data[0].yaxis != fig.data[1].yaxis
    assert fig.layout.yaxis2.overlaying is None  # no bars drawn over each other
    assert any("T_c = 10" == a.text for a in fig.layout.annotations)


def test_every_chart_has_a_title_and_named_axes():
    runs = pd.DataFrame({"scheme": ["Zhang"], "accuracy": [0.5]})
    m = pd.DataFrame(np.eye(3), index=list("abc"), columns=list("abc"))
    figs = [accuracy_bars(runs, epsilon=1.0), traversal_curves(_result()), importance_dc_bars(_result()),
            sensitivity_bars(1639.0, 2000.0), association_heatmap(m, title="assoc"),
            record_heatmap(np.eye(4), threshold=0.8, measure="pearson"),
            curve_with_spread(_summary(["Zhang"]), group="scheme", value="accuracy", title="t", y_title="acc")]
    for fig in figs:
        assert fig.layout.title.text, fig
        assert _axis_titles(fig, "xaxis") and _axis_titles(fig, "yaxis"), fig.layout.title.text


def _axis_titles(fig, kind: str) -> list[str]:
    """Titles of every x (or y) axis of a figure, subplots included."""
    return [fig.layout[k].title.text for k in fig.layout if k.startswith(kind) and fig.layout[k].title.text]


def test_numbers_have_thousands_separators_and_no_trailing_zeros():
    from dashboard.charts import number

    assert list(sensitivity_bars(3.5, 1639.0).data[0].text) == ["3.5", "1,639"]
    assert number(1639.0) == "1,639" and number(12345.678) == "12,345.68"
