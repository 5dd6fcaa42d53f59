from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

from core.data import SAMPLES, encode, load_sample, make_census, make_supplier
from core.data.samples import PRODUCT_COLUMNS, SAMPLE_DIR
from core.validation import DataError


@pytest.mark.parametrize("name", list(SAMPLES))
def test_committed_csv_matches_its_generator(name):
    spec = SAMPLES[name]
    on_disk = pd.read_csv(SAMPLE_DIR / spec["file"])
    generated = spec["make"]()
    pd.testing.assert_frame_equal(on_disk, generated, check_dtype=False)


def test_generators_are_seeded():
    pd.testing.assert_frame_equal(make_supplier(random_state=3), make_supplier(random_state=3))
    assert not make_census(random_state=1).equals(make_census(random_state=2))


def test_supplier_shape_and_roles():
    ds = load_sample("supplier")
    assert ds.n_rows == 1160
    assert ds.label == "listed"
    assert set(PRODUCT_COLUMNS) <= set(ds.frame.columns)
    assert "listed" in ds.categorical
    assert set(load_sample("supplier", with_products=False).frame.columns).isdisjoint(PRODUCT_COLUMNS)


def _count_query_sensitivities(ds, delta0=0.8):
    X, _, _ = encode(ds, scale="standard", one_hot=False)
    r = np.abs(np.corrcoef(X))
    r = np.where(r >= delta0, r, 0.0)
    np.fill_diagonal(r, 1.0)
    return r.sum(axis=1).max(), (r > 0).sum(axis=1).max()


@pytest.mark.parametrize("with_products", [True, False])
def test_supplier_records_are_correlated_but_not_all(with_products):
    ds = load_sample("supplier", with_products=with_products)
    cs, gs = _count_query_sensitivities(ds)
    assert 5 < cs < ds.n_rows / 3
    assert cs <= gs


def test_census_sex_leaks_through_other_columns():
    from sklearn.linear_model import LogisticRegression
    from sklearn.model_selection import cross_val_score

    ds = load_sample("census")
    X, _, _ = encode(ds, columns=[c for c in ds.features if c != "sex"])
    acc = cross_val_score(LogisticRegression(max_iter=500), X, ds.frame["sex"], cv=3).mean()
    majority = (ds.frame["sex"] == "Male").mean()
    assert acc > majority + 0.1


def test_unknown_sample():
    with pytest.raises(DataError, match="no sample called"):
        load_sample("nope")


@pytest.mark.parametrize("name", sorted(SAMPLES))
def test_samples_have_no_identifier_and_keep_their_shipped_schema(name):
    from core.data import detect_identifiers
    from core.privacy.schema_builtin import schema_for

    ds = load_sample(name)
    assert ds.identifiers == () and ds.without_identifiers() is ds
    assert detect_identifiers(ds.frame) == {}  # nothing the rule would take for a key either
    assert {c.source for c in schema_for(ds).columns} == {"built-in"}
