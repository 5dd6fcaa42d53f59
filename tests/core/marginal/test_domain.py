"""core.marginal.domain: the cells of MST and AIM come from the public schema, never the rows."""
from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

from core.marginal.domain import DEFAULT_BINS, marginal_domain
from core.privacy.schema import PublicSchema
from core.privacy.schema_columns import OTHER, ColumnSchema


@pytest.fixture
def schema() -> PublicSchema:
    return PublicSchema((
        ColumnSchema("id", "identifier"),
        ColumnSchema("job", "categorical", categories=("a", "b")),
        ColumnSchema("age", "numeric", lower=0, upper=100),
        ColumnSchema("level", "numeric", lower=1, upper=4, integer=True),
        ColumnSchema("flag", "categorical", categories=(0, 1)),
    ))


@pytest.fixture
def frame() -> pd.DataFrame:
    return pd.DataFrame({"id": [1, 2, 3], "job": ["a", "b", "a"], "age": [10.0, 55.0, 99.0],
                         "level": [1, 3, 4], "flag": [0, 1, 1]})


def test_categories_then_other_and_bins_of_the_declared_range(schema):
    domain = marginal_domain(schema, bins=4)
    assert domain.names == ["job", "age", "level", "flag"]  # the identifier is never released
    assert domain.sizes == {"job": 3, "age": 4, "level": 4, "flag": 3}
    cells = {c.name: c for c in domain.columns}
    assert cells["job"].values == ("a", "b", OTHER)
    assert cells["age"].edges == (0.0, 25.0, 50.0, 75.0, 100.0)
    assert cells["level"].values == (1, 2, 3, 4)  # an integer column with no more values than bins keeps each


def test_the_default_bins_are_documented(schema):
    assert marginal_domain(schema).sizes["age"] == DEFAULT_BINS


def test_the_domain_does_not_depend_on_the_rows(schema, frame):
    wide = frame.copy()
    wide.loc[0, ["job", "age"]] = ["new", 1e9]
    domain = marginal_domain(schema, bins=4)
    assert marginal_domain(schema, bins=4) == domain  # built without a frame at all
    a, b = domain.encode(frame), domain.encode(wide)
    assert b["job"][0] == 2 and b["age"][0] == 3  # OTHER, the top bin
    moved = [c for c in domain.names if not np.array_equal(a[c], b[c])]
    assert moved == ["job", "age"] and all(np.sum(a[c] != b[c]) == 1 for c in moved)


def test_values_outside_the_schema_are_clipped_or_other(schema):
    odd = pd.DataFrame({"job": ["z", None], "age": [-5.0, np.nan], "level": [9, 0], "flag": [7, 1]})
    codes = marginal_domain(schema, bins=4).encode(odd)
    assert codes["job"].tolist() == [2, 2] and codes["flag"].tolist() == [2, 1]
    assert codes["age"].tolist() == [0, 2]  # a missing number is the middle of the range
    assert codes["level"].tolist() == [3, 0]


def test_decoding_stays_within_each_bins_public_bounds(schema):
    domain = marginal_domain(schema, bins=4)
    codes = pd.DataFrame({"job": [0, 2, 9], "age": [0, 3, 1], "level": [0, 3, 2], "flag": [1, 2, 0]})
    out = domain.decode(codes, random_state=0)
    assert out["job"].tolist() == ["a", OTHER, OTHER]  # a code beyond the cells is OTHER
    assert 0 <= out["age"][0] <= 25 and 75 <= out["age"][1] <= 100 and 25 <= out["age"][2] <= 50
    assert out["level"].tolist() == [1.0, 4.0, 3.0] and out["flag"].tolist() == [1, OTHER, 0]
    pd.testing.assert_frame_equal(out, domain.decode(codes, random_state=0))


def test_integer_columns_decode_to_whole_numbers():
    schema = PublicSchema((ColumnSchema("n", "numeric", lower=0, upper=1000, integer=True),))
    out = marginal_domain(schema, bins=3).decode(pd.DataFrame({"n": [0, 1, 2] * 20}), random_state=1)["n"]
    assert (out == np.rint(out)).all() and out.between(0, 1000).all()


@pytest.mark.parametrize("kwargs, error", [
    ({"bins": 1}, ValueError), ({"bins": 2.0}, TypeError), ({"bins": True}, TypeError),
    ({"columns": "job"}, TypeError), ({"columns": [3]}, TypeError), ({"columns": ["nope"]}, ValueError),
    ({"columns": ["id"]}, ValueError), ({"columns": []}, ValueError), ({"columns": ["job", "job"]}, ValueError),
])
def test_bad_arguments_are_refused(schema, kwargs, error):
    with pytest.raises(error):
        marginal_domain(schema, **kwargs)


def test_a_schema_is_required():
    with pytest.raises(TypeError):
        marginal_domain({"job": ["a"]})


@pytest.fixture
def skewed() -> PublicSchema:
    """A capital-gain-like column: zero for most records, a long tail up to a top-code."""
    return PublicSchema((ColumnSchema("gain", "numeric", lower=0, upper=99_999, integer=True,
                                      cuts=(1, 1_000, 10_000, 99_999)),
                         ColumnSchema("share", "numeric", lower=0.0, upper=1.0, cuts=(0.25, 0.5))))


def test_a_skewed_columns_bins_come_from_the_schemas_cuts(skewed):
    domain = marginal_domain(skewed, bins=4)
    gain = domain.columns[0]
    assert gain.edges == (0.0, 1.0, 1_000.0, 10_000.0, 99_999.0, 99_999.0) and domain.sizes["gain"] == 5
    assert "cuts" in gain.source
    # equal-width bins would put every value below 25,000 in the first bin
    assert marginal_domain(PublicSchema((ColumnSchema("gain", "numeric", lower=0, upper=99_999, integer=True),)),
                           bins=4).encode(pd.DataFrame({"gain": [0, 500, 5_000]}))["gain"].tolist() == [0, 0, 0]


def test_a_value_equal_to_a_cut_starts_the_bin_above(skewed):
    frame = pd.DataFrame({"gain": [0, 1, 999, 1_000, 99_998, 99_999, 10**9], "share": [0.0, 0.25, 0.3, 0.5, 1.0, 0.7, -3]})
    codes = marginal_domain(skewed).encode(frame)
    assert codes["gain"].tolist() == [0, 1, 1, 2, 3, 4, 4]  # the top-code is a cell of its own; clipped above
    assert codes["share"].tolist() == [0, 1, 1, 2, 2, 2, 0]


def test_cut_bins_decode_inside_their_bin(skewed):
    domain = marginal_domain(skewed)
    codes = pd.DataFrame({"gain": [0, 1, 2, 3, 4] * 40, "share": [0, 1, 2, 0, 1] * 40})
    out = domain.decode(codes, random_state=0)
    back = domain.encode(out)
    assert back["gain"].tolist() == codes["gain"].tolist() and back["share"].tolist() == codes["share"].tolist()
    assert (out["gain"] == np.rint(out["gain"])).all() and set(out["gain"][codes["gain"] == 0]) == {0}
    assert set(out["gain"][codes["gain"] == 4]) == {99_999}


def test_the_cells_are_described_for_the_page(skewed):
    rows = marginal_domain(skewed).cell_rows()
    assert rows[0] == {"column": "gain", "cells": 5, "from": "the schema's public cuts",
                       "bins": "0, 1-999, 1,000-9,999, 10,000-99,998, 99,999"}
    assert rows[1]["bins"] == "[0, 0.25), [0.25, 0.5), [0.5, 1]"
