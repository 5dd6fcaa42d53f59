"""MDAV, MDAV_DP and IDP-KMeans (the baselines of paper 003's Fig. 7)."""
from __future__ import annotations

import numpy as np
import pytest
from scipy import stats

from core.sskm.baselines import group_size, idp_kmeans, mdav, mdav_dp, microaggregate


def _mdav_reference(X: np.ndarray, k: int) -> list[frozenset]:
    """Plain MDAV, one record at a time, straight from the sdcMicro description."""
    left = list(range(len(X)))
    groups = []

    def farthest(point, pool):
        return max(pool, key=lambda i: np.linalg.norm(X[i] - point))

    def nearest_k(point, pool):
        return sorted(pool, key=lambda i: np.linalg.norm(X[i] - point))[:k]

    while len(left) >= 3 * k:
        c = X[left].mean(axis=0)
        r = farthest(c, left)
        s = farthest(X[r], left)
        g = nearest_k(X[r], left)
        groups.append(frozenset(g))
        left = [i for i in left if i not in g]
        g = nearest_k(X[s], left)
        groups.append(frozenset(g))
        left = [i for i in left if i not in g]
    if len(left) >= 2 * k:
        c = X[left].mean(axis=0)
        r = farthest(c, left)
        g = nearest_k(X[r], left)
        groups.append(frozenset(g))
        left = [i for i in left if i not in g]
    if left:
        groups.append(frozenset(left))
    return groups


def _groups(labels: np.ndarray) -> list[frozenset]:
    return [frozenset(np.flatnonzero(labels == g).tolist()) for g in np.unique(labels)]


@pytest.mark.parametrize("n, k", [(60, 3), (61, 5), (47, 4), (25, 10), (12, 5), (7, 7), (100, 1)])
def test_mdav_matches_the_brute_force_reference(n, k):
    X = np.random.default_rng(n * 100 + k).random((n, 3))
    assert set(_groups(mdav(X, k))) == set(_mdav_reference(X, k))


@pytest.mark.parametrize("n, k", [(103, 4), (50, 7), (500, 10)])
def test_mdav_groups_have_k_to_2k_minus_1_records(n, k):
    labels = mdav(np.random.default_rng(n).random((n, 4)), k)
    sizes = np.bincount(labels)
    assert sizes.sum() == n  # every record in exactly one group
    assert np.all(labels >= 0)
    assert np.all((sizes >= k) & (sizes <= 2 * k - 1))
    assert np.sum(sizes != k) <= 1


def test_mdav_by_number_of_clusters():
    X = np.random.default_rng(0).random((200, 2))
    labels = mdav(X, n_clusters=20)  # k = 10
    assert len(np.unique(labels)) == 20
    assert group_size(200, n_clusters=20) == 10


def test_mdav_needs_exactly_one_of_k_and_n_clusters():
    X = np.zeros((10, 2))
    with pytest.raises(ValueError, match="exactly one"):
        mdav(X, 2, n_clusters=3)
    with pytest.raises(ValueError, match="cannot exceed"):
        mdav(X, 11)


def test_microaggregate_replaces_records_by_group_means():
    X = np.array([[0.0], [2.0], [10.0], [12.0]])
    centers, published = microaggregate(X, np.array([0, 0, 1, 1]))
    assert np.allclose(centers.ravel(), [1.0, 11.0])
    assert np.allclose(published.ravel(), [1, 1, 11, 11])


def test_mdav_dp_noise_has_scale_range_over_k_epsilon():
    rng = np.random.default_rng(5)
    X = rng.random((400, 3))
    k, eps = 20, 0.5
    centers, _ = microaggregate(X, mdav(X, k))
    span = X.max(axis=0) - X.min(axis=0)
    draws = np.concatenate([
        ((mdav_dp(X, k, eps, random_state=s).centers - centers) / span).ravel() for s in range(40)
    ])
    right = stats.kstest(draws, stats.laplace(scale=1 / (k * eps)).cdf).pvalue
    wrong = stats.kstest(draws, stats.laplace(scale=2 / (k * eps)).cdf).pvalue
    assert right > 0.01
    assert wrong < 1e-6


def test_mdav_dp_ledger_is_parallel():
    res = mdav_dp(np.random.default_rng(0).random((90, 2)), 10, 0.7, random_state=0)
    assert len(res.ledger) == 9
    assert res.ledger.total() == (pytest.approx(0.7), 0.0)


def test_idp_kmeans_uses_a_clusters_and_spends_epsilon():
    X = np.random.default_rng(1).random((300, 3))
    res = idp_kmeans(X, 6, 2.0, iterations=4, random_state=0)
    assert res.centers.shape == (6, 3)
    assert res.published.shape == X.shape
    assert res.ledger.total()[0] == pytest.approx(2.0)
    assert np.all((res.published >= 0) & (res.published <= 1))


def test_idp_kmeans_is_seeded():
    X = np.random.default_rng(1).random((200, 2))
    a = idp_kmeans(X, 5, 1.0, random_state=3)
    b = idp_kmeans(X, 5, 1.0, random_state=3)
    assert np.array_equal(a.published, b.published)


def test_idp_kmeans_with_a_large_budget_finds_the_blobs(blobs):
    res = idp_kmeans(blobs, 6, 1e6, iterations=8, random_state=0)
    err = np.mean(np.sum((blobs - res.published) ** 2, axis=1))
    assert err < 0.05


def test_mdav_breaks_ties_like_the_reference_on_duplicate_records():
    rng = np.random.default_rng(3)
    X = rng.integers(0, 3, size=(90, 2)).astype(float)  # many identical records
    assert [sorted(g) for g in sorted(_groups(mdav(X, 4)), key=min)] == \
        [sorted(g) for g in sorted(_mdav_reference(X, 4), key=min)]
