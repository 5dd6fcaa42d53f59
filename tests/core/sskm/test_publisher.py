"""SSKM_DP publishing (Eq. 18-19 of paper 003)."""
from __future__ import annotations

import numpy as np
import pandas as pd
import pytest
from scipy import stats

from core.metrics import mse, record_linkage
from core.sskm.connection import mic_connections
from core.sskm.publisher import SSKMDP, ScaledTable
from core.validation import DataError

FAST = dict(rows=6, cols=6, iterations=4000, sfla_params={"iterations": 5, "n_frogs": 6}, mic_max_rows=600)


@pytest.fixture(scope="module")
def fitted(census_frame):
    return SSKMDP(epsilon=1.0, sensitive="sex", cs_threshold=0.3, random_state=0, **FAST).fit(census_frame)


def test_published_frame_has_the_original_columns_and_values(fitted, census_frame):
    out = fitted.publish(random_state=1)
    assert list(out.columns) == list(census_frame.columns)
    assert len(out) == len(census_frame)
    for col in ("sex", "relationship", "occupation"):
        assert set(out[col]) <= set(census_frame[col])
    assert out["age"].dtype.kind == "i"
    assert out["age"].between(census_frame["age"].min(), census_frame["age"].max()).all()


def test_one_ledger_entry_per_cluster_in_one_parallel_group(fitted):
    fitted.publish(epsilon=0.7, random_state=0)
    assert len(fitted.ledger_) == len(fitted.clusters_)
    assert {e.parallel_group for e in fitted.ledger_.entries} == {"sskm_dp clusters"}
    assert fitted.ledger_.total() == (pytest.approx(0.7), 0.0)


def test_noise_scale_is_range_over_size_times_protected_over_epsilon(fitted):
    fitted.publish(epsilon=0.5, random_state=0)
    q = len(fitted.protected_)
    for c, size in fitted.cluster_sizes_.items():
        assert fitted.noise_scale_[c] == pytest.approx(q / (size * 0.5))


def test_noise_is_laplace_of_the_stated_scale(fitted):
    """Statistical check: the right scale passes a KS test, a scale without q fails."""
    eps = 2.0
    idx = [fitted.table_.columns.index(c) for c in fitted.connections_.protected]
    q = len(idx)
    sizes = fitted._counts.astype(float)
    draws, wrong = [], []
    for seed in range(60):
        fitted.publish(epsilon=eps, random_state=seed)
        noise = fitted.noisy_centres_[:, idx] - fitted.centres_[:, idx]
        draws.append((noise * sizes[:, None] * eps / q).ravel())
        wrong.append((noise * sizes[:, None] * eps).ravel())
    right_p = stats.kstest(np.concatenate(draws), stats.laplace.cdf).pvalue
    wrong_p = stats.kstest(np.concatenate(wrong), stats.laplace.cdf).pvalue
    assert right_p > 0.01
    assert wrong_p < 1e-6


def test_unprotected_attributes_are_exact_cluster_centres(fitted):
    fitted.publish(random_state=0)
    free = [j for j, c in enumerate(fitted.table_.columns) if c not in fitted.protected_]
    assert free
    expected = np.clip(fitted.centres_[fitted._inverse][:, free], 0, 1)
    assert np.array_equal(fitted.published_scaled_[:, free], expected)


def test_mse_falls_and_rl_rises_as_epsilon_grows(fitted):
    X = fitted.table_.X
    res = {}
    for eps in (0.05, 1.0, 5.0):
        m, r = [], []
        for seed in range(5):
            fitted.publish(epsilon=eps, random_state=seed)
            m.append(mse(X, fitted.published_scaled_))
            r.append(record_linkage(X, fitted.published_scaled_))
        res[eps] = (np.mean(m), np.mean(r))
    assert res[0.05][0] > res[1.0][0] > res[5.0][0]
    assert res[0.05][1] <= res[1.0][1] <= res[5.0][1]
    assert res[0.05][1] < res[5.0][1]


def test_same_seed_same_release(census_frame):
    small = census_frame.head(300)
    a = SSKMDP(epsilon=1.0, sensitive="sex", random_state=4, **FAST).fit_transform(small)
    b = SSKMDP(epsilon=1.0, sensitive="sex", random_state=4, **FAST).fit_transform(small)
    c = SSKMDP(epsilon=1.0, sensitive="sex", random_state=5, **FAST).fit_transform(small)
    pd.testing.assert_frame_equal(a, b)
    assert not a.equals(c)


def test_precomputed_connections_are_reused(census_frame):
    small = census_frame.head(300)
    conn = mic_connections(small, "sex", threshold=0.3, max_rows=None)
    pub = SSKMDP(epsilon=1.0, sensitive="sex", cs_threshold=0.0, random_state=0, **FAST)
    pub.fit(small, connections=conn)
    assert pub.connections_.strengths is conn.strengths
    assert set(pub.connections_.protected) == set(small.columns)


def test_needs_a_sensitive_attribute(census_frame):
    with pytest.raises(ValueError, match="at least one sensitive"):
        SSKMDP(epsilon=1.0, **FAST).fit(census_frame)
    with pytest.raises(DataError, match="not in the data"):
        SSKMDP(epsilon=1.0, sensitive="salary", **FAST).fit(census_frame)


@pytest.mark.parametrize("eps", [0, -1.0, float("nan")])
def test_bad_epsilon_is_refused(census_frame, eps):
    with pytest.raises(ValueError):
        SSKMDP(epsilon=eps, sensitive="sex", **FAST).fit(census_frame)


def test_scaled_table_round_trips_and_fills_missing():
    frame = pd.DataFrame({"x": [1.0, np.nan, 3.0, 5.0], "c": ["b", "a", None, "b"], "k": [0, 0, 0, 0]})
    t = ScaledTable(frame)
    assert np.all((t.X >= 0) & (t.X <= 1))
    back = t.decode(t.X)
    assert back["x"].tolist() == [1.0, 3.0, 3.0, 5.0]
    assert back["c"].tolist() == ["b", "a", "b", "b"]
    assert back["k"].tolist() == [0, 0, 0, 0]
    assert t.unit_range.tolist() == [1.0, 1.0, 0.0]


def test_scaled_table_refuses_infinite_values():
    with pytest.raises(DataError, match="infinite"):
        ScaledTable(pd.DataFrame({"x": [1.0, np.inf, 2.0]}))
