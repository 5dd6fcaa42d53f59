"""core.evaluation.fidelity: SDMetrics' column-shape and pair-trend scores, on cases with known answers."""
from __future__ import annotations

import math

import numpy as np
import pandas as pd
import pytest

from core.evaluation.fidelity import (
    capped, column_notes, column_shapes, contingency_similarity, correlation_similarity, fidelity_summary,
    halves_reference, ks_complement, pair_trend, pair_trends, tv_complement,
)


def test_ks_complement_is_one_minus_the_largest_gap_of_the_two_distribution_functions():
    # ECDFs of {1,2,3,4} and {3,4,5,6} differ by at most 0.5 (at x in [2, 3))
    assert ks_complement(pd.Series([1, 2, 3, 4]), pd.Series([3, 4, 5, 6])) == pytest.approx(0.5)


def test_ks_complement_is_one_for_the_same_values_and_zero_for_disjoint_ranges():
    real = pd.Series([0.5, 1.5, 2.5])
    assert ks_complement(real, real.sample(frac=1, random_state=0)) == pytest.approx(1.0)
    assert ks_complement(real, real + 10) == pytest.approx(0.0)


def test_tv_complement_of_known_frequencies():
    # shares (1/2, 1/2) against (3/4, 1/4): TV distance 1/4
    assert tv_complement(pd.Series(list("aabb")), pd.Series(list("aaab"))) == pytest.approx(0.75)


def test_a_value_only_the_release_has_counts_against_it():
    assert tv_complement(pd.Series(list("aa")), pd.Series(list("ab"))) == pytest.approx(0.5)


def test_missing_values_are_a_category_of_their_own():
    real = pd.Series(["a", None, "a", None])
    assert tv_complement(real, pd.Series(["a", "a", "a", "a"])) == pytest.approx(0.5)


def test_correlation_similarity_is_one_minus_half_the_gap_of_pearson_r():
    x = np.arange(10.0)
    real = pd.DataFrame({"x": x, "y": 2 * x})
    assert correlation_similarity(real, real) == pytest.approx(1.0)
    assert correlation_similarity(real, pd.DataFrame({"x": x, "y": -x})) == pytest.approx(0.0)


def test_contingency_similarity_of_a_known_joint_table():
    real = pd.DataFrame({"s": ["a", "b"], "t": ["x", "y"]})
    release = pd.DataFrame({"s": ["a", "a"], "t": ["x", "x"]})
    assert contingency_similarity(real, release) == pytest.approx(0.5)


def test_numeric_values_outside_the_real_range_fall_in_the_outer_bins():
    real = pd.DataFrame({"age": [20.0, 30.0, 40.0, 50.0], "sex": list("mfmf")})
    wider = pd.DataFrame({"age": [-1e9, 30.0, 40.0, 1e9], "sex": list("mfmf")})
    # the extremes land in the first and last bins, where 20 and 50 are: the same table
    assert contingency_similarity(real, wider) == pytest.approx(1.0)


def test_a_wrong_scale_is_caught_by_the_shape_score():
    rng = np.random.default_rng(0)
    real = pd.Series(rng.normal(0, 1, 2000))
    same = pd.Series(rng.normal(0, 1, 2000))
    wide = pd.Series(rng.normal(0, 3, 2000))
    assert ks_complement(real, same) > 0.95
    assert ks_complement(real, wide) < 0.8


def test_column_shapes_name_the_metric_of_each_column():
    real = pd.DataFrame({"age": [20, 30, 40], "sex": list("mfm")})
    shapes = column_shapes(real, real)
    assert dict(zip(shapes["column"], shapes["metric"])) == {"age": "KSComplement", "sex": "TVComplement"}
    assert shapes["score"].tolist() == pytest.approx([1.0, 1.0])


def test_pair_trends_give_each_pair_its_metric_and_both_correlations():
    x = np.arange(20.0)
    real = pd.DataFrame({"x": x, "y": x ** 2, "c": ["a", "b"] * 10})
    trends = pair_trends(real, real)
    assert list(zip(trends["left"], trends["right"], trends["metric"])) == [
        ("x", "y", "CorrelationSimilarity"), ("x", "c", "ContingencySimilarity"), ("y", "c", "ContingencySimilarity")]
    assert trends["real"].iloc[0] == pytest.approx(np.corrcoef(x, x ** 2)[0, 1])
    assert 0.0 <= trends["real"].iloc[1] <= 1.0  # Cramer's V for a pair with a category
    assert trends["score"].tolist() == pytest.approx([1.0, 1.0, 1.0])
    assert trends["difference"].tolist() == pytest.approx([0.0, 0.0, 0.0])


def test_a_category_that_a_number_decides_has_cramers_v_one_and_losing_it_shows_in_the_difference():
    x = np.arange(20.0)
    real = pd.DataFrame({"x": x, "c": ["a"] * 10 + ["b"] * 10})
    broken = pd.DataFrame({"x": x, "c": ["a", "b"] * 10})
    trends = pair_trends(real, broken)
    assert trends["real"].iloc[0] == pytest.approx(1.0)
    assert trends["release"].iloc[0] < 0.5
    assert trends["difference"].iloc[0] == pytest.approx(trends["real"].iloc[0] - trends["release"].iloc[0])


def test_a_constant_column_has_no_association():
    real = pd.DataFrame({"c": ["a"] * 4, "d": list("abab")})
    assert math.isnan(pair_trends(real, real)["real"].iloc[0])


def test_the_summary_is_the_mean_of_each_kind():
    real = pd.DataFrame({"s": ["a", "b"], "t": ["x", "y"]})
    release = pd.DataFrame({"s": ["a", "a"], "t": ["x", "x"]})
    summary = fidelity_summary(real, release)
    assert summary == pytest.approx({"column_shapes": 0.5, "pair_trends": 0.5})


def test_tables_must_be_frames_sharing_the_columns():
    real = pd.DataFrame({"a": [1, 2]})
    with pytest.raises(TypeError, match="DataFrame"):
        column_shapes(real, [1, 2])
    with pytest.raises(ValueError, match="not in both tables"):
        column_shapes(real, pd.DataFrame({"b": [1]}), columns=["a"])
    with pytest.raises(ValueError, match="at least one row"):
        column_shapes(real, real.iloc[:0])


def test_pair_trends_agree_with_the_score_of_each_pair_alone():
    rng = np.random.default_rng(2)
    real = pd.DataFrame({"x": rng.normal(size=300), "y": rng.integers(0, 5, 300).astype(float),
                         "c": rng.choice(list("abc"), 300), "d": rng.choice(["u", None], 300)})
    release = real.sample(frac=1, random_state=3).reset_index(drop=True).assign(x=rng.normal(2, 1, 300))
    release.loc[:10, "y"] = np.nan
    trends = pair_trends(real, release, bins=4)
    for row in trends.itertuples(index=False):
        pair = [row.left, row.right]
        assert row.score == pytest.approx(pair_trend(real[pair], release[pair], bins=4))


def test_capped_keeps_aligned_rows_together_and_is_seeded():
    real = pd.DataFrame({"v": np.arange(50)})
    a, b = capped(real, real.copy(), max_rows=10, random_state=0)
    assert len(a) == 10 and a["v"].tolist() == b["v"].tolist()
    assert capped(real, real, max_rows=10, random_state=0)[0].equals(a)
    assert not capped(real, real, max_rows=10, random_state=1)[0].equals(a)
    short = capped(real, real.iloc[:20], max_rows=10, random_state=0)[1]
    assert len(short) == 10 and short["v"].max() < 20
    with pytest.raises(TypeError, match="DataFrame"):
        capped(real, [1, 2], max_rows=10)


def test_a_row_number_and_a_constant_column_get_a_note_and_data_gets_none():
    real = pd.DataFrame({"row": np.arange(40), "k": 1.0, "age": np.tile([20.0, 30.0, 30.0, 41.5], 10)})
    notes = column_notes(real)
    assert list(notes) == ["row", "k"]
    assert notes["row"].startswith("a different whole number in every row") and "identifier" in notes["row"]
    assert notes["k"].startswith("one value in every real row")


def test_two_halves_of_one_sample_score_near_one_and_a_tiny_table_gives_nan():
    rng = np.random.default_rng(0)
    real = pd.DataFrame({"x": rng.normal(size=4000), "c": rng.choice(list("ab"), 4000)})
    ref = halves_reference(real, random_state=0)
    assert ref["rows"] == 2000 and 0.95 < ref["column_shapes"] < 1.0 and 0.95 < ref["pair_trends"] < 1.0
    assert halves_reference(real, random_state=0) == ref
    assert math.isnan(halves_reference(real.iloc[:1])["column_shapes"])
