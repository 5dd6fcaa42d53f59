"""Pure chart builders of the SSKM_DP page (no streamlit)."""
from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

from dashboard.charts import sskm as charts


@pytest.mark.parametrize("topology, symbol", [("rectangular", "square"), ("hexagonal", "hexagon")])
def test_som_grid_draws_one_marker_per_neuron_and_greys_empty_ones(topology, symbol):
    values = np.arange(12, dtype=float).reshape(3, 4)
    values[1, 2] = np.nan
    fig = charts.som_grid(values, topology=topology, colorbar="rows")
    coloured, grey = fig.data
    assert len(coloured.x) == 11 and len(grey.x) == 1
    assert coloured.marker.symbol == symbol
    if topology == "hexagonal":  # odd rows shifted half a cell
        assert 0.5 in set(np.round(np.asarray(coloured.x) % 1, 2))


def test_som_grid_refuses_a_flat_array():
    with pytest.raises(ValueError):
        charts.som_grid(np.zeros(5))


def test_training_curves_have_both_series():
    fig = charts.sfla_convergence(np.array([0.2, 0.3, 0.35]), np.array([0.1, 0.2, 0.3]))
    assert [t.name for t in fig.data] == ["best frog", "population mean"]
    hist = {"step": [0, 10], "quantization_error": [1.0, 0.5], "topographic_error": [0.3, 0.2]}
    assert len(charts.som_training(hist).data) == 2


def test_mic_heatmap_stars_protected_columns():
    strengths = pd.DataFrame([[0.1, 0.6, 1.0]], index=["sex"], columns=["age", "relationship", "sex"])
    fig = charts.mic_heatmap(strengths, 0.3, ("relationship", "sex"))
    assert list(fig.data[0].x) == ["age", "relationship *", "sex *"]


def test_epsilon_curves_and_baselines():
    curve = pd.DataFrame({"epsilon": [0.1, 1.0], "mse_mean": [0.2, 0.1], "mse_std": [0.01, 0.01],
                          "rl_mean": [0.001, 0.002], "rl_std": [0.0, 0.0]})
    fig = charts.epsilon_curves(curve, current=1.0)
    assert list(fig.data[1].y) == [0.1, 0.2]  # RL shown in percent
    table = pd.DataFrame({"method": ["MDAV", "MDAV", "SSKM_DP"], "a": [10, 50, 90],
                          "mse_mean": [0.3, 0.1, 0.05], "mse_std": [0, 0, 0.01]})
    assert [t.name for t in charts.baselines_vs_a(table).data] == ["MDAV", "SSKM_DP"]


# ----------------------------------------------------------- browser-review fixes

def _curve():
    eps = [0.05, 0.1, 0.2, 0.5, 1.0, 2.0, 5.0, 10.0]
    return pd.DataFrame({"epsilon": eps, "mse_mean": np.linspace(0.031, 0.030, 8), "mse_std": [0.0005] * 8,
                         "rl_mean": np.linspace(0.010, 0.011, 8), "rl_std": [0.0] * 8})


def test_epsilon_axis_reads_as_plain_numbers():
    fig = charts.epsilon_curves(_curve(), current=1.0)
    for axis in (fig.layout.xaxis, fig.layout.xaxis2):
        assert axis.type == "log"
        assert list(axis.ticktext) == ["0.05", "0.1", "0.2", "0.5", "1", "2", "5", "10"]


def test_mse_and_linkage_axes_start_at_zero():
    fig = charts.epsilon_curves(_curve(), current=1.0)
    assert fig.layout.yaxis.range[0] == 0 and fig.layout.yaxis2.range[0] == 0
    assert fig.layout.yaxis.range[1] >= 0.031  # the whole curve stays visible


def test_baselines_take_their_colours_from_the_palette():
    from dashboard.palette import color

    table = pd.DataFrame({"method": ["MDAV", "MDAV_DP", "IDP-KMeans", "SSKM_DP"], "a": [10, 10, 10, 90],
                          "mse_mean": [0.3, 0.1, 0.2, 0.05], "mse_std": [0, 0, 0, 0.01]})
    fig = charts.baselines_vs_a(table)
    assert {t.name: t.line.color for t in fig.data} == {m: color(m) for m in table["method"]}
    assert list(fig.layout.xaxis.ticktext) == ["10", "90"]


def test_every_chart_has_a_title():
    curve = _curve()
    table = pd.DataFrame({"method": ["MDAV"], "a": [10], "mse_mean": [0.3], "mse_std": [0.0]})
    hist = {"step": [0, 10], "quantization_error": [1.0, 0.5], "topographic_error": [0.3, 0.2]}
    strengths = pd.DataFrame([[0.1, 1.0]], index=["sex"], columns=["age", "sex"])
    figs = [charts.som_grid(np.ones((2, 2))), charts.sfla_convergence(np.ones(2), np.ones(2)),
            charts.som_training(hist), charts.mic_heatmap(strengths, 0.3, ("sex",)),
            charts.epsilon_curves(curve), charts.baselines_vs_a(table)]
    assert all(f.layout.title.text for f in figs)
