"""core.compare.measures: the mean column-shape and pair-trend scores of a released table."""
from __future__ import annotations

import math

import numpy as np
import pandas as pd
import pytest

from core.compare.measures import MEASURES, fidelity_means
from core.compare.run import compare
from core.data import load_sample


def _real(n: int = 400) -> pd.DataFrame:
    rng = np.random.default_rng(0)
    x = rng.normal(size=n)
    return pd.DataFrame({"x": x, "y": 2 * x + rng.normal(scale=0.3, size=n),
                         "c": np.where(x > 0, "high", "low")})


def _shuffled(frame: pd.DataFrame, seed: int = 1) -> pd.DataFrame:
    """Every column permuted on its own: the same marginals, no association left."""
    rng = np.random.default_rng(seed)
    return pd.DataFrame({c: frame[c].to_numpy()[rng.permutation(len(frame))] for c in frame.columns})


def test_both_are_measures_where_higher_is_better():
    for name in ("column_shape", "pair_trend"):
        assert MEASURES[name].higher_is_better is True
    assert MEASURES["column_shape"].words == "mean column-shape score"
    assert MEASURES["pair_trend"].words == "mean pair-trend score"


def test_a_release_equal_to_the_real_table_scores_one():
    real = _real()
    assert fidelity_means(real, real.copy(), random_state=0) == pytest.approx(
        {"column_shape": 1.0, "pair_trend": 1.0})


def test_shuffling_each_column_keeps_the_shapes_and_loses_the_pairs():
    real = _real()
    scores = fidelity_means(real, _shuffled(real), random_state=0)
    assert scores["column_shape"] == pytest.approx(1.0)
    assert scores["pair_trend"] < 0.7


def test_above_the_cap_an_aligned_copy_still_scores_one_and_the_sample_is_seeded():
    real = _real(600)
    assert fidelity_means(real, real.copy(), max_rows=100, random_state=3) == pytest.approx(
        {"column_shape": 1.0, "pair_trend": 1.0})
    other = _shuffled(real).iloc[:500]
    first = fidelity_means(real, other, max_rows=100, random_state=3)
    assert fidelity_means(real, other, max_rows=100, random_state=3) == first
    assert fidelity_means(real, other, max_rows=100, random_state=4) != first


def test_no_shared_column_or_a_single_column_gives_nan_not_an_error():
    real = _real()
    none = fidelity_means(real, pd.DataFrame({"z": [1, 2]}))
    assert math.isnan(none["column_shape"]) and math.isnan(none["pair_trend"])
    one = fidelity_means(real[["c"]], real[["c"]])
    assert one["column_shape"] == pytest.approx(1.0) and math.isnan(one["pair_trend"])
    with pytest.raises(TypeError, match="max_rows"):
        fidelity_means(real, real, max_rows=1.5)


def test_the_scores_reach_the_runs_the_summary_and_the_json():
    result = compare(load_sample("census"), methods=["Raw table", "CDP-LR"], epsilons=[1.0], repetitions=1,
                     max_rows=300, random_state=3)
    runs = result.runs.set_index("method")
    assert runs.loc["Raw table", "column_shape"] == pytest.approx(1.0)
    assert runs.loc["Raw table", "pair_trend"] == pytest.approx(1.0)
    assert math.isnan(runs.loc["CDP-LR", "column_shape"])  # a model releases no table
    rows = {r["method"]: r for r in result.to_dict()["summary"]}
    assert rows["Raw table"]["column_shape_mean"] == pytest.approx(1.0)
    assert rows["Raw table"]["pair_trend_mean"] == pytest.approx(1.0)
    assert rows["CDP-LR"]["pair_trend_mean"] is None
