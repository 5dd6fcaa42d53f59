"""Record correlation and correlated / group sensitivity (paper 000)."""
from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from core.correlation.records import (
    correlated_sensitivity,
    data_correlation,
    record_correlation,
)
from core.validation import DataError

THRESHOLDS = [0.3137, 0.6571, 0.8137, 0.9433]


def dense_delta(X: np.ndarray, measure: str, t: float) -> np.ndarray:
    """Dense float64 reference: the thresholded n x n matrix of Eq. 14-15."""
    X = np.asarray(X, dtype=float)
    if measure == "pearson":
        A = X - X.mean(axis=1, keepdims=True)
        norm = np.linalg.norm(A, axis=1)
        ok = norm > 1e-12 * max(1.0, np.abs(X).max())
        A[ok] /= norm[ok, None]
        A[~ok] = 0.0
        D = np.abs(A @ A.T)
    else:
        Xc = X - X.mean(axis=0)
        S = np.atleast_2d(np.cov(Xc, rowvar=False))
        P = np.linalg.pinv(S, rcond=1e-10, hermitian=True)
        diff = Xc[:, None, :] - Xc[None, :, :]
        d = np.sqrt(np.maximum(np.einsum("ijk,kl,ijl->ij", diff, P, diff), 0.0))
        D = 1.0 / (1.0 + d)
    np.fill_diagonal(D, 1.0)
    D[D < t] = 0.0
    return D


@st.composite
def record_data(draw):
    n = draw(st.integers(2, 40))
    m = draw(st.integers(2, 5))
    seed = draw(st.integers(0, 2**16))
    rng = np.random.default_rng(seed)
    X = np.round(rng.normal(size=(n, m)), 1)
    n_dup = draw(st.integers(0, n // 2))
    for _ in range(n_dup):  # duplicate rows: fully correlated records
        X[rng.integers(n)] = X[rng.integers(n)]
    return X


@settings(max_examples=60, deadline=None, derandomize=True)
@given(
    X=record_data(),
    measure=st.sampled_from(["pearson", "mahalanobis"]),
    t=st.sampled_from(THRESHOLDS),
    block=st.integers(1, 17),
)
def test_blocked_sensitivity_matches_dense_reference(X, measure, t, block):
    D = dense_delta(X, measure, t)
    rep = correlated_sensitivity(X, measure=measure, threshold=t, block_rows=block)
    np.testing.assert_allclose(rep.per_record, D.sum(axis=1), rtol=1e-5)
    np.testing.assert_array_equal(rep.per_record_count, (D > 0).sum(axis=1))
    assert rep.group == (D > 0).sum(axis=1).max()
    assert 1.0 <= rep.correlated <= rep.group + 1e-9


@settings(max_examples=30, deadline=None, derandomize=True)
@given(X=record_data(), measure=st.sampled_from(["pearson", "mahalanobis"]), t=st.sampled_from(THRESHOLDS))
def test_record_correlation_is_symmetric_with_unit_diagonal(X, measure, t):
    M = record_correlation(X, measure=measure, threshold=t, block_rows=7).toarray()
    np.testing.assert_allclose(M, M.T)
    np.testing.assert_array_equal(np.diag(M), 1.0)
    np.testing.assert_allclose(M, dense_delta(X, measure, t), rtol=1e-5, atol=1e-7)


def test_duplicate_records_are_fully_correlated():
    X = np.array([[1.0, 2.0, 5.0], [1.0, 2.0, 5.0], [3.0, -1.0, 0.0]])
    for measure in ("pearson", "mahalanobis"):
        M = record_correlation(X, measure=measure, threshold=0.99).toarray()
        assert M[0, 1] == pytest.approx(1.0)


def test_record_with_equal_features_correlates_only_with_itself():
    X = np.array([[2.0, 2.0, 2.0], [1.0, 2.0, 3.0], [2.0, 4.0, 6.0]])
    M = record_correlation(X, measure="pearson", threshold=0.5).toarray()
    assert M[0, 0] == 1.0 and M[0, 1] == 0.0 and M[0, 2] == 0.0
    assert M[1, 2] == pytest.approx(1.0)


def test_data_correlation_is_the_upper_triangle_sum():
    X = np.random.default_rng(3).normal(size=(60, 4))
    D = dense_delta(X, "pearson", 0.6571)
    assert data_correlation(X, threshold=0.6571) == pytest.approx(np.triu(D, 1).sum(), rel=1e-6)


def test_lower_threshold_never_lowers_sensitivity():
    X = np.random.default_rng(4).normal(size=(80, 4))
    hi = correlated_sensitivity(X, threshold=0.9)
    lo = correlated_sensitivity(X, threshold=0.5)
    assert lo.correlated >= hi.correlated and lo.group >= hi.group


@pytest.mark.parametrize(
    "kwargs, exc",
    [
        ({"threshold": 0.0}, ValueError),
        ({"threshold": 1.5}, ValueError),
        ({"threshold": float("nan")}, ValueError),
        ({"threshold": "0.8"}, TypeError),
        ({"measure": "cosine"}, ValueError),
        ({"block_rows": 0}, ValueError),
    ],
)
def test_bad_parameters_are_refused(kwargs, exc):
    with pytest.raises(exc):
        correlated_sensitivity(np.ones((5, 3)), **kwargs)


def test_bad_data_is_refused():
    X = np.ones((5, 3))
    X[1, 1] = np.nan
    with pytest.raises(DataError):
        correlated_sensitivity(X)
    with pytest.raises(TypeError):
        correlated_sensitivity("abc")
    with pytest.raises(ValueError):
        correlated_sensitivity(np.ones(5))


def test_record_correlation_refuses_too_many_pairs():
    X = np.tile([[1.0, 2.0, 3.0]], (50, 1))
    with pytest.raises(DataError):
        record_correlation(X, max_pairs=100)


@pytest.mark.parametrize("measure", ["pearson", "mahalanobis"])
def test_local_result_does_not_depend_on_the_thread_count(monkeypatch, measure):
    import core.correlation.records as records

    X = np.round(np.random.default_rng(7).normal(size=(3000, 4)), 1)
    monkeypatch.setattr(records, "_SMALL_N", 0)  # threads on small data too
    reports = []
    for cores in (1, 8):
        monkeypatch.setattr(records.os, "cpu_count", lambda cores=cores: cores)
        reports.append(correlated_sensitivity(X, measure=measure, threshold=0.5, block_rows=128))
    one, many = reports
    assert np.array_equal(one.per_record, many.per_record)
    assert np.array_equal(one.per_record_count, many.per_record_count)
    assert (one.correlated, one.group) == (many.correlated, many.group)


def test_progress_is_reported_and_changes_nothing():
    X = np.random.default_rng(3).normal(size=(700, 4))
    seen = []
    quiet = correlated_sensitivity(X, threshold=0.5, block_rows=64)
    told = correlated_sensitivity(X, threshold=0.5, block_rows=64, progress=lambda f, m: seen.append(f))
    assert np.array_equal(quiet.per_record, told.per_record)
    assert seen and seen[0] == 0.0 and all(0.0 <= f < 1.0 for f in seen)


def test_raising_from_progress_stops_the_pass():
    class Stop(Exception):
        pass

    def stop(fraction, message):
        raise Stop

    with pytest.raises(Stop):
        correlated_sensitivity(np.random.default_rng(3).normal(size=(300, 4)), progress=stop)
