"""MSE and record linkage of paper 003 (Eq. 22-23), on hand-made cases."""
from __future__ import annotations

import numpy as np
import pytest

from core.evaluation.metrics import mse, record_linkage


def test_mse_is_mean_squared_euclidean_distance():
    A = np.array([[0.0, 0.0], [1.0, 1.0]])
    B = np.array([[3.0, 4.0], [1.0, 1.0]])
    assert mse(A, B) == pytest.approx(12.5)


def test_mse_refuses_mismatched_shapes():
    with pytest.raises(ValueError, match="same 2-D shape"):
        mse(np.zeros((3, 2)), np.zeros((2, 2)))


def test_rl_is_one_when_published_equals_distinct_originals():
    A = np.array([[0.0], [1.0], [2.0]])
    assert record_linkage(A, A) == 1.0


def test_rl_is_one_over_n_when_every_record_is_published_alike():
    A = np.arange(8.0).reshape(4, 2)
    assert record_linkage(A, np.ones((4, 2))) == pytest.approx(0.25)


def test_rl_splits_ties_within_a_cluster():
    A = np.array([[0.0], [0.1], [1.0], [1.1]])
    B = np.array([[0.05], [0.05], [1.05], [1.05]])
    assert record_linkage(A, B) == pytest.approx(0.5)


def test_rl_is_zero_when_every_link_goes_to_another_record():
    A = np.array([[0.0], [1.0]])
    assert record_linkage(A, np.array([[1.0], [0.0]])) == 0.0


def test_rl_counts_every_published_copy_in_a_tie():
    # record 0 (0.5) is as close to the two copies of 0 as to 1: 1/3; record 1: 1/2; record 2: 1
    A = np.array([[0.5], [0.0], [1.0]])
    B = np.array([[0.0], [0.0], [1.0]])
    assert record_linkage(A, B) == pytest.approx((1 / 3 + 1 / 2 + 1) / 3)


def test_rl_does_not_depend_on_block_size():
    rng = np.random.default_rng(0)
    A = rng.random((57, 3))
    B = np.round(A + rng.normal(0, 0.2, A.shape), 1)
    assert record_linkage(A, B, block_rows=1) == record_linkage(A, B, block_rows=1000)


def test_rl_matches_a_direct_computation():
    rng = np.random.default_rng(1)
    A = rng.random((40, 2))
    B = np.round(A + rng.normal(0, 0.1, A.shape), 1)
    d = np.sqrt(((A[:, None, :] - B[None, :, :]) ** 2).sum(-1))
    expected = 0.0
    for i in range(len(A)):
        ties = np.isclose(d[i], d[i].min(), rtol=0, atol=1e-12)
        expected += ties[i] / ties.sum()
    assert record_linkage(A, B) == pytest.approx(expected / len(A))
