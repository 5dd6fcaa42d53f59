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
