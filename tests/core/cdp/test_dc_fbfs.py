"""DC-FBFS (Algorithm 1 of paper 000)."""
from __future__ import annotations

import numpy as np
import pytest

from core.cdp.dc_fbfs import dc_fbfs
from core.validation import DataError


def _data(n=240, seed=0):
    rng = np.random.default_rng(seed)
    X = rng.normal(size=(n, 5))
    y = (X[:, 0] + 0.8 * X[:, 1] + 0.3 * rng.normal(size=n) > 0).astype(int)
    return X, y, ["a", "b", "c", "d", "e"]


@pytest.fixture(scope="module")
def result():
    X, y, names = _data()
    return dc_fbfs(X, y, names, tc=5.0, threshold=0.7, random_state=0)


def test_lists_have_one_entry_per_feature(result):
    assert len(result.forward_accuracy) == len(result.backward_accuracy) == 5
    assert len(result.importance) == len(result.dc) == 5
    assert sorted(result.order) == sorted(result.names)


def test_important_features_rank_first(result):
    assert set(result.order[:2]) == {"a", "b"}


def test_k1_and_k2_are_the_best_positions(result):
    assert result.forward_accuracy[result.k1 - 1] == max(result.forward_accuracy)
    assert result.backward_accuracy[result.k2 - 1] == max(result.backward_accuracy)
    expected = set(result.order[result.k1:]) | set(result.order[5 + 1 - result.k2:])
    assert set(result.F_fb_del) == expected


def test_deleted_set_is_the_intersection_and_selected_the_rest(result):
    assert set(result.F_c_del) == {n for n, d in zip(result.names, result.dc) if d < result.tc}
    assert set(result.F_del) == set(result.F_fb_del) & set(result.F_c_del)
    assert set(result.selected) == set(result.names) - set(result.F_del)
    assert result.selected  # the most important feature is never deleted


def test_dc_is_the_change_of_data_correlation(result):
    np.testing.assert_allclose(result.dc, np.abs(result.data_correlation - result.correlation_without))


def test_same_seed_same_result(result):
    X, y, names = _data()
    again = dc_fbfs(X, y, names, tc=5.0, threshold=0.7, random_state=0)
    assert again.forward_accuracy == result.forward_accuracy
    assert again.selected == result.selected
    np.testing.assert_array_equal(again.importance, result.importance)


def test_with_tc_recomputes_only_the_last_steps(result):
    strict = result.with_tc(1e12)
    assert set(strict.F_c_del) == set(result.names)
    assert set(strict.F_del) == set(result.F_fb_del)
    assert result.with_tc(0.0).F_del == []


def test_bad_inputs_are_refused():
    X, y, names = _data()
    with pytest.raises(ValueError):
        dc_fbfs(X, y, names, tc=-1)
    with pytest.raises(DataError):
        dc_fbfs(X, np.zeros(len(X)), names)
    with pytest.raises(ValueError):
        dc_fbfs(X, y, names[:3])


def test_progress_runs_forward_to_the_end_and_changes_nothing(result):
    X, y, names = _data()
    seen = []
    told = dc_fbfs(X, y, names, tc=5.0, threshold=0.7, random_state=0,
                   progress=lambda f, m: seen.append((f, m)))
    fractions = [f for f, _ in seen]
    assert fractions == sorted(fractions) and fractions[-1] == 1.0
    assert any(m.startswith("Forward traversal") for _, m in seen)
    assert np.array_equal(told.dc, result.dc) and told.forward_accuracy == result.forward_accuracy
