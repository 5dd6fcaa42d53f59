"""The DP reading of paper 000 (core.cdp.dp_reading): everything from the public schema."""
from __future__ import annotations

from dataclasses import replace

import numpy as np
import pytest

from core.cdp.dp_reading import (
    LOG_SCALE_RATIO,
    dp_reading,
    group_bound,
    public_split,
    reading_columns,
    schema_labels,
    schema_matrix,
)
from core.data import load_sample
from core.privacy.schema_builtin import schema_for
from core.privacy.schema_draft import draft_schema


@pytest.fixture(scope="module")
def supplier():
    ds = load_sample("supplier")
    return ds, schema_for(ds)


def test_each_record_is_encoded_on_its_own(supplier):
    """One record replaced changes one row of the matrix: nothing is read from the others."""
    ds, schema = supplier
    a = schema_matrix(ds, schema).X
    frame = ds.frame.copy()
    frame.loc[frame.index[0], "registered_capital"] = 1e12  # far above the declared 1,000,000
    frame.loc[frame.index[0], "region"] = "Atlantis"  # not a declared category
    b = schema_matrix(frame, schema).X
    np.testing.assert_array_equal(a[1:], b[1:])
    assert np.abs(b).max() <= 1.0  # clipped and scaled by the declared bounds


def test_numbers_scale_by_the_declared_bounds(supplier):
    ds, schema = supplier
    m = schema_matrix(ds.frame.head(3), schema, ["established_year"]).X[:, 0]
    lo, hi = schema["established_year"].lower, schema["established_year"].upper
    expected = 2 * (ds.frame["established_year"].head(3).to_numpy() - lo) / (hi - lo) - 1
    np.testing.assert_allclose(m, expected)
    wide = schema["registered_capital"]
    assert (wide.upper + 1) / (wide.lower + 1) >= LOG_SCALE_RATIO  # log-scaled: decided from the bounds


def test_categories_span_the_declared_domain(supplier):
    ds, schema = supplier
    names = schema_matrix(ds.frame.head(5), schema, ["region"]).names
    assert names == [f"region={c}" for c in schema["region"].domain]


def test_labels_are_the_second_declared_category(supplier):
    ds, schema = supplier
    y = schema_labels(ds, schema, "listed")
    np.testing.assert_array_equal(y, (ds.frame["listed"] == 1).astype(int))


def test_group_bound_is_the_declared_one_or_one_record(supplier):
    _, schema = supplier
    b = group_bound(schema)
    assert (b.value, b.source, b.covers_group) == (45.0, "built-in", True)
    none = group_bound(replace(schema, max_group_size=None))
    assert none.value == 1.0 and not none.covers_group and "covers one record" in none.sentence
    read = group_bound(replace(schema, max_group_source="read from data"))
    assert read.value == 1.0 and not read.covers_group


def test_public_split_depends_on_n_and_the_seed_only():
    a = public_split(100, test_size=0.2, random_state=3)
    b = public_split(100, test_size=0.2, random_state=3)
    assert all((x == y).all() for x, y in zip(a, b))
    assert len(a[1]) == 20 and set(a[0]).isdisjoint(a[1])


def test_declared_feature_list_is_checked(supplier):
    _, schema = supplier
    assert reading_columns(schema, "listed", ["region", "established_year"]) == ["region", "established_year"]
    with pytest.raises(ValueError, match="schema features"):
        reading_columns(schema, "listed", ["listed"])


@pytest.mark.parametrize("name", ["supplier", "census"])
def test_dp_reading_runs_end_to_end_on_the_samples_and_is_dp(name):
    ds = load_sample(name)
    res = dp_reading(ds, epsilon=1.0, noise_method=1, random_state=0)
    assert res.ledger.is_dp and res.ledger.total()[0] == pytest.approx(1.0)
    assert 0.0 <= res.accuracy <= 1.0
    if schema_for(ds).max_group_size is None:
        assert any("covers one record" in a for a in res.ledger.assumptions)


def test_dp_reading_on_a_draft_schema_says_it_is_not_dp():
    ds = load_sample("supplier").head(300)
    res = dp_reading(ds, draft_schema(ds), epsilon=1.0, noise_method=1, random_state=0)
    assert not res.ledger.is_dp and "read from your data" in res.ledger.describe()
