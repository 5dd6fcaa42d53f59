"""Fig. 1 of paper 000: C(x) of the first k features (core.cdp.feature_count)."""
from __future__ import annotations

import numpy as np
import pytest

from core.cdp.feature_count import COLUMNS, correlation_by_feature_count
from core.correlation.records import data_correlation


def _data(n: int = 120, p: int = 4, seed: int = 0):
    rng = np.random.default_rng(seed)
    X = rng.normal(size=(n, p))
    y = (X[:, 0] + 0.5 * X[:, 1] > 0).astype(int)
    return X, y, [f"f{i}" for i in range(p)]


def test_table_has_one_row_per_feature_count():
    X, y, names = _data()
    t = correlation_by_feature_count(X, names, y=y, measure="mahalanobis", random_state=0)
    assert tuple(t.columns) == COLUMNS
    assert t["features"].tolist() == [1, 2, 3, 4]
    assert sorted(t["added feature"]) == names


def test_given_order_is_honored_and_each_value_is_c_of_that_prefix():
    X, _, names = _data()
    order = ["f2", "f0", "f3", "f1"]
    t = correlation_by_feature_count(X, names, order=order, measure="mahalanobis", threshold=0.5)
    assert t["added feature"].tolist() == order
    idx = [names.index(n) for n in order]
    for k in range(1, 5):
        want = data_correlation(X[:, idx[:k]], measure="mahalanobis", threshold=0.5)
        assert t["C(x)"].iloc[k - 1] == pytest.approx(want)


def test_default_order_is_descending_importance():
    X, y, names = _data()
    t = correlation_by_feature_count(X, names, y=y, measure="mahalanobis", random_state=0)
    assert t["added feature"].iloc[0] == "f0"  # the label is mostly f0


def test_an_exact_duplicate_feature_does_not_increase_c():
    X, _, _ = _data(p=3)
    Xd = np.column_stack([X, X[:, 0]])
    names = ["a", "b", "c", "a copy"]
    t = correlation_by_feature_count(Xd, names, order=names, measure="mahalanobis", threshold=0.5)
    assert t["C(x)"].iloc[3] <= t["C(x)"].iloc[2] + 1e-9


def test_pearson_across_one_feature_is_undefined():
    X, _, names = _data()
    t = correlation_by_feature_count(X, names, order=names, measure="pearson")
    assert np.isnan(t["C(x)"].iloc[0]) and np.isfinite(t["C(x)"].iloc[1:]).all()


def test_same_seed_same_table():
    X, y, names = _data()
    a = correlation_by_feature_count(X, names, y=y, measure="mahalanobis", random_state=3)
    b = correlation_by_feature_count(X, names, y=y, measure="mahalanobis", random_state=3)
    assert a.equals(b)


def test_progress_reaches_the_end():
    X, y, names = _data()
    seen = []
    correlation_by_feature_count(X, names, y=y, random_state=0, progress=lambda f, m: seen.append(f))
    assert seen[-1] == 1.0 and seen == sorted(seen)


def test_wrong_names_type_is_a_type_error():
    X, y, _ = _data()
    with pytest.raises(TypeError):
        correlation_by_feature_count(X, "f0f1f2f3", y=y)


def test_order_that_is_not_a_permutation_is_a_value_error():
    X, _, names = _data()
    with pytest.raises(ValueError, match="every feature"):
        correlation_by_feature_count(X, names, order=["f0", "f1", "f2", "f2"])


def test_importance_order_without_labels_is_a_value_error():
    X, _, names = _data()
    with pytest.raises(ValueError, match="labels"):
        correlation_by_feature_count(X, names)


def test_bad_measure_is_a_value_error():
    X, _, names = _data()
    with pytest.raises(ValueError, match="measure"):
        correlation_by_feature_count(X, names, order=names, measure="cosine")
