"""core.cdp.sweeps: the live bars and the Fig. 4 curve share their runs."""
from __future__ import annotations

import pytest

from core.cdp.baselines import prepare_schemes
from core.cdp.sweeps import DPSGD_SCHEME, accuracy_at, accuracy_curve, dpsgd_curve, point_seeds
from core.data import load_sample


@pytest.fixture(scope="module")
def prepared():
    setup = prepare_schemes(load_sample("supplier"), random_state=0)
    return setup, {s: setup.matrices(s) for s in setup.columns}


def test_point_seeds_depend_on_epsilon_not_on_its_float_noise():
    assert point_seeds(0, 0.3, 1, "sensible", 3) == point_seeds(0, 0.1 + 0.2, 1, "sensible", 3)
    assert point_seeds(0, 0.3, 1, "sensible", 3) != point_seeds(0, 0.4, 1, "sensible", 3)
    assert point_seeds(0, 0.3, 1, "sensible", 3) != point_seeds(1, 0.3, 1, "sensible", 3)


def test_the_bars_at_a_grid_epsilon_are_the_curves_point(prepared):
    setup, mats = prepared
    runs, models = accuracy_at(setup, mats, epsilon=1.0, noise_method=1, preset="sensible", repetitions=2, seed=5)
    curve = accuracy_curve(setup, mats, epsilons=(0.5, 1.0), noise_method=1, preset="sensible",
                           repetitions=2, seed=5)
    at_one = curve[curve["epsilon"] == 1.0].set_index("scheme")["accuracy_mean"]
    means = runs.groupby("scheme")["accuracy"].mean()
    assert at_one.to_dict() == pytest.approx(means.to_dict())
    assert set(models) == set(setup.columns)


def test_the_curve_lists_the_schemes_in_the_setups_order_and_reports_each_run(prepared):
    setup, mats = prepared
    seen = []
    curve = accuracy_curve(setup, mats, epsilons=(0.5, 2.0), noise_method=1, preset="sensible", repetitions=2,
                           seed=0, progress=lambda f, m: seen.append((f, m)))
    assert list(dict.fromkeys(curve["scheme"])) == list(setup.columns)
    assert [m for _, m in seen] == [f"run {k} of 4" for k in range(1, 5)] and seen[-1][0] == 1.0


def test_dpsgd_curve_is_one_summarised_scheme_seeded_by_the_viewer(prepared):
    setup, mats = prepared
    seen = []
    curve = dpsgd_curve(setup, mats, epsilons=(0.5, 2.0), repetitions=2, seed=0,
                        progress=lambda f, m: seen.append((f, m)))
    assert list(curve["scheme"].unique()) == [DPSGD_SCHEME] == ["DP-SGD (ordinary DP)"]
    assert list(curve["epsilon"]) == [0.5, 2.0] and curve["accuracy_mean"].between(0, 1).all()
    assert [m for _, m in seen] == [f"run {k} of 4" for k in range(1, 5)] and seen[-1][0] == 1.0
    again = dpsgd_curve(setup, mats, epsilons=(0.5, 2.0), repetitions=2, seed=0)
    assert again.equals(curve)
