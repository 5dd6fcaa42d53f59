"""Fig. 5-6's sweep across SOM grids (the number of clusters a) and m: one shared core function."""
from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

from core.sskm.sweeps import attributes_for_m, clusters_sweep, grid_runs, grid_summary, parse_grid

_COLUMNS = ["age", "workclass", "education_num", "hours_per_week", "sex"]


@pytest.fixture(scope="module")
def small(census_frame):
    return census_frame[_COLUMNS].head(300).reset_index(drop=True)


def _sweep(frame, *, mode="sound", seed=0, **kw):
    args = dict(sensitive="sex", m_values=(2, 5), grids=("2x2", "3x3"), epsilons=(0.1, 5.0), repetitions=2,
                mode=mode, iterations=500, random_state=seed)
    args.update(kw)
    if mode == "sound" and "schema" not in args:
        from core.data import load_sample
        from core.privacy.schema_builtin import schema_for

        args["schema"] = schema_for(load_sample("census"))
    return clusters_sweep(frame, **args)


def test_same_seed_gives_the_same_rows(small):
    pd.testing.assert_frame_equal(_sweep(small, seed=3), _sweep(small, seed=3))


def test_another_seed_gives_other_noise(small):
    assert not np.allclose(_sweep(small, seed=3)["mse"], _sweep(small, seed=4)["mse"])


@pytest.mark.parametrize("mode", ["sound", "paper"])
def test_one_row_per_m_grid_repetition_and_epsilon(small, mode):
    runs = _sweep(small, mode=mode)
    assert len(runs) == 2 * 2 * 2 * 2
    counts = runs.groupby(["m", "grid", "repetition", "epsilon"]).size()
    assert counts.eq(1).all() and len(counts) == 16
    assert set(runs["mode"]) == {mode} and runs["is_dp"].eq(mode == "sound").all()
    assert (runs["a"] >= 1).all() and (runs.loc[runs["grid"] == "2x2", "a"] <= 4).all()


def test_the_sound_sweep_without_a_schema_is_not_dp(small):
    runs = _sweep(small, schema=None)
    assert not runs["is_dp"].any()


def test_each_m_publishes_the_sensitive_attribute_and_the_first_others(small):
    runs = _sweep(small)
    assert dict(zip(runs["m"], runs["attributes"])) == {2: "age, sex", 5: ", ".join(_COLUMNS)}
    assert attributes_for_m(_COLUMNS, ["sex"], 3) == ["age", "workclass", "sex"]


def test_progress_reaches_one_and_never_draws_noise(small):
    seen = []
    watched = _sweep(small, progress=lambda f, msg: seen.append((f, msg)))
    assert seen[-1][0] == pytest.approx(1.0) and all(b[0] >= a[0] for a, b in zip(seen, seen[1:]))
    assert len(seen) == 2 * 2 * 2  # one per map: m x grid x repetition
    pd.testing.assert_frame_equal(watched, _sweep(small))


def test_summary_has_one_row_per_m_grid_and_epsilon_in_order(small):
    runs = _sweep(small)
    summary = grid_summary(runs)
    assert len(summary) == 2 * 2 * 2
    assert list(summary["grid"][:2]) == ["2x2", "2x2"] and list(summary["epsilon"][:2]) == [0.1, 5.0]
    first = runs[(runs["m"] == 2) & (runs["grid"] == "2x2") & (runs["epsilon"] == 0.1)]
    assert summary.loc[0, "mse_mean"] == pytest.approx(first["mse"].mean())
    assert summary.loc[0, "a_min"] == first["a"].min() and summary.loc[0, "a_max"] == first["a"].max()


def test_grid_runs_is_what_the_reproduction_calls(small):
    """The page's sweep and `pux reproduce sskm-fig5` share one loop: the same seed, the same runs."""
    table = small[["age", "sex"]]
    runs = grid_runs(table, sensitive="sex", grids=[(2, 2)], epsilons=(1.0,), repetitions=1, iterations=500,
                     random_state=np.random.default_rng(5))
    page = clusters_sweep(table, sensitive="sex", m_values=(2,), grids=("2x2",), epsilons=(1.0,), repetitions=1,
                          iterations=500, random_state=np.random.default_rng(5))
    assert runs[0]["mse"] == page.loc[0, "mse"] and runs[0]["seed"] == page.loc[0, "seed"]


def test_wrong_arguments_say_the_rule(small):
    with pytest.raises(ValueError, match="rows x columns"):
        parse_grid("8 by 8")
    with pytest.raises(TypeError):
        parse_grid(8)
    with pytest.raises(ValueError, match="between the number of sensitive"):
        _sweep(small, m_values=(6,))
    with pytest.raises(ValueError, match="must be among the chosen"):
        attributes_for_m(["age", "workclass"], "sex", 2)
    with pytest.raises(ValueError, match="mode must be one of 'sound', 'paper'"):
        _sweep(small, mode="fast")
    with pytest.raises(TypeError, match="repetitions must be an int"):
        _sweep(small, repetitions=1.5)
    with pytest.raises(TypeError, match="DataFrame"):
        clusters_sweep(small.to_numpy(), sensitive="sex", m_values=(2,), grids=("2x2",), epsilons=(1.0,),
                       repetitions=1)
