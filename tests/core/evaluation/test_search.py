"""Nearest-neighbour search at every size (core.evaluation.attacks.search)."""
from __future__ import annotations

import numpy as np
import pytest

from core.evaluation.attacks import search as S
from core.evaluation.attacks.nearest import nearest_distances


def _data(n=3000, m=2500, p=20, seed=0):
    rng = np.random.default_rng(seed)
    return rng.random((n, p)), rng.random((m, p))


@pytest.mark.parametrize("method", ["exact", "tree"])
def test_the_exact_methods_agree_with_the_blocked_products(method):
    Q, R = _data(p=6)
    got = S.nearest_search(Q, R, method=method, block_rows=700)
    np.testing.assert_allclose(got.distances, nearest_distances(Q, R), atol=1e-9)
    assert got.method == method and got.recall == 1.0 and got.checked == 0


def test_the_approximate_search_reports_a_measured_recall_and_never_a_too_small_distance():
    Q, R = _data()
    got = S.nearest_search(Q, R, method="approximate", random_state=1)
    exact = nearest_distances(Q, R)
    assert got.method == "approximate" and got.checked == S.RECALL_QUERIES
    assert (got.distances >= exact - 1e-12).all()
    true_recall = float(np.mean(got.distances <= exact + 1e-12))
    lo, hi = got.recall_interval
    assert lo <= true_recall <= hi and got.recall > 0.8
    assert got.mean_excess >= 0 and "recall" in got.describe()


def test_the_approximate_search_is_deterministic():
    Q, R = _data(n=1500)
    a = S.nearest_search(Q, R, method="approximate", random_state=3)
    b = S.nearest_search(Q, R, method="approximate", random_state=3)
    np.testing.assert_array_equal(a.distances, b.distances)
    assert a.recall == b.recall


def test_an_exact_copy_is_at_distance_zero_on_every_path():
    _, R = _data(p=8)
    for method in ("exact", "tree", "approximate"):
        assert S.nearest_search(R[:200], R, method=method, random_state=0).distances.max() == 0.0


def test_auto_is_exact_for_small_tables_tree_for_few_columns_and_an_index_otherwise():
    assert S.choose_search(1000, 1000, 200) == "exact"
    big = int(np.sqrt(S.EXACT_PAIRS)) + 1
    assert S.choose_search(big, big, S.TREE_COLUMNS) == "tree"
    assert S.choose_search(big, big, S.TREE_COLUMNS + 1) == "approximate"


def test_a_search_on_a_cluster_equals_this_process(dask_cluster):
    Q, R = _data(n=2000, p=12)
    here = S.nearest_search(Q, R, method="approximate", block_rows=500, random_state=2)
    there = S.nearest_search(Q, R, method="approximate", block_rows=500, random_state=2, scheduler=dask_cluster)
    np.testing.assert_array_equal(here.distances, there.distances)


def test_bad_arguments_are_refused_in_words():
    Q, R = _data(n=10, m=10)
    with pytest.raises(ValueError, match="method"):
        S.nearest_search(Q, R, method="fast")
    with pytest.raises(ValueError, match="same columns"):
        S.nearest_search(Q, R[:, :3])


def test_a_reference_of_repeated_rows_keeps_the_recall_of_its_distinct_rows():
    rng = np.random.default_rng(4)
    centres = rng.random((60, 10))
    reference = centres[rng.integers(0, 60, 4000)]  # a cluster release: 60 rows repeated
    queries = rng.random((1500, 10))
    got = S.nearest_search(queries, reference, method="approximate", random_state=0)
    np.testing.assert_allclose(got.distances, nearest_distances(queries, centres), atol=1e-12)
    assert got.recall == 1.0


def test_exact_matches_finds_equal_rows_only():
    _, R = _data(n=10, m=300, p=6)
    queries = np.vstack([R[[5, 17]], R[[5]] + 1e-12])
    np.testing.assert_array_equal(S.exact_matches(queries, R), [5, 17, -1])


def test_queries_equal_to_a_reference_row_are_at_zero_without_the_index_and_out_of_its_recall():
    Q, R = _data(n=1500, m=2500, p=12)
    queries = np.vstack([R[:600], Q])
    got = S.nearest_search(queries, R, method="approximate", random_state=0)
    assert got.copies == 600 and (got.distances[:600] == 0).all()
    assert got.method == "approximate" and got.checked == S.RECALL_QUERIES  # drawn from the 1,500 searched
    assert "without the index" in got.describe()


def test_the_table_against_itself_needs_no_search():
    _, R = _data(p=8)
    got = S.nearest_search(R, R, method="approximate", random_state=0)
    assert got.copies == len(R) and got.method == "exact" and got.checked == 0
    assert (got.distances == 0).all()
