"""Record matrix and dataset sensitivities (paper 000, Section 3)."""
from __future__ import annotations

import numpy as np
import pytest

from core.cdp.sensitivity import dataset_sensitivity, drop_one_correlations, record_matrix
from core.correlation import data_correlation
from core.data import load_sample
from core.validation import DataError


def test_record_matrix_has_one_standardised_column_per_attribute():
    ds = load_sample("supplier")
    rm = record_matrix(ds)
    assert rm.names == list(ds.features)  # product flags are attributes of their own
    assert rm.X.shape == (ds.n_rows, len(ds.features))
    np.testing.assert_allclose(rm.X.mean(axis=0), 0.0, atol=1e-9)
    np.testing.assert_allclose(rm.X.std(axis=0), 1.0, atol=1e-9)


def test_record_matrix_keeps_the_named_columns():
    ds = load_sample("supplier", with_products=False)
    rm = record_matrix(ds, columns=["region", "registered_capital"])
    assert rm.names == ["region", "registered_capital"] and rm.X.shape[1] == 2
    with pytest.raises(DataError):
        record_matrix(ds, columns=[])


@pytest.mark.parametrize("with_products", [True, False])
@pytest.mark.parametrize("measure", ["pearson", "mahalanobis"])
def test_correlated_below_group_sensitivity_on_the_supplier_sample(with_products, measure):
    rep = dataset_sensitivity(load_sample("supplier", with_products=with_products), measure=measure)
    assert 1.0 < rep.correlated < rep.group


def test_drop_one_correlations_match_direct_computation():
    X = np.random.default_rng(0).normal(size=(120, 4))
    full, without = drop_one_correlations(X, threshold=0.7)
    assert full == pytest.approx(data_correlation(X, threshold=0.7))
    assert without[2] == pytest.approx(data_correlation(np.delete(X, 2, axis=1), threshold=0.7))
