"""MDAV, MDAV_DP and IDP-KMeans (the baselines of paper 003's Fig. 7)."""
from __future__ import annotations

import numpy as np
import pytest
from scipy import stats

from core.sskm.baseline_release import group_size
from core.sskm.dp_kmeans import idp_kmeans
from core.sskm.microaggregation import (
    MDAV_DP_NOT_DP_REASON, mdav, mdav_dp, mdav_release, microaggregate,
)


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


def test_mdav_dp_noise_has_scale_range_times_m_over_k_epsilon():
    """The whole record costs epsilon: m attributes, each range / k, so m x range / (k eps)."""
    rng = np.random.default_rng(5)
    X = rng.random((400, 3))
    k, eps, m = 20, 0.5, 3
    centers, _ = microaggregate(X, mdav(X, k))
    span = X.max(axis=0) - X.min(axis=0)
    res = mdav_dp(X, k, eps, random_state=0)
    assert np.allclose(res.noise_scale, span * m / (k * eps))
    draws = np.concatenate([
        ((mdav_dp(X, k, eps, random_state=s).centers - centers) / span).ravel() for s in range(40)
    ])
    right = stats.kstest(draws, stats.laplace(scale=m / (k * eps)).cdf).pvalue
    per_attribute = stats.kstest(draws, stats.laplace(scale=1 / (k * eps)).cdf).pvalue  # the old scale
    assert right > 0.01
    assert per_attribute < 1e-6


def test_mdav_dp_ledger_is_parallel_nominal_and_not_dp():
    res = mdav_dp(np.random.default_rng(0).random((90, 2)), 10, 0.7, random_state=0)
    assert len(res.ledger) == 9
    assert res.ledger.nominal() == (pytest.approx(0.7), 0.0)
    assert not res.ledger.is_dp
    assert res.ledger.not_dp_reasons == [MDAV_DP_NOT_DP_REASON]
    assert res.ledger.total()[0] == float("inf")
    assert any("minima and maxima" in a for a in res.ledger.assumptions)


def test_mdav_dp_uses_public_bounds_when_given():
    X = np.random.default_rng(0).random((90, 2)) * 0.5
    res = mdav_dp(X, 10, 1.0, bounds=[(0, 2), (0, 1)], random_state=0)
    assert np.allclose(res.noise_scale, np.array([2.0, 1.0]) * 2 / 10)
    assert res.published[:, 0].max() <= 2 and res.published[:, 1].max() <= 1
    assert any("given by the user" in a for a in res.ledger.assumptions)
    with pytest.raises(ValueError, match="shape"):
        mdav_dp(X, 10, 1.0, bounds=[(0, 1)])


def test_mdav_dp_does_not_reuse_noise_across_epsilons():
    X = np.random.default_rng(0).random((90, 2))
    centers, _ = microaggregate(X, mdav(X, 10))
    n1 = mdav_dp(X, 10, 1.0, random_state=4).centers - centers
    n2 = mdav_dp(X, 10, 2.0, random_state=4).centers - centers
    assert not np.allclose(n1, 2 * n2)


def test_plain_mdav_release_has_a_ledger_that_is_not_dp():
    X = np.random.default_rng(0).random((60, 2))
    res = mdav_release(X, 5)
    assert not res.ledger.is_dp and len(res.ledger) == 0
    _, published = microaggregate(X, mdav(X, 5))
    assert np.array_equal(res.published, published)
    assert res.metrics(X)[1] > 0


def test_idp_kmeans_uses_a_clusters_and_spends_epsilon():
    X = np.random.default_rng(1).random((300, 3))
    res = idp_kmeans(X, 6, 2.0, iterations=4, random_state=0)
    assert res.centers.shape == (6, 3)
    assert res.ledger.is_dp
    assert res.ledger.total() == (pytest.approx(2.0), 0.0)
    assert len(res.ledger) == 8  # counts and sums of one vector per iteration, not per cluster
    assert all("discrete Laplace" in e.noise for e in res.ledger.entries)
    assert all(e.parallel_group is None for e in res.ledger.entries)
    assert np.all((res.published >= 0) & (res.published <= 1))
    assert any("[0, 1]" in a for a in res.ledger.assumptions)


def test_idp_kmeans_releases_rows_from_noisy_counts_not_records():
    X = np.random.default_rng(1).random((300, 3))
    res = idp_kmeans(X, 6, 1.0, iterations=3, random_state=0)
    assert len(res.published) == res.row_counts.sum()
    assert len(res.published) != len(X)
    assert np.array_equal(res.row_counts, np.rint(np.maximum(res.noisy_counts, 0)))
    true_counts = np.bincount(res.labels, minlength=6)
    assert not np.allclose(res.noisy_counts, true_counts)  # the counts carry noise
    # each released row is one of the centres, in shuffled order
    which = np.argmin(((res.published[:, None, :] - res.centers[None]) ** 2).sum(axis=2), axis=1)
    assert np.array_equal(np.bincount(which, minlength=6), res.row_counts)
    assert not np.all(np.diff(which) >= 0)


def test_idp_kmeans_noise_is_calibrated_to_replacement():
    """One iteration from given centres: noise of scale 2(m + 1) / epsilon on the sums (exact
    discrete Laplace on a fine grid) and integer noise on the counts."""
    rng = np.random.default_rng(2)
    X = rng.random((200, 2))
    init = np.array([[0.25, 0.5], [0.75, 0.5]])
    lab = np.argmin(((X[:, None] - init[None]) ** 2).sum(axis=2), axis=1)
    true_sums = np.stack([X[lab == c].sum(axis=0) for c in range(2)])
    eps = 2.0
    runs = [idp_kmeans(X, 2, eps, iterations=1, init=init, random_state=s) for s in range(300)]
    draws = np.concatenate([(r.noisy_sums - true_sums).ravel() for r in runs]) / (2 * 3 / eps)
    assert stats.kstest(draws, stats.laplace.cdf).pvalue > 0.01
    assert stats.kstest(draws * 2, stats.laplace.cdf).pvalue < 1e-6  # (m + 1) / eps, add/remove
    assert all(np.array_equal(r.noisy_counts, np.round(r.noisy_counts)) for r in runs)  # integer grid


def test_idp_kmeans_takes_a_scaled_table_and_its_reasons():
    import pandas as pd

    from core.data import load_sample
    from core.privacy.schema_builtin import schema_for
    from core.sskm.scaled_table import ScaledTable

    frame = load_sample("census").frame.head(300)
    public = idp_kmeans(ScaledTable(frame, schema=schema_for(load_sample("census"))), 5, 1.0, random_state=0)
    assert public.ledger.is_dp and public.ledger.total()[0] == pytest.approx(1.0)
    assert any("shipped with the dataset" in a for a in public.ledger.assumptions)
    read = idp_kmeans(ScaledTable(frame), 5, 1.0, random_state=0)
    assert not read.ledger.is_dp and "read from your data" in read.ledger.describe()
    dp = mdav_dp(ScaledTable(frame, schema=schema_for(load_sample("census"))), 10, 1.0, random_state=0)
    assert not dp.ledger.is_dp  # MDAV's partition still reads the rows
    assert isinstance(public.published, np.ndarray) and isinstance(frame, pd.DataFrame)


def test_idp_kmeans_canopy_start_is_not_dp():
    X = np.random.default_rng(1).random((200, 2))
    res = idp_kmeans(X, 5, 1.0, init="canopy", random_state=3)
    assert not res.ledger.is_dp
    assert "canop" in res.ledger.not_dp_reasons[0]
    with pytest.raises(ValueError, match="init"):
        idp_kmeans(X, 5, 1.0, init="kmeans++")


def test_idp_kmeans_does_not_reuse_noise_across_epsilons():
    X = np.random.default_rng(1).random((200, 2))
    init = np.array([[0.3, 0.3], [0.7, 0.7]])
    a = idp_kmeans(X, 2, 1.0, iterations=1, init=init, random_state=3)
    b = idp_kmeans(X, 2, 2.0, iterations=1, init=init, random_state=3)
    true = np.bincount(a.labels, minlength=2)
    assert not np.allclose(a.noisy_counts - true, 2 * (b.noisy_counts - true))


def test_idp_kmeans_is_seeded():
    X = np.random.default_rng(1).random((200, 2))
    a = idp_kmeans(X, 5, 1.0, random_state=3)
    b = idp_kmeans(X, 5, 1.0, random_state=3)
    assert np.array_equal(a.published, b.published)


def test_idp_kmeans_with_a_large_budget_finds_the_blobs(blobs):
    # uniform starts can meet a local optimum like any k-means; this seed's does not
    res = idp_kmeans(blobs, 6, 1e6, iterations=8, random_state=1)
    mse_value, rl = res.metrics(blobs)
    assert mse_value < 0.02
    assert 0 < rl < 1
