"""Chart builders of the paper-000 pages (pure functions, no streamlit)."""
from __future__ import annotations

import numpy as np
import pandas as pd
import plotly.graph_objects as go
import pytest

from core.cdp.dc_fbfs import DCFBFSResult
from dashboard.cdp.charts import (
    accuracy_bars,
    association_heatmap,
    curve_with_spread,
    importance_dc_bars,
    record_heatmap,
    sensitivity_bars,
    traversal_curves,
)
from dashboard.shared.widgets.palette import color, noise_method_label


def _result():
    names = ["a", "b", "c"]
    return DCFBFSResult(
        names=names, importance=np.array([0.5, 0.3, 0.2]), dc=np.array([50.0, 5.0, 1.0]),
        data_correlation=100.0, correlation_without=np.array([50.0, 95.0, 99.0]),
        order=names, forward_accuracy=[0.7, 0.8, 0.78], backward_accuracy=[0.79, 0.81, 0.7],
        k1=2, k2=2, F_fb_del=["c"], F_c_del=["b", "c"], F_del=["c"], selected=["a", "b"], tc=10.0,
    )


def _by_name(fig) -> dict:
    """{trace name: (x list, y list)} of a figure."""
    return {t.name: (list(t.x), list(t.y)) for t in fig.data}


def test_traversal_curves_draw_both_traversals_over_k():
    fig = _by_name(traversal_curves(_result()))
    assert fig["forward (top-k)"] == ([1, 2, 3], [0.7, 0.8, 0.78])
    assert fig["backward (top n+1-k)"] == ([1, 2, 3], [0.79, 0.81, 0.7])


def test_traversal_curves_mark_k1_and_k2_on_their_curves():
    fig = traversal_curves(_result())
    drawn = _by_name(fig)
    assert drawn["k1 = 2"] == ([2], [0.8])  # forward accuracy at k1
    assert drawn["k2 = 2"] == ([2], [0.81])  # backward accuracy at k2
    colours = {t.name: (t.line.color if t.mode != "markers" else t.marker.color) for t in fig.data}
    assert colours["k1 = 2"] == colours["forward (top-k)"] != colours["k2 = 2"] == colours["backward (top n+1-k)"]


def test_importance_and_dc_bars_share_the_features():
    fig = importance_dc_bars(_result())
    assert list(fig.data[0].x) == ["a", "b", "c"] and list(fig.data[0].y) == [50.0, 5.0, 1.0]
    assert list(fig.data[1].y) == [0.5, 0.3, 0.2]


def test_accuracy_bars_show_the_mean_per_scheme():
    runs = pd.DataFrame({"scheme": ["G", "G", "P", "P"], "accuracy": [0.5, 0.7, 0.8, 0.8]})
    fig = accuracy_bars(runs, epsilon=2.5)
    assert list(fig.data[0].x) == ["G", "P"]  # in the order of the runs
    assert list(fig.data[0].y) == [0.6, 0.8]
    assert list(fig.data[0].text) == ["0.600", "0.800"]
    assert fig.layout.title.text == "Accuracy at epsilon = 2.5"


def test_accuracy_bars_whisker_is_the_std_of_the_runs():
    runs = pd.DataFrame({"scheme": ["G", "G", "P"], "accuracy": [0.5, 0.7, 0.8]})
    whisker = accuracy_bars(runs, epsilon=1.0).data[0].error_y
    np.testing.assert_allclose(list(whisker.array), [np.std([0.5, 0.7], ddof=1), 0.0])  # one run: no whisker


def test_curve_with_spread_draws_the_mean_of_each_group_over_sorted_epsilon():
    summary = pd.DataFrame({
        "scheme": ["A", "A", "B", "B"], "epsilon": [2.0, 1.0, 1.0, 2.0],
        "accuracy_mean": [0.6, 0.5, 0.55, 0.7], "accuracy_std": [0.1, 0.1, np.nan, 0.05],
    })
    fig = curve_with_spread(summary, group="scheme", value="accuracy", title="t", y_title="acc")
    lines = {t.name: (list(t.x), list(t.y)) for t in fig.data if t.showlegend is not False}
    assert lines == {"A": ([1.0, 2.0], [0.5, 0.6]), "B": ([1.0, 2.0], [0.55, 0.7])}


def test_curve_with_spread_band_spans_one_std_around_the_mean():
    summary = pd.DataFrame({
        "scheme": ["A", "A", "B", "B"], "epsilon": [1.0, 2.0, 1.0, 2.0],
        "accuracy_mean": [0.5, 0.6, 0.55, 0.7], "accuracy_std": [0.1, 0.1, np.nan, 0.05],
    })
    fig = curve_with_spread(summary, group="scheme", value="accuracy", title="t", y_title="acc")
    band_a, line_a, band_b, _ = fig.data
    assert band_a.fill == "toself" and band_a.showlegend is False and band_a.fillcolor == line_a.line.color
    assert list(band_a.x) == [1.0, 2.0, 2.0, 1.0]
    np.testing.assert_allclose(list(band_a.y), [0.6, 0.7, 0.5, 0.4])  # upper left to right, lower back
    np.testing.assert_allclose(list(band_b.y), [0.55, 0.75, 0.65, 0.55])  # a missing std is 0


def test_curve_with_spread_marks_the_slider_value():
    fig = curve_with_spread(_summary(["Zhang"]), group="scheme", value="accuracy", title="t",
                            y_title="acc", marker_x=1.5)
    assert [(s.x0, s.x1, s.xref, s.yref) for s in fig.layout.shapes] == [(1.5, 1.5, "x", "paper")]
    assert [(a.x, a.text) for a in fig.layout.annotations] == [(1.5, "epsilon = 1.5")]
    assert not curve_with_spread(_summary(["Zhang"]), group="scheme", value="accuracy", title="t",
                                 y_title="acc").layout.shapes


def test_curve_with_spread_log_y_keeps_the_band_above_zero():
    summary = pd.DataFrame({"scheme": ["A", "A"], "epsilon": [1.0, 2.0], "mae_mean": [5.0, 1.0],
                            "mae_std": [10.0, 0.5]})
    fig = curve_with_spread(summary, group="scheme", value="mae", title="t", y_title="MAE", log_y=True)
    assert fig.layout.yaxis.type == "log"
    np.testing.assert_allclose(list(fig.data[0].y), [15.0, 1.5, 0.5, 1e-9])
    assert fig.layout.xaxis.type is None or fig.layout.xaxis.type == "-"  # linear x unless asked


def test_curve_with_spread_dashes_a_mahalanobis_group():
    summary = _summary(["Zhang (pearson)", "Zhang (mahalanobis)"])
    fig = curve_with_spread(summary, group="scheme", value="accuracy", title="t", y_title="acc")
    dashes = {t.name: t.line.dash for t in fig.data if t.showlegend is not False}
    assert dashes == {"Zhang (pearson)": "solid", "Zhang (mahalanobis)": "dash"}
    assert {t.line.color for t in fig.data if t.showlegend is not False} == {color("Zhang")}


def test_association_heatmap_draws_the_matrix_with_its_attributes():
    m = pd.DataFrame([[1.0, 0.5, 0.0], [0.5, 1.0, 0.2], [0.0, 0.2, 1.0]], index=list("abc"), columns=list("abc"))
    fig = association_heatmap(m, title="assoc")
    np.testing.assert_array_equal(fig.data[0].z, m.to_numpy())
    assert list(fig.data[0].x) == list(fig.data[0].y) == ["a", "b", "c"]
    assert (fig.layout.coloraxis.cmin, fig.layout.coloraxis.cmax) == (0, 1)
    assert fig.layout.title.text == "assoc"


def test_record_heatmap_draws_the_matrix_and_names_measure_threshold_and_size():
    matrix = np.array([[1.0, 0.9, 0.0, 0.0], [0.9, 1.0, 0.0, 0.0], [0.0, 0.0, 1.0, 0.85], [0.0, 0.0, 0.85, 1.0]])
    fig = record_heatmap(matrix, threshold=0.8, measure="pearson")
    np.testing.assert_array_equal(fig.data[0].z, matrix)
    assert fig.layout.title.text == "Record correlation (pearson, delta0 = 0.8) of 4 records"


def test_sensitivity_bars_draw_cs_beside_gs_in_their_scheme_colours():
    bar = sensitivity_bars(3.5, 5.0).data[0]
    assert list(bar.x) == ["Correlated (CS)", "Group (GS)"] and list(bar.y) == [3.5, 5.0]
    assert list(bar.marker.color) == [color("Proposed"), color("Group")]


# ----------------------------------------------------------- browser-review fixes



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
    assert fig.layout.annotations[0].x == pytest.approx(np.log10(0.3))  # annotations sit in log units


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


def test_dc_panel_draws_the_tc_line_at_tc():
    fig = importance_dc_bars(_result())
    assert [(s.y0, s.y1, s.yref) for s in fig.layout.shapes] == [(10.0, 10.0, "y")]
    assert fig.data[0].yaxis == "y" and fig.data[1].yaxis == "y2"  # DC above, importance below


@pytest.mark.parametrize("build, title, x_title, y_title", [
    (lambda: accuracy_bars(pd.DataFrame({"scheme": ["Zhang"], "accuracy": [0.5]}), epsilon=1.0),
     "Accuracy at epsilon = 1", "scheme", "test accuracy"),
    (lambda: traversal_curves(_result()), "Forward and backward traversal (Fig. 3)", "step k",
     "cross-validated accuracy"),
    (lambda: importance_dc_bars(_result()), "DC and feature importance per attribute (Fig. 2)", "attribute",
     "DC"),
    (lambda: sensitivity_bars(1639.0, 2000.0), "Count-query sensitivity: CS vs GS", "sensitivity", "value"),
    (lambda: association_heatmap(pd.DataFrame(np.eye(2), index=list("ab"), columns=list("ab")), title="assoc"),
     "assoc", "attribute", "attribute"),
    (lambda: record_heatmap(np.eye(4), threshold=0.8, measure="pearson"),
     "Record correlation (pearson, delta0 = 0.8) of 4 records", "record", "record"),
    (lambda: curve_with_spread(_summary(["Zhang"]), group="scheme", value="accuracy", title="t", y_title="acc"),
     "t", "epsilon", "acc"),
    (lambda: curve_with_spread(_summary(["Zhang"]), group="scheme", value="accuracy", title="t", y_title="acc",
                               x_title="epsilon per query"), "t", "epsilon per query", "acc"),
])
def test_every_chart_has_its_title_and_named_axes(build, title, x_title, y_title):
    fig = build()
    assert fig.layout.title.text == title
    assert x_title in _axis_titles(fig, "xaxis") and y_title in _axis_titles(fig, "yaxis")


def _axis_titles(fig, kind: str) -> list[str]:
    """Titles of every x (or y) axis of a figure, subplots included."""
    return [fig.layout[k].title.text for k in fig.layout if k.startswith(kind) and fig.layout[k].title.text]


def test_numbers_have_thousands_separators_and_no_trailing_zeros():
    from dashboard.shared.widgets.charts import number

    assert list(sensitivity_bars(3.5, 1639.0).data[0].text) == ["3.5", "1,639"]
    assert number(1639.0) == "1,639" and number(12345.678) == "12,345.68"


def test_curve_with_baseline_draws_dpsgd_dash_dot_in_its_palette_colour():
    import pandas as pd

    from dashboard.cdp.charts import curve_with_baseline
    from dashboard.shared.widgets.palette import COLORS

    def summary(name):
        return pd.DataFrame({"scheme": name, "epsilon": [0.5, 1.0], "accuracy_mean": [0.7, 0.8],
                             "accuracy_std": [0.01, 0.02]})

    fig = curve_with_baseline(summary("Proposed"), summary("DP-SGD (ordinary DP)"), group="scheme",
                              value="accuracy", title="t", y_title="acc", log_x=True)
    lines = {t.name: t for t in fig.data if t.mode == "lines+markers"}
    assert lines["DP-SGD (ordinary DP)"].line.dash == "dashdot" and lines["Proposed"].line.dash == "solid"
    assert lines["DP-SGD (ordinary DP)"].line.color == COLORS["DP-SGD"]
    assert len(curve_with_baseline(summary("Proposed"), None, group="scheme", value="accuracy",
                                   title="t", y_title="acc").data) == 2


def _fig1_table():
    return pd.DataFrame({"features": [1, 2, 3, 4], "added feature": ["a", "b", "c", "d"],
                         "C(x)": [np.nan, 9000.0, 400.0, 30.0]})


def test_feature_count_curve_draws_its_table():
    from dashboard.cdp.charts import feature_count_curve, feature_count_data

    table = _fig1_table()
    fig = feature_count_curve(table, measure="pearson", threshold=0.8, data_name="supplier")
    data = feature_count_data(table)
    assert list(fig.data[0].x) == data["number of features"].tolist() == [1, 2, 3, 4]
    np.testing.assert_array_equal(np.asarray(fig.data[0].y, dtype=float), data["data correlation C(x)"].to_numpy())
    assert data["feature added"].tolist() == ["a", "b", "c", "d"]


def test_feature_count_curve_has_a_standalone_title_and_named_axes():
    from dashboard.cdp.charts import feature_count_curve

    fig = feature_count_curve(_fig1_table(), measure="pearson", threshold=0.8, data_name="supplier")
    assert fig.layout.title.text == "Data correlation C(x) vs number of features on supplier (pearson, delta0 = 0.8; Fig. 1)"
    assert fig.layout.xaxis.title.text.startswith("number of features")
    assert fig.layout.yaxis.title.text == "C(x) (log scale)"  # 30 to 9,000: more than two decades


def test_a_dataset_name_in_a_title_shows_as_typed():
    from dashboard.cdp import charts as cdp

    assert cdp._on('<a href="http://x">y</a>.csv') == ' on &lt;a href="http://x"&gt;y&lt;/a&gt;.csv'


# --- references: the constant guess and the non-private model on every accuracy chart -----

def _references():
    from core.cdp.sweeps import constant_guess, model_reference

    return (constant_guess(np.array([0] * 90 + [1] * 10)), model_reference(0.92, 100))


def test_accuracy_bars_draw_the_constant_guess_dashed_and_the_model_dotted():
    runs = pd.DataFrame({"scheme": ["G", "G", "P", "P"], "accuracy": [0.5, 0.7, 0.4, 0.45]})
    fig = accuracy_bars(runs, epsilon=1.0, references=_references())
    lines = {s.name: s for s in fig.layout.shapes if s.type == "line"}
    guess, model = lines["majority class (constant guess)"], lines["non-private model"]
    assert guess.y0 == guess.y1 == pytest.approx(0.9) and guess.line.dash == "dash"
    assert model.y0 == pytest.approx(0.92) and model.line.dash == "dot"
    band = next(s for s in fig.layout.shapes if s.name == "majority class (constant guess): 95% interval")
    assert band.y0 < 0.9 < band.y1
    legend = {t.name.replace("<br>", " "): t for t in fig.data if t.showlegend is not False and t.name}
    assert legend["majority class (constant guess) 0.900"].line.dash == "dash"
    assert legend["non-private model 0.920"].line.dash == "dot"


def test_accuracy_bars_name_the_references_in_the_legend_not_over_the_bars():
    """A reference's name drawn at its line (an annotation in the plot) crossed the bar under it."""
    runs = pd.DataFrame({"scheme": ["G", "G", "P", "P"], "accuracy": [0.5, 0.7, 0.4, 0.45]})
    fig = accuracy_bars(runs, epsilon=1.0, references=_references())
    assert not fig.layout.annotations
    assert fig.layout.showlegend and fig.data[0].showlegend is False  # the bars are named on their axis


def test_accuracy_data_lists_each_scheme_interval_and_the_references():
    from dashboard.cdp.charts import accuracy_data

    runs = pd.DataFrame({"scheme": ["G", "G", "G"], "accuracy": [0.5, 0.6, 0.7]})
    data = accuracy_data(runs, epsilon=1.0, references=_references())
    assert list(data["scheme"]) == ["G", "reference: majority class (constant guess)",
                                    "reference: non-private model"]
    assert data.loc[0, "95% interval low"] < 0.6 < data.loc[0, "95% interval high"]
    assert data.loc[1, "mean test accuracy"] == pytest.approx(0.9)


def test_curve_with_spread_draws_the_references_across_the_grid_in_the_legend():
    fig = curve_with_spread(_summary(["Zhang"]), group="scheme", value="accuracy", title="t", y_title="acc",
                            references=_references())
    lines = {t.name: t for t in fig.data if t.name}
    guess = lines["majority class (constant guess)"]
    assert guess.line.dash == "dash" and list(guess.y) == pytest.approx([0.9, 0.9])
    assert lines["non-private model"].line.dash == "dot"


def test_a_zero_reference_is_left_off_a_log_axis():
    from core.cdp.sweeps import Reference

    summary = pd.DataFrame({"scheme": ["A", "A"], "epsilon": [1.0, 2.0], "mae_mean": [5.0, 1.0],
                            "mae_std": [1.0, 0.5]})
    refs = (Reference("mean true count", 80.0, np.nan, np.nan, 2), Reference("zero-noise release", 0.0,
                                                                            np.nan, np.nan, 2))
    fig = curve_with_spread(summary, group="scheme", value="mae", title="t", y_title="MAE", log_y=True,
                            references=refs)
    names = [t.name for t in fig.data if t.name]
    assert "mean true count" in names and "zero-noise release" not in names


def test_the_tc_line_gives_tc_as_a_share_of_its_range():
    fig = importance_dc_bars(_result(), tc_range=55.0)
    assert any(a.text == "T_c = 10 (18% of its range 0 to 55)" for a in fig.layout.annotations)


def test_curve_data_lists_the_references_flat_over_the_grid():
    from dashboard.cdp.charts import curve_data

    data = curve_data(_summary(["Zhang"]), group="scheme", value="accuracy", references=_references())
    guess = data[data["scheme"] == "reference: majority class (constant guess)"]
    assert list(guess["epsilon"]) == sorted(set(_summary(["Zhang"])["epsilon"]))
    assert guess["mean test accuracy"].tolist() == pytest.approx([0.9] * len(guess))
    assert guess["95% interval low"].lt(0.9).all()


def test_traversal_curves_draw_the_constant_guess():
    from core.cdp.sweeps import constant_guess

    fig = traversal_curves(_result(), references=(constant_guess(np.array([0] * 9 + [1])),))
    guess = next(t for t in fig.data if t.name == "majority class (constant guess)")
    assert list(guess.y) == pytest.approx([0.9, 0.9]) and guess.line.dash == "dash"


def test_the_curve_without_its_marker_is_kept_as_it_is_when_the_marker_moves():
    import copy
    import json

    from dashboard.cdp.charts import curve_dict, with_marker

    figure = curve_dict(_summary(["Zhang"]), group="scheme", value="accuracy", title="t", y_title="acc",
                        log_x=True, references=_references())
    kept = copy.deepcopy(figure)
    first, second = with_marker(figure, 0.3, log_x=True), with_marker(figure, 2.0, log_x=True)
    assert [s.x0 for s in first.layout.shapes] == [0.3] and [s.x0 for s in second.layout.shapes] == [2.0]
    assert second.layout.annotations[0].text == "epsilon = 2"
    second.update_layout(title_text="changed")  # a page's figure, changed later, is its own
    assert json.dumps(figure, default=list) == json.dumps(kept, default=list)
    assert not with_marker(figure, None).layout.shapes


def test_the_slider_figures_are_what_plotly_validates_unchanged():
    """accuracy_bars and the curves skip plotly's validation: what they write must be what
    plotly would store."""
    import json

    runs = pd.DataFrame({"scheme": ["G", "G", "P"], "accuracy": [0.5, 0.7, 0.8]})
    for fig in (accuracy_bars(runs, epsilon=1.0, data_name="census", references=_references()),
                curve_with_spread(_summary(["Zhang", "Proposed"]), group="scheme", value="accuracy", title="t",
                                  y_title="acc", log_x=True, marker_x=0.5, references=_references())):
        assert json.loads(go.Figure(fig).to_json()) == json.loads(fig.to_json())
