"""Pure chart builders of the SSKM_DP page (no streamlit): the values each trace draws."""
from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

from dashboard.sskm import charts
from dashboard.shared.widgets.palette import color


def _grid():
    values = np.arange(6, dtype=float).reshape(2, 3)
    values[1, 2] = np.nan  # one neuron no row won
    return values


def _curve():
    eps = [0.05, 0.1, 0.2, 0.5, 1.0, 2.0, 5.0, 10.0]
    return pd.DataFrame({"epsilon": eps, "mse_mean": np.linspace(0.031, 0.030, 8), "mse_std": [0.0005] * 8,
                         "rl_mean": np.linspace(0.010, 0.011, 8), "rl_std": [0.0] * 8})


def _baselines():
    # rows out of order in a: each method's line is sorted by a
    return pd.DataFrame({"method": ["MDAV", "SSKM_DP", "MDAV", "MDAV_DP"], "a": [50, 90, 10, 10],
                         "mse_mean": [0.1, 0.05, 0.3, 0.2], "mse_std": [0.02, 0.01, 0.03, 0.0]})


# ---------------------------------------------------------------- SOM grid

def test_som_grid_colours_each_neuron_by_its_value_at_its_grid_position():
    coloured, _ = charts.som_grid(_grid(), topology="rectangular").data
    assert list(coloured.x) == [0, 1, 2, 0, 1] and list(coloured.y) == [0, 0, 0, -1, -1]
    assert list(coloured.marker.color) == [0.0, 1.0, 2.0, 3.0, 4.0]
    assert coloured.marker.symbol == "square"
    assert list(coloured.text)[:2] == ["neuron (0, 0): 0", "neuron (0, 1): 1"]


def test_som_grid_draws_empty_neurons_grey_where_they_sit():
    _, grey = charts.som_grid(_grid(), topology="rectangular").data
    assert (list(grey.x), list(grey.y)) == ([2], [-1])
    assert grey.marker.color == "#d9d9d9"
    assert list(grey.text) == ["neuron (1, 2): empty"]


def test_hexagonal_som_grid_shifts_odd_rows_half_a_cell():
    coloured, grey = charts.som_grid(_grid(), topology="hexagonal").data
    assert coloured.marker.symbol == "hexagon"
    assert list(coloured.x) == [0, 1, 2, 0.5, 1.5] and list(grey.x) == [2.5]
    np.testing.assert_allclose(list(coloured.y), [0, 0, 0, -np.sqrt(3) / 2, -np.sqrt(3) / 2])


def test_som_grid_without_empty_neurons_has_no_grey_trace():
    fig = charts.som_grid(np.ones((2, 2)), colorbar="rows", title="Rows per neuron")
    assert len(fig.data) == 1
    assert fig.data[0].marker.colorbar.title.text == "rows"
    assert fig.layout.title.text == "Rows per neuron"


def test_som_grid_refuses_a_flat_array():
    with pytest.raises(ValueError):
        charts.som_grid(np.zeros(5))


# ---------------------------------------------------------------- training curves

def test_sfla_convergence_draws_best_and_mean_per_shuffle():
    fig = charts.sfla_convergence(np.array([0.2, 0.3, 0.35]), np.array([0.1, 0.2, 0.3]))
    drawn = {t.name: (list(t.x), list(t.y)) for t in fig.data}
    assert drawn == {"best frog": ([0, 1, 2], [0.2, 0.3, 0.35]),
                     "population mean": ([0, 1, 2], [0.1, 0.2, 0.3])}


def test_som_training_draws_each_error_on_its_own_axis():
    hist = {"step": [0, 10], "quantization_error": [1.0, 0.5], "topographic_error": [0.3, 0.2]}
    fig = charts.som_training(hist)
    drawn = {t.name: (list(t.x), list(t.y), t.yaxis) for t in fig.data}
    assert drawn == {"quantisation error": ([0, 10], [1.0, 0.5], "y"),
                     "topographic error": ([0, 10], [0.3, 0.2], "y2")}
    assert fig.layout.yaxis.title.text == "quantisation error"
    assert fig.layout.yaxis2.title.text == "topographic error"


# ---------------------------------------------------------------- MIC heatmap

def test_mic_heatmap_draws_the_strengths_and_stars_protected_columns():
    strengths = pd.DataFrame([[0.1, 0.6, np.nan]], index=["sex"], columns=["age", "relationship", "sex"])
    fig = charts.mic_heatmap(strengths, 0.3, ("relationship",))
    heat = fig.data[0]
    assert list(heat.x) == ["age", "relationship *", "sex"] and list(heat.y) == ["sex"]
    np.testing.assert_array_equal(heat.z, strengths.to_numpy())
    assert heat.text.tolist() == [["0.10", "0.60", ""]]
    assert fig.layout.title.text == "Connection strength (MIC) to the sensitive attributes; * = protected at CS_Tsh = 0.30"


# ---------------------------------------------------------------- epsilon curves

def test_epsilon_curves_draw_mse_and_rl_in_percent_with_their_spread():
    curve = pd.DataFrame({"epsilon": [0.1, 1.0], "mse_mean": [0.2, 0.1], "mse_std": [0.01, 0.02],
                          "rl_mean": [0.001, 0.002], "rl_std": [0.0, 0.001]})
    fig = charts.epsilon_curves(curve)
    mse, rl = fig.data
    assert (mse.name, list(mse.x), list(mse.y), list(mse.error_y.array)) == \
        ("MSE", [0.1, 1.0], [0.2, 0.1], [0.01, 0.02])
    assert (rl.name, rl.xaxis, list(rl.x)) == ("RL", "x2", [0.1, 1.0])
    np.testing.assert_allclose(list(rl.y), [0.1, 0.2])  # RL shown in percent
    np.testing.assert_allclose(list(rl.error_y.array), [0.0, 0.1])


@pytest.mark.parametrize("mode", ["sound", "paper"])
def test_epsilon_curves_take_the_modes_palette_colour_and_name_it(mode):
    fig = charts.epsilon_curves(_curve(), mode=mode)
    assert [t.line.color for t in fig.data] == [color(mode)] * 2
    assert fig.layout.title.text == f"SSKM_DP ({mode} mode): MSE and record linkage vs epsilon"


def test_epsilon_curves_mark_the_current_epsilon_in_both_panels():
    fig = charts.epsilon_curves(_curve(), current=0.5)
    assert [(s.x0, s.x1, s.xref) for s in fig.layout.shapes] == [(0.5, 0.5, "x"), (0.5, 0.5, "x2")]
    assert not charts.epsilon_curves(_curve()).layout.shapes


def test_epsilon_axis_reads_as_plain_numbers():
    fig = charts.epsilon_curves(_curve(), current=1.0)
    for axis in (fig.layout.xaxis, fig.layout.xaxis2):
        assert axis.type == "log"
        assert axis.title.text == "epsilon (log scale)"
        assert list(axis.ticktext) == ["0.05", "0.1", "0.2", "0.5", "1", "2", "5", "10"]


def test_mse_and_linkage_axes_start_at_zero():
    fig = charts.epsilon_curves(_curve(), current=1.0)
    assert fig.layout.yaxis.range[0] == 0 and fig.layout.yaxis2.range[0] == 0
    assert fig.layout.yaxis.range[1] == pytest.approx(1.1 * (0.031 + 0.0005))  # the whole curve stays visible
    assert fig.layout.yaxis2.range[1] == pytest.approx(1.1 * 100 * 0.011)


# ---------------------------------------------------------------- baselines

def test_baselines_draw_one_line_per_method_sorted_by_a():
    fig = charts.baselines_vs_a(_baselines())
    drawn = {t.name: (list(t.x), list(t.y), list(t.error_y.array)) for t in fig.data}
    assert drawn == {"MDAV": ([10, 50], [0.3, 0.1], [0.03, 0.02]), "SSKM_DP": ([90], [0.05], [0.01]),
                     "MDAV_DP": ([10], [0.2], [0.0])}
    assert [t.name for t in fig.data] == ["MDAV", "SSKM_DP", "MDAV_DP"]  # first-seen order


def test_baselines_take_their_colours_from_the_palette():
    table = pd.DataFrame({"method": ["MDAV", "MDAV_DP", "IDP-KMeans", "SSKM_DP"], "a": [10, 10, 10, 90],
                          "mse_mean": [0.3, 0.1, 0.2, 0.05], "mse_std": [0, 0, 0, 0.01]})
    fig = charts.baselines_vs_a(table)
    assert {t.name: t.line.color for t in fig.data} == {m: color(m) for m in table["method"]}
    assert {t.name: t.marker.color for t in fig.data} == {m: color(m) for m in table["method"]}


def test_baselines_a_axis_is_log_with_a_tick_at_each_a():
    fig = charts.baselines_vs_a(_baselines())
    assert fig.layout.xaxis.type == "log"
    assert list(fig.layout.xaxis.tickvals) == [10, 50, 90]
    assert list(fig.layout.xaxis.ticktext) == ["10", "50", "90"]


@pytest.mark.parametrize("build, title, x_title, y_title", [
    (lambda: charts.sfla_convergence(np.ones(2), np.ones(2), dataset="census"),
     "SFLA search for the initial weights: fitness per shuffle on census", "shuffle", "fitness (Eq. 9)"),
    (lambda: charts.som_training({"step": [0], "quantization_error": [1.0], "topographic_error": [0.3]},
                                 dataset="census"),
     "SOM training: quantisation and topographic error on census", "rows drawn", "quantisation error"),
    (lambda: charts.baselines_vs_a(_baselines(), dataset="census", epsilon=1.0),
     "Information loss (MSE) vs number of clusters a at epsilon = 1: MDAV, MDAV_DP, IDP-KMeans and SSKM_DP "
     "on census", "number of clusters a (log scale)", "MSE (scaled attributes)"),
    (lambda: charts.epsilon_curves(_curve(), dataset="census"),
     "SSKM_DP (sound mode): MSE and record linkage vs epsilon on census",
     "epsilon (log scale)", "MSE (scaled attributes)"),
    (lambda: charts.som_grid(np.ones((2, 2)), title="SOM grid (2 x 2): Hit map", dataset="census"),
     "SOM grid (2 x 2): Hit map on census", "map column", "map row"),
    (lambda: charts.mic_heatmap(pd.DataFrame([[1.0, 0.2]], index=["sex"], columns=["sex", "age"]), 0.3, ["sex"],
                                dataset="census"),
     "Connection strength (MIC) to the sensitive attributes on census; * = protected at CS_Tsh = 0.30",
     "attribute (* = protected)", "sensitive attribute"),
    (lambda: charts.mse_vs_clusters(_clusters(), mode="paper", dataset="census"),
     "Fig. 5: Information loss (MSE) of SSKM_DP (paper mode) vs number of clusters a, per epsilon on census",
     "number of clusters a", "MSE (scaled attributes)"),
    (lambda: charts.rl_vs_clusters(_clusters(), dataset="census"),
     "Fig. 6: Record linkage (RL, %) of SSKM_DP (sound mode) vs number of clusters a, per epsilon on census",
     "number of clusters a", "record linkage (%)"),
])
def test_every_chart_has_its_title_and_axis_titles(build, title, x_title, y_title):
    fig = build()
    assert fig.layout.title.text == title
    assert fig.layout.xaxis.title.text == x_title and fig.layout.yaxis.title.text == y_title


def test_som_grid_has_a_default_title():
    assert charts.som_grid(np.ones((2, 2))).layout.title.text == "SOM grid"


def test_a_dataset_name_in_a_title_shows_its_angle_brackets_as_typed():
    fig = charts.sfla_convergence(np.ones(2), np.ones(2), dataset="<b>mine</b>")
    assert fig.layout.title.text.endswith(" on &lt;b&gt;mine&lt;/b&gt;")


# ---------------------------------------------------------------- Fig. 5-6: across a and m

def _clusters():
    """grid_summary of a sweep: two m, two epsilons, two maps each (rows out of order in a)."""
    rows = []
    for m in (5, 9):
        for eps in (0.1, 5.0):
            for grid, a in (("8x8", 60.0), ("4x4", 15.0)):
                rows.append({"m": m, "grid": grid, "epsilon": eps, "a_mean": a, "a_std": 1.0, "a_min": int(a) - 1,
                             "a_max": int(a) + 1, "mse_mean": m / 100 + a / 1000 + 1 / eps / 100,
                             "mse_std": 0.001, "rl_mean": a / 10_000 * eps, "rl_std": 0.0001})
    return pd.DataFrame(rows)


@pytest.mark.parametrize("build, data, metric, scale", [
    (charts.mse_vs_clusters, charts.mse_vs_clusters_data, "mse", 1.0),
    (charts.rl_vs_clusters, charts.rl_vs_clusters_data, "rl", 100.0),
])
def test_fig56_draws_its_table_one_line_per_epsilon_one_panel_per_m(build, data, metric, scale):
    table = _clusters()
    frame = data(table)
    assert len(frame) == len(table)
    fig = build(table)
    assert len(fig.data) == 4  # 2 m x 2 epsilons
    drawn = pd.concat([pd.DataFrame({"x": list(t.x), "y": list(t.y), "err": list(t.error_y.array),
                                     "epsilon": float(t.name.split()[1]), "axis": t.xaxis}) for t in fig.data])
    assert sorted(drawn["axis"].unique()) == ["x", "x2"]  # one panel per m
    expected = frame.rename(columns={"number of clusters a (mean)": "x"})
    y_col = [c for c in frame.columns if c.startswith("mean ")][0]
    sd_col = [c for c in frame.columns if c.startswith("standard deviation")][0]
    np.testing.assert_allclose(drawn["x"], expected["x"])
    np.testing.assert_allclose(drawn["y"], frame[y_col])
    np.testing.assert_allclose(drawn["err"], frame[sd_col])
    np.testing.assert_allclose(drawn["epsilon"], frame["epsilon"])
    # the frame is the table, sorted by m, epsilon and a, in the drawn units
    ordered = table.sort_values(["m", "epsilon", "a_mean"], kind="stable")
    np.testing.assert_allclose(frame[y_col], scale * ordered[f"{metric}_mean"])
    assert list(frame["SOM grid"]) == list(ordered["grid"])


def test_fig56_legend_names_each_epsilon_once():
    fig = charts.mse_vs_clusters(_clusters())
    assert [t.name for t in fig.data if t.showlegend] == ["epsilon 0.1", "epsilon 5"]
    assert [a.text for a in fig.layout.annotations] == ["m = 5 attributes", "m = 9 attributes"]


def test_fig56_data_refuses_a_table_without_its_columns():
    with pytest.raises(ValueError, match="rl_mean"):
        charts.rl_vs_clusters_data(_clusters().drop(columns=["rl_mean"]))
    with pytest.raises(TypeError):
        charts.mse_vs_clusters_data([1, 2])


# ---------------------------------------------------------------- references (issue 24)
def _refs():
    return pd.DataFrame([
        {"reference": "raw table (no protection)", "mse_mean": 0.0, "mse_lo": 0.0, "mse_hi": 0.0,
         "rl_mean": 0.8, "rl_lo": 0.8, "rl_hi": 0.8, "repetitions": 1},
        {"reference": "random release (no information)", "mse_mean": 0.4, "mse_lo": 0.38, "mse_hi": 0.42,
         "rl_mean": 0.001, "rl_lo": 0.0005, "rl_hi": 0.0015, "repetitions": 5},
    ])


def test_epsilon_curves_draw_the_raw_table_and_a_random_release_in_the_legend():
    fig = charts.epsilon_curves(_curve(), references=_refs())
    names = [t.name for t in fig.data if t.showlegend]
    assert names == ["raw table (no protection)", "random release (no information)"]
    random_mse = next(t for t in fig.data if t.name == "random release (no information)" and t.xaxis == "x")
    assert list(random_mse.y) == [0.4, 0.4] and random_mse.line.dash == "dash"
    assert fig.layout.yaxis.range[1] >= 0.4 and fig.layout.yaxis2.range[1] >= 80  # both references in view
    data = charts.epsilon_data(_curve(), _refs())
    assert (data["random release (no information): MSE"] == 0.4).all()
    assert (data["raw table (no protection): record linkage (%)"] == 80).all()


def test_epsilon_curves_draw_the_95_percent_interval_when_the_curve_has_it():
    curve = pd.DataFrame({"epsilon": [0.1, 1.0], "mse_mean": [0.2, 0.1], "mse_std": [0.01, 0.02],
                          "rl_mean": [0.001, 0.002], "rl_std": [0.0, 0.001], "mse_lo": [0.15, 0.05],
                          "mse_hi": [0.3, 0.12], "rl_lo": [0.0, 0.001], "rl_hi": [0.002, 0.004]})
    mse = charts.epsilon_curves(curve).data[0]
    np.testing.assert_allclose(list(mse.error_y.array), [0.1, 0.02])
    np.testing.assert_allclose(list(mse.error_y.arrayminus), [0.05, 0.05])


def test_baselines_draw_a_random_release_line():
    table = pd.DataFrame({"method": ["MDAV", "MDAV"], "a": [10, 25], "mse_mean": [0.1, 0.05], "mse_std": [0, 0]})
    fig = charts.baselines_vs_a(table, random_mse=0.3)
    assert fig.data[0].name == "random release (no information)" and list(fig.data[0].y) == [0.3, 0.3]
