"""Tests of core.evaluation.attacks: DCR, nearest distances, attribute and membership inference."""
from __future__ import annotations

import numpy as np
import pandas as pd
import pytest
from sklearn.dummy import DummyClassifier
from sklearn.neighbors import NearestNeighbors
from sklearn.tree import DecisionTreeClassifier

from core.evaluation.attacks.distance import DCRReference, distance_to_closest_record
from core.evaluation.attacks.inference import attribute_inference
from core.evaluation.attacks.membership import membership_inference_auc
from core.evaluation.attacks.nearest import encode_for_distance, nearest_distances
from core.validation import DataError


def _population(n: int, seed: int) -> pd.DataFrame:
    """Mixed table: two continuous columns, one correlated category, one integer."""
    rng = np.random.default_rng(seed)
    x = rng.normal(size=n)
    return pd.DataFrame({
        "age": 40 + 10 * x + rng.normal(scale=3, size=n),
        "income": rng.lognormal(mean=10, sigma=0.5, size=n),
        "group": np.where(x + rng.normal(scale=0.5, size=n) > 0, "a", "b"),
        "hours": rng.integers(10, 60, size=n),
    })


@pytest.fixture(scope="module")
def split():
    frame = _population(900, seed=0)
    return frame.iloc[:300].reset_index(drop=True), frame.iloc[300:600].reset_index(drop=True), \
        frame.iloc[600:].reset_index(drop=True)


def _brute(queries, reference, exclude_self=False):
    k = 2 if exclude_self else 1
    d, _ = NearestNeighbors(n_neighbors=k, algorithm="brute").fit(reference).kneighbors(queries)
    return d[:, -1]


# ------------------------------------------------------------------ encode_for_distance
def test_encode_numeric_scaled_by_reference_range_and_clipped():
    ref = pd.DataFrame({"x": [0.0, 5.0, 10.0]})
    other = pd.DataFrame({"x": [-3.0, 2.5, 20.0]})
    R, O = encode_for_distance(ref, other)
    np.testing.assert_allclose(R[:, 0], [0.0, 0.5, 1.0])
    np.testing.assert_allclose(O[:, 0], [0.0, 0.25, 1.0])


def test_encode_category_mismatch_costs_one_like_full_numeric_range():
    ref = pd.DataFrame({"c": ["a", "b"], "x": [0.0, 1.0]})
    other = pd.DataFrame({"c": ["zzz", "a"], "x": [0.0, 0.0]})
    R, O = encode_for_distance(ref, other)
    assert np.linalg.norm(R[0] - R[1]) == pytest.approx(np.sqrt(2.0))  # both attributes differ
    assert np.linalg.norm(O[0] - R[0]) == pytest.approx(1.0)  # an unseen category: a mismatch
    assert np.linalg.norm(O[1] - R[0]) == pytest.approx(0.0)


def test_encode_missing_number_gets_median_and_indicator():
    ref = pd.DataFrame({"x": [0.0, 2.0, 10.0, np.nan]})
    R, = encode_for_distance(ref)
    assert R.shape == (4, 2)
    np.testing.assert_allclose(R[3], [0.2, 1.0])
    np.testing.assert_allclose(R[:3, 1], 0.0)


def test_encode_refuses_missing_column():
    with pytest.raises(DataError, match="lacks the columns"):
        encode_for_distance(pd.DataFrame({"x": [1.0]}), pd.DataFrame({"y": [1.0]}))


def test_encode_refuses_text_in_numeric_column():
    with pytest.raises(DataError, match="numeric in the reference"):
        encode_for_distance(pd.DataFrame({"x": [1.0, 2.0]}), pd.DataFrame({"x": ["one", "2"]}))


def test_encode_refuses_non_frame():
    with pytest.raises(TypeError, match="DataFrame"):
        encode_for_distance(np.zeros((3, 2)))


# ------------------------------------------------------------------ nearest_distances
def test_nearest_distances_match_sklearn_brute():
    rng = np.random.default_rng(1)
    Q, B = rng.normal(size=(157, 6)), rng.normal(size=(211, 6))
    np.testing.assert_allclose(nearest_distances(Q, B), _brute(Q, B), rtol=1e-5, atol=1e-6)


def test_nearest_distances_small_blocks_match_sklearn_brute():
    rng = np.random.default_rng(2)
    Q, B = rng.normal(size=(101, 4)), rng.normal(size=(90, 4)) + 3.0
    np.testing.assert_allclose(nearest_distances(Q, B, block_rows=7), _brute(Q, B), rtol=1e-5, atol=1e-6)


def test_nearest_distances_exclude_self_match_sklearn_second_neighbour():
    rng = np.random.default_rng(3)
    X = rng.normal(size=(120, 5))
    np.testing.assert_allclose(nearest_distances(X, X, exclude_self=True, block_rows=16),
                               _brute(X, X, exclude_self=True), rtol=1e-5, atol=1e-6)


def test_nearest_distances_exclude_self_keeps_duplicates_at_zero():
    X = np.array([[0.0, 0.0], [0.0, 0.0], [3.0, 4.0]])
    np.testing.assert_allclose(nearest_distances(X, X, exclude_self=True), [0.0, 0.0, 5.0])


def test_nearest_distances_exact_copy_is_exactly_zero():
    rng = np.random.default_rng(4)
    X = rng.normal(loc=100.0, size=(50, 3))
    assert np.all(nearest_distances(X, X[::-1].copy()) == 0.0)


def test_nearest_distances_column_mismatch():
    with pytest.raises(ValueError, match="same columns"):
        nearest_distances(np.zeros((2, 3)), np.zeros((2, 4)))


def test_nearest_distances_exclude_self_needs_same_rows():
    with pytest.raises(ValueError, match="same records"):
        nearest_distances(np.zeros((2, 3)), np.zeros((3, 3)), exclude_self=True)


def test_nearest_distances_refuses_nan():
    with pytest.raises(DataError, match="finite"):
        nearest_distances(np.array([[np.nan]]), np.zeros((2, 1)))


def test_nearest_distances_str_block_rows():
    with pytest.raises(TypeError, match="block_rows"):
        nearest_distances(np.zeros((2, 1)), np.zeros((2, 1)), block_rows="10")


def test_nearest_distances_zero_block_rows():
    with pytest.raises(ValueError, match="block_rows must be at least 1"):
        nearest_distances(np.zeros((2, 1)), np.zeros((2, 1)), block_rows=0)


# ------------------------------------------------------------------ DCR
def test_dcr_exact_copy_has_highest_risk(split):
    train, holdout, _ = split
    res = distance_to_closest_record(train.copy(), train, holdout)
    assert res["risk"] == pytest.approx(1.0)
    assert res["exact_copies"] == 1.0
    assert res["median_dcr_train_to_release"] == 0.0
    assert res["normalised_excess"] == pytest.approx(1.0)


def test_dcr_independent_release_is_near_baseline(split):
    train, holdout, fresh = split
    res = distance_to_closest_record(fresh, train, holdout)
    assert res["baseline"] == 0.5
    assert abs(res["excess"]) < 0.08
    assert res["exact_copies"] == 0.0


def test_dcr_column_shuffle_of_train_is_near_baseline(split):
    train, holdout, _ = split
    rng = np.random.default_rng(5)
    shuffled = train.apply(lambda s: s.to_numpy()[rng.permutation(len(s))])
    res = distance_to_closest_record(shuffled, train, holdout)
    assert res["risk"] < res["baseline"] + 0.1  # marginals kept, records broken


def test_dcr_baseline_follows_release_size(split):
    train, holdout, fresh = split
    res = distance_to_closest_record(fresh.iloc[:100], train, holdout)
    assert res["baseline"] == pytest.approx(100 / 400)
    assert abs(res["excess"]) < 0.08


def test_dcr_noisy_copy_is_above_baseline(split):
    train, holdout, _ = split
    rng = np.random.default_rng(6)
    noisy = train.assign(age=train["age"] + rng.normal(scale=0.5, size=len(train)))
    res = distance_to_closest_record(noisy, train, holdout)
    assert res["excess"] > 0.3
    assert res["exact_copies"] == 0.0


def test_dcr_empty_release(split):
    train, holdout, _ = split
    with pytest.raises(DataError, match="release table is empty"):
        distance_to_closest_record(train.iloc[:0], train, holdout)


def test_dcr_str_columns(split):
    train, holdout, _ = split
    with pytest.raises(TypeError, match="columns"):
        distance_to_closest_record(train, train, holdout, columns="age")


def test_dcr_array_release(split):
    train, holdout, _ = split
    with pytest.raises(TypeError, match="release must be a pandas DataFrame"):
        distance_to_closest_record(train.to_numpy(), train, holdout)


def test_dcr_reference_measures_like_the_function(split):
    train, holdout, fresh = split
    reference = DCRReference(train, holdout)
    for release in (train.copy(), fresh, fresh.iloc[:100]):
        assert reference.measure(release) == distance_to_closest_record(release, train, holdout)


def test_dcr_sample_of_records_estimates_the_full_risk(split):
    train, holdout, _ = split
    rng = np.random.default_rng(6)
    noisy = train.assign(age=train["age"] + rng.normal(scale=0.5, size=len(train)))
    full = distance_to_closest_record(noisy, train, holdout)
    part = distance_to_closest_record(noisy, train, holdout, max_records=120, random_state=3)
    assert part["n_measured"] == 120 and full["n_measured"] == len(train)
    assert abs(part["risk"] - full["risk"]) < 3 * 0.5 / np.sqrt(120)
    assert part["baseline"] == full["baseline"]


def test_dcr_sample_is_seeded(split):
    train, holdout, _ = split
    first = DCRReference(train, holdout, max_records=50, random_state=4)
    again = DCRReference(train, holdout, max_records=50, random_state=4)
    other = DCRReference(train, holdout, max_records=50, random_state=5)
    assert np.array_equal(first.records_, again.records_)
    assert not np.array_equal(first.records_, other.records_)


def test_dcr_sample_larger_than_train_measures_every_record(split):
    train, holdout, _ = split
    assert len(DCRReference(train, holdout, max_records=10 * len(train)).records_) == len(train)


def test_dcr_max_records_below_one(split):
    train, holdout, _ = split
    with pytest.raises(ValueError, match="max_records"):
        DCRReference(train, holdout, max_records=0)


# ------------------------------------------------------------------ attribute inference
def _inference_tables(n: int, seed: int) -> tuple[pd.DataFrame, pd.DataFrame]:
    rng = np.random.default_rng(seed)
    frame = pd.DataFrame({"x": rng.choice(["p", "q", "r"], size=n), "z": rng.normal(size=n)})
    frame["secret"] = frame["x"].map({"p": "yes", "q": "no", "r": "yes"})
    return frame.iloc[: n // 2].reset_index(drop=True), frame.iloc[n // 2:].reset_index(drop=True)


def test_attribute_inference_copied_feature_is_learnt():
    release, holdout = _inference_tables(600, seed=7)
    res = attribute_inference(release, holdout, target="secret", random_state=0)
    assert res["accuracy"] == pytest.approx(1.0)
    assert res["advantage"] == pytest.approx(1.0 - res["majority"])


def test_attribute_inference_shuffled_target_gives_no_advantage():
    rng = np.random.default_rng(8)
    n = 1200
    frame = pd.DataFrame({"x": rng.choice(["p", "q"], p=[0.2, 0.8], size=n), "z": rng.normal(size=n)})
    frame["secret"] = np.where(frame["x"] == "p", "yes", "no")  # learnable from x, before the shuffle
    release, holdout = frame.iloc[:600].copy(), frame.iloc[600:].reset_index(drop=True)
    release["secret"] = rng.permutation(release["secret"].to_numpy())
    res = attribute_inference(release, holdout, target="secret", classifier="lr", random_state=0)
    assert abs(res["advantage"]) < 0.08


def test_attribute_inference_same_seed_same_result():
    release, holdout = _inference_tables(300, seed=9)
    release["z"] += np.random.default_rng(0).normal(size=len(release))
    a = attribute_inference(release, holdout, target="secret", classifier="rf", random_state=3)
    b = attribute_inference(release, holdout, target="secret", classifier="rf", random_state=3)
    assert a == b


def test_attribute_inference_unknown_classifier():
    release, holdout = _inference_tables(40, seed=0)
    with pytest.raises(ValueError, match="classifier must be one of"):
        attribute_inference(release, holdout, target="secret", classifier="svm")


def test_attribute_inference_missing_target():
    release, holdout = _inference_tables(40, seed=0)
    with pytest.raises(DataError, match="target column 'nope'"):
        attribute_inference(release, holdout, target="nope")


def test_attribute_inference_target_among_features():
    release, holdout = _inference_tables(40, seed=0)
    with pytest.raises(ValueError, match="must not be one of the features"):
        attribute_inference(release, holdout, target="secret", features=["x", "secret"])


def test_attribute_inference_int_target():
    release, holdout = _inference_tables(40, seed=0)
    with pytest.raises(TypeError, match="target"):
        attribute_inference(release, holdout, target=2)


def test_attribute_inference_str_random_state():
    release, holdout = _inference_tables(40, seed=0)
    with pytest.raises(TypeError, match="random_state"):
        attribute_inference(release, holdout, target="secret", random_state="0")


# ------------------------------------------------------------------ membership inference
def _noisy_labels(n: int, seed: int):
    rng = np.random.default_rng(seed)
    X = rng.normal(size=(n, 3))
    y = ((X[:, 0] + rng.normal(scale=1.5, size=n)) > 0).astype(int)
    return X[: n // 2], y[: n // 2], X[n // 2:], y[n // 2:]


def test_membership_auc_is_half_for_model_ignoring_input():
    Xm, ym, Xn, yn = _noisy_labels(800, seed=10)
    model = DummyClassifier(strategy="prior").fit(Xm, ym)
    res = membership_inference_auc(model, Xm, ym, Xn, yn)
    assert abs(res["auc"] - 0.5) < 0.06
    assert res["advantage"] < 0.1


def test_membership_auc_high_for_overfit_tree():
    Xm, ym, Xn, yn = _noisy_labels(800, seed=11)
    model = DecisionTreeClassifier(random_state=0).fit(Xm, ym)
    res = membership_inference_auc(model, Xm, ym, Xn, yn)
    assert res["auc"] > 0.65
    assert res["advantage"] > 0.3
    assert res["mean_loss_members"] < res["mean_loss_nonmembers"]


def test_membership_auc_works_with_cdp_logistic_regression():
    from core.cdp.logistic import CDPLogisticRegression

    Xm, ym, Xn, yn = _noisy_labels(400, seed=12)
    model = CDPLogisticRegression(epsilon=1.0, noise_method=1, random_state=0).fit(Xm, ym)
    res = membership_inference_auc(model, Xm, ym, Xn, yn)
    assert 0.0 <= res["auc"] <= 1.0
    assert res["n_members"] == res["n_nonmembers"] == 200


def test_membership_unknown_label_costs_the_floor():
    Xm, ym, Xn, yn = _noisy_labels(100, seed=13)
    model = DecisionTreeClassifier(random_state=0).fit(Xm, ym)
    res = membership_inference_auc(model, Xm, ym, Xn, np.full(len(yn), 7))
    assert res["mean_loss_nonmembers"] == pytest.approx(-np.log(1e-12))
    assert res["auc"] == 1.0


def test_membership_model_without_predict_proba():
    Xm, ym, Xn, yn = _noisy_labels(20, seed=0)
    with pytest.raises(TypeError, match="predict_proba"):
        membership_inference_auc(object(), Xm, ym, Xn, yn)


def test_membership_length_mismatch():
    Xm, ym, Xn, yn = _noisy_labels(20, seed=0)
    model = DummyClassifier().fit(Xm, ym)
    with pytest.raises(ValueError, match="one row per record"):
        membership_inference_auc(model, Xm, ym[:-1], Xn, yn)


def test_membership_empty_group():
    Xm, ym, Xn, yn = _noisy_labels(20, seed=0)
    model = DummyClassifier().fit(Xm, ym)
    with pytest.raises(DataError, match="nonmembers needs at least one record"):
        membership_inference_auc(model, Xm, ym, Xn[:0], yn[:0])


# ------------------------------------------------------------------ attribute inference on members
def _noise_members(n: int, seed: int) -> tuple[pd.DataFrame, pd.DataFrame]:
    """A secret of pure noise beside unique numbers: only a copy of the rows reveals it."""
    rng = np.random.default_rng(seed)
    frame = pd.DataFrame({"z": rng.normal(size=n), "w": rng.normal(size=n),
                          "secret": rng.choice(["yes", "no"], size=n)})
    return frame.iloc[: n // 2].reset_index(drop=True), frame.iloc[n // 2:].reset_index(drop=True)


def test_members_leave_the_holdout_scores_unchanged():
    release, holdout = _inference_tables(400, seed=3)
    plain = attribute_inference(release, holdout, target="secret", classifier="hgb", random_state=1)
    both = attribute_inference(release, holdout, target="secret", classifier="hgb", random_state=1,
                               members=release)
    assert {k: both[k] for k in plain} == plain
    assert both["n_members"] == len(release)


def test_a_copy_of_the_members_reveals_their_noise_secret():
    """The release is the members themselves: the attacker does better on them than on the control."""
    train, control = _noise_members(800, seed=4)
    res = attribute_inference(train, control, target="secret", classifier="hgb", random_state=0, members=train)
    assert res["member_advantage"] > 0.15
    assert abs(res["advantage"]) < 0.1  # nothing about people outside the release


def test_an_independent_release_tells_no_more_about_the_members():
    train, control = _noise_members(1200, seed=5)
    other, _ = _noise_members(1200, seed=6)
    res = attribute_inference(other, control, target="secret", classifier="hgb", random_state=0, members=train)
    assert abs(res["member_advantage"]) < 0.08


def test_members_must_have_the_columns():
    release, holdout = _inference_tables(40, seed=0)
    with pytest.raises(DataError, match="members table lacks"):
        attribute_inference(release, holdout, target="secret", members=release[["x"]])


def test_dcr_by_an_index_reports_its_recall_and_is_close_to_the_exact_risk(split):
    train, holdout, _ = split
    rng = np.random.default_rng(6)
    noisy = train.assign(age=train["age"] + rng.normal(scale=0.5, size=len(train)))
    exact = distance_to_closest_record(noisy, train, holdout, search="exact")
    approx = distance_to_closest_record(noisy, train, holdout, search="approximate", random_state=0)
    assert exact["search"] == "exact" and exact["search_recall"] == 1.0
    assert approx["search"] == "approximate" and 0.0 < approx["search_recall"] <= 1.0
    assert "recall" in approx["search_note"]
    assert abs(approx["risk"] - exact["risk"]) <= 1.0 - approx["search_recall"] + 0.02



def test_every_dcr_search_checks_its_recall_with_the_same_draw_whatever_the_order(split, monkeypatch):
    from core.evaluation.attacks import distance

    train, holdout, _ = split
    seeds = []

    def recorded(*args, random_state=None, **kwargs):
        seeds.append(random_state)
        return nearest_search(*args, random_state=random_state, **kwargs)

    nearest_search = distance.nearest_search
    monkeypatch.setattr(distance, "nearest_search", recorded)
    rng = np.random.default_rng(9)
    first, second = (train.assign(age=train["age"] + rng.normal(0, s, len(train))) for s in (0.5, 2.0))
    one = DCRReference(train, holdout, search="approximate", random_state=3)
    one.measure(first)
    one.measure(second)
    DCRReference(train, holdout, search="approximate", random_state=3).measure(second)
    assert len(seeds) == 5 and len(set(seeds)) == 1 and isinstance(seeds[0], int)
