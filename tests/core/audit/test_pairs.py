"""The pair helpers of core.audit.pairs build neighbours (one record replaced) without
touching the original."""
from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

from core.audit.pairs import extreme_record, flip_value, replace_pair, replace_record


def test_replace_record_in_an_array_copies():
    X = np.arange(6).reshape(3, 2)
    out = replace_record(X, 1, [0.5, 9])
    assert out[1].tolist() == [0.5, 9.0] and out[0].tolist() == [0, 1]
    assert X[1].tolist() == [2, 3]  # original untouched (and its int dtype kept)


def test_replace_record_in_a_frame_from_dict_series_or_sequence():
    df = pd.DataFrame({"age": [30, 40, 50], "job": ["x", "y", "x"]})
    before = df.copy()
    for record in ({"age": 99.5, "job": "z"}, pd.Series({"job": "z", "age": 99.5}), [99.5, "z"]):
        out = replace_record(df, 2, record)
        assert out.iloc[2].tolist() == [99.5, "z"]
        assert out.iloc[:2].equals(df.iloc[:2].astype({"age": float}))
    pd.testing.assert_frame_equal(df, before)


def test_replace_record_in_a_frame_needs_every_column():
    df = pd.DataFrame({"age": [30, 40], "job": ["x", "y"]})
    with pytest.raises(ValueError, match="every column"):
        replace_record(df, 0, {"age": 1})


def test_replace_record_in_x_y_replaces_features_and_label():
    X, y = np.zeros((4, 2)), np.array([0, 1, 0, 0])
    X2, y2 = replace_record((X, y), 3, ([1.0, 2.0], 1))
    assert X2[3].tolist() == [1.0, 2.0] and y2.tolist() == [0, 1, 0, 1]
    assert not X.any() and y.tolist() == [0, 1, 0, 0]


def test_replace_record_refuses_an_index_outside_the_data():
    with pytest.raises(ValueError, match="between 0 and n - 1"):
        replace_record(np.zeros((3, 2)), 3, [0, 0])


def test_extreme_record_of_an_array_is_the_column_max_or_the_given_bound():
    X = np.array([[1.0, -5.0], [3.0, 2.0]])
    assert extreme_record(X).tolist() == [3.0, 2.0]
    assert extreme_record(X, towards="lower").tolist() == [1.0, -5.0]
    assert extreme_record(X, bounds=(0.0, [10.0, 20.0])).tolist() == [10.0, 20.0]


def test_extreme_record_of_a_frame_takes_the_rarest_category():
    df = pd.DataFrame({"age": [30, 40, 50, 20], "job": ["x", "y", "x", "x"]})
    assert extreme_record(df) == {"age": 50, "job": "y"}
    assert extreme_record(df, bounds={"age": (17, 90)}, towards="lower") == {"age": 17.0, "job": "y"}


def test_extreme_record_of_x_y_takes_the_rarest_label():
    X, y = np.array([[0.0], [4.0], [2.0]]), np.array(["no", "yes", "no"])
    x_row, label = extreme_record((X, y))
    assert x_row.tolist() == [4.0] and label == "yes"


def test_flip_value_defaults_to_the_rarest_other_value():
    df = pd.DataFrame({"job": ["x", "y", "x", "z", "z"], "age": [1, 2, 3, 4, 5]})
    out = flip_value(df, 0, "job")
    assert out["job"].tolist() == ["y", "y", "x", "z", "z"]
    assert flip_value(df, 1, "age", 99)["age"].tolist() == [1, 99, 3, 4, 5]
    assert df["job"].tolist() == ["x", "y", "x", "z", "z"]


def test_flip_value_needs_another_value():
    with pytest.raises(ValueError, match="no value other"):
        flip_value(pd.DataFrame({"c": ["a", "a"]}), 0, "c")


def test_replace_pair_defaults_to_the_extreme_record():
    X = np.array([[1.0, 0.0], [3.0, 2.0], [2.0, 1.0]])
    pair = replace_pair(X, 0)
    assert pair.d0 is X and pair.d1[0].tolist() == [3.0, 2.0]
    assert np.array_equal(pair.d1[1:], X[1:])
    assert pair.description.startswith("record 0 replaced by the extreme record")
