from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

from core.data import Dataset, encode, load_sample
from core.validation import DataError


@pytest.fixture
def census():
    return load_sample("census")


def test_roles_are_validated(census):
    with pytest.raises(DataError, match="not in the data"):
        census.with_roles(label="nope")
    ok = census.with_roles(label="sex", sensitive=["relationship"])
    assert ok.label == "sex" and ok.sensitive == ("relationship",)


def test_types_must_cover_every_column():
    frame = pd.DataFrame({"a": [1, 2], "b": ["x", "y"]})
    with pytest.raises(ValueError, match="every column exactly once"):
        Dataset(frame, None, (), ("a",), (), "t")


def test_fingerprint_changes_with_data_and_roles(census):
    a = census.fingerprint()
    assert a == load_sample("census").fingerprint()
    assert census.with_roles(label="sex").fingerprint() != a
    changed = census.frame.copy()
    changed.loc[0, "age"] += 1
    assert Dataset(changed, census.label, census.sensitive, census.numeric, census.categorical).fingerprint() != a


def test_schema_has_one_row_per_column(census):
    schema = census.schema()
    assert list(schema["column"]) == list(census.frame.columns)
    assert schema.set_index("column").loc["sex", "role"] == "sensitive"
    assert schema.set_index("column").loc["income", "role"] == "label"


def test_subset_keeps_roles_that_survive(census):
    sub = census.subset(["age", "sex", "income"])
    assert sub.features == ("age", "sex")
    assert sub.sensitive == ("sex",)


def test_dropna_removes_rows_with_missing():
    frame = pd.DataFrame({"a": [1.0, np.nan, 3.0] * 5, "b": list("xyz") * 5})
    ds = Dataset(frame, None, (), ("a",), ("b",))
    assert ds.dropna().n_rows == 10


def test_encode_one_hot_groups(census):
    X, names, groups = encode(census)
    assert X.shape[0] == census.n_rows
    assert "income" not in groups  # the label is left out
    assert len(groups["sex"]) == 2
    assert np.allclose(X[:, groups["sex"]].sum(axis=1), 1)
    assert X.min() >= 0 and X.max() <= 1


def test_encode_ordinal_standard(census):
    X, names, groups = encode(census, scale="standard", one_hot=False)
    assert X.shape[1] == len(census.features)
    assert np.allclose(X.mean(axis=0), 0, atol=1e-9)
    assert names == list(census.features)


def test_encode_imputes_missing_or_refuses():
    frame = pd.DataFrame({"a": [1.0, np.nan, 3.0, 5.0], "b": ["x", None, "x", "y"]})
    ds = Dataset(frame, None, (), ("a",), ("b",))
    X, _, _ = encode(ds, scale="none", one_hot=False)
    assert X[1, 0] == 3.0  # median
    assert X[1, 1] == 0.0  # mode 'x' -> code 0
    with pytest.raises(DataError, match="missing values"):
        encode(ds, missing="error")


def test_encode_rejects_bad_options(census):
    with pytest.raises(ValueError, match="scale must be"):
        encode(census, scale="log")
    with pytest.raises(TypeError):
        encode(census.frame)


# --------------------------------------------------------------------------- identifiers


def _with_row_numbers() -> Dataset:
    frame = pd.DataFrame({"row": [3, 1, 7, 4, 9, 2], "x": [1.5, 2.5, 1.5, 3.0, 2.0, 1.0],
                          "y": ["a", "b"] * 3})
    return Dataset(frame, "y", (), ("row", "x"), ("y",), name="t", identifiers=("row",))


def test_identifiers_are_left_out_of_features():
    ds = _with_row_numbers()
    assert ds.features == ("x",)
    assert ds.schema().set_index("column").loc["row", "role"] == "identifier"


def test_without_identifiers_drops_them_once():
    ds = _with_row_numbers()
    out = ds.without_identifiers()
    assert list(out.frame.columns) == ["x", "y"] and out.identifiers == ()
    assert ds.without_identifiers() is out  # made once per object
    assert out.without_identifiers() is out


def test_identifier_cannot_have_another_role():
    ds = _with_row_numbers()
    with pytest.raises(DataError, match="both an identifier"):
        Dataset(ds.frame, "y", ("row",), ds.numeric, ds.categorical, identifiers=("row",))
    with pytest.raises(DataError, match="not in the data"):
        ds.with_identifiers(["nope"])
    with pytest.raises(TypeError, match="not one string"):
        ds.with_identifiers("row")


def test_a_role_given_wins_over_an_identifier():
    ds = _with_row_numbers()
    assert ds.with_roles(label="y", sensitive=["row"]).identifiers == ()
    assert ds.with_roles(label="y", sensitive=[], identifiers=["x"]).identifiers == ("x",)


def test_fingerprint_changes_with_identifiers():
    ds = _with_row_numbers()
    assert ds.fingerprint() != ds.with_identifiers([]).fingerprint()
    assert ds.subset(["row", "y"]).identifiers == ("row",)
