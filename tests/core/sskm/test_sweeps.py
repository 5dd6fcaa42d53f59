"""Sweeps over a fitted SSKM_DP publisher: the epsilon curve and the baselines vs a."""
from __future__ import annotations

import pandas as pd
import pytest
from pandas.testing import assert_frame_equal

from core.sskm.sound import SSKMDP
from core.sskm.sweeps import baselines_vs_clusters, epsilon_curve


@pytest.fixture(scope="module")
def pub(census_frame) -> SSKMDP:
    """A small sound-mode publisher, fitted (no release drawn)."""
    frame = census_frame[["age", "sex", "hours_per_week", "education_num"]].head(300)
    return SSKMDP(epsilon=1.0, sensitive=("sex",), rows=3, cols=3, iterations=500, init="random",
                  random_state=0).fit(frame)


def _curve(pub, **kw) -> pd.DataFrame:
    args = dict(epsilons=(0.5, 1.0), repetitions=2, cs_threshold=0.3, random_state=7) | kw
    return epsilon_curve(pub, **args)


def _baselines(pub, **kw) -> pd.DataFrame:
    args = dict(epsilon=1.0, a_values=(5, 10, 10_000), repetitions=2, cs_threshold=0.3, random_state=7) | kw
    return baselines_vs_clusters(pub, **args)


def test_epsilon_curve_has_one_row_per_epsilon_in_order(pub):
    out = _curve(pub, epsilons=(5.0, 0.5, 1.0))
    assert list(out.columns) == ["epsilon", "mse_mean", "mse_std", "rl_mean", "rl_std", "mse_lo", "mse_hi", "rl_lo",
                                 "rl_hi"]
    assert out["epsilon"].tolist() == [0.5, 1.0, 5.0]


def test_baselines_have_each_method_per_a_and_skip_a_above_the_records(pub):
    out = _baselines(pub)
    assert list(out.columns) == ["method", "a", "mse_mean", "mse_std"]
    assert out["method"].tolist()[:6] == ["MDAV", "MDAV_DP", "IDP-KMeans"] * 2
    assert out["a"].tolist()[:6] == [5, 5, 5, 10, 10, 10]
    assert set(out["method"].iloc[6:]) == {"SSKM_DP"}  # one row per number of neurons it released


def test_same_seed_gives_the_same_frames(pub):
    assert_frame_equal(_curve(pub), _curve(pub), check_exact=True)
    assert_frame_equal(_baselines(pub), _baselines(pub), check_exact=True)


def test_a_different_seed_gives_other_noise(pub):
    assert not _curve(pub)["mse_mean"].equals(_curve(pub, random_state=8)["mse_mean"])


def test_more_epsilon_gives_lower_mean_mse(pub):
    out = _curve(pub, epsilons=(0.05, 0.5, 5.0), repetitions=10, random_state=0)
    assert out["mse_mean"].is_monotonic_decreasing


def test_one_repetition_has_zero_std(pub):
    out = _curve(pub, repetitions=1)
    assert (out[["mse_std", "rl_std"]] == 0.0).all().all()


@pytest.mark.parametrize("sweep", [_curve, _baselines])
def test_progress_is_called_up_to_one(pub, sweep):
    fractions = []
    sweep(pub, progress=lambda f, message: fractions.append(f))
    assert fractions and fractions[-1] == 1.0 and fractions == sorted(fractions)


def test_the_publisher_passed_in_is_not_changed(pub):
    _curve(pub)
    assert not hasattr(pub, "published_scaled_")
