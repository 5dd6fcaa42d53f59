"""The hub pair of core.audit.hub_pair: one record replaced by a hub raises the correlated
sensitivity, within a declared group bound, and the builder says when it cannot."""
from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

from core.audit.hub_pair import hub_record_pair
from core.correlation.records import correlated_sensitivity


def correlated_records(seed: int = 0, *, close: int = 15, n: int = 60, m: int = 20) -> np.ndarray:
    """``close`` records near one profile (each correlated about 0.85 with it, about 0.7 with
    each other: below delta0 = 0.8) among independent ones: CS stays small until a record at
    the profile joins them all."""
    rng = np.random.default_rng(seed)
    u = rng.normal(size=m)
    u = (u - u.mean()) / u.std()
    return np.vstack([u + rng.normal(scale=0.7, size=(close, m)), rng.normal(size=(n - close, m))])


HUB_X = correlated_records()


def test_hub_record_pair_raises_the_correlated_sensitivity():
    pair = hub_record_pair(HUB_X, threshold=0.8)
    rows = np.flatnonzero((pair.d0 != pair.d1).any(axis=1))
    assert len(rows) == 1 and pair.d1.shape == HUB_X.shape
    cs0 = correlated_sensitivity(pair.d0, threshold=0.8, scheduler="").correlated
    cs1 = correlated_sensitivity(pair.d1, threshold=0.8, scheduler="").correlated
    assert cs0 < 3 and cs1 > 3 * cs0
    assert f"CS {cs0:.4g} -> {cs1:.4g}" in pair.description


def test_hub_record_pair_keeps_the_declared_group_bound():
    pair = hub_record_pair(HUB_X, threshold=0.8, max_group_size=6)
    report = correlated_sensitivity(pair.d1, threshold=0.8, scheduler="")
    assert report.group <= 6 and report.correlated > correlated_sensitivity(HUB_X, threshold=0.8).correlated


def test_hub_record_pair_refuses_a_table_that_breaks_the_declared_bound():
    with pytest.raises(ValueError, match="declared bound 2"):
        hub_record_pair(HUB_X, threshold=0.8, max_group_size=2)


def test_hub_record_pair_on_a_frame_with_labels_replaces_one_record():
    X = pd.DataFrame(HUB_X[:, :8], columns=[f"x{j}" for j in range(8)]).assign(kind="k")
    y = pd.Series(np.arange(len(X)) % 2)
    pair = hub_record_pair((X, y), threshold=0.7, measure="mahalanobis", index=40)
    (X0, y0), (X1, y1) = pair.d0, pair.d1
    changed = np.flatnonzero((X0.to_numpy() != X1.to_numpy()).any(axis=1))
    assert list(changed) == [40] and len(y1) == len(y0) and "mahalanobis" in pair.description


def test_hub_record_pair_says_when_no_record_can_raise_cs():
    with pytest.raises(ValueError, match="raises the correlated sensitivity"):
        hub_record_pair(np.tile([1.0, 2.0, 3.0, 5.0], (4, 1)), threshold=0.9)  # CS = n already


@pytest.mark.parametrize("kw, error", [(dict(measure="cosine"), ValueError), (dict(threshold=0), ValueError),
                                       (dict(max_group_size=0), ValueError), (dict(features=3), TypeError)])
def test_hub_record_pair_refuses_bad_arguments(kw, error):
    with pytest.raises(error):
        hub_record_pair(HUB_X, **kw)
