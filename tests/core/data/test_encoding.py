"""The one ordinal coding of categorical columns (core.data.encoding)."""
from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

from core.data.encoding import frame_codes, ordinal_codes
from core.validation import DataError


def test_codes_follow_sorted_categories():
    codes, categories = ordinal_codes(pd.Series(["b", "a", "c", "a"]))
    assert categories == ["a", "b", "c"]
    np.testing.assert_array_equal(codes, [1, 0, 2, 0])


def test_codes_are_int64():
    codes, _ = ordinal_codes(pd.Series(["b", "a"]))
    assert codes.dtype == np.int64


def test_missing_category_gets_minus_one():
    codes, categories = ordinal_codes(pd.Series(["b", None, "a", np.nan]))
    assert categories == ["a", "b"]
    np.testing.assert_array_equal(codes, [1, -1, 0, -1])


def test_categories_sort_as_text():
    codes, categories = ordinal_codes(pd.Series(["10", "9", "1"]))
    assert categories == ["1", "10", "9"]
    np.testing.assert_array_equal(codes, [1, 2, 0])


def test_mixed_types_sort_as_text():
    _, categories = ordinal_codes(pd.Series([2.5, "a", 1, None], dtype=object))
    assert categories == [1, 2.5, "a"]


def test_pandas_category_column_is_coded_by_its_values():
    series = pd.Series(pd.Categorical(["lo", "hi", "mid"], categories=["lo", "mid", "hi"], ordered=True))
    codes, categories = ordinal_codes(series)
    assert categories == ["hi", "lo", "mid"]
    np.testing.assert_array_equal(codes, [1, 0, 2])


def test_pandas_category_column_with_missing_values_gets_minus_one():
    codes, _ = ordinal_codes(pd.Series(["b", None, "a"], dtype="category"))
    np.testing.assert_array_equal(codes, [1, -1, 0])


def test_frame_codes_keep_numbers_as_they_are():
    frame = pd.DataFrame({"x": [3, 1, 2]})
    np.testing.assert_array_equal(frame_codes(frame), [[3.0], [1.0], [2.0]])


def test_frame_codes_code_text_columns():
    frame = pd.DataFrame({"x": [0.5, 0.1, 0.2], "s": ["b", "a", None]})
    np.testing.assert_array_equal(frame_codes(frame)[:, 1], [1.0, 0.0, -1.0])


def test_frame_codes_use_the_same_codes_as_ordinal_codes():
    series = pd.Series(["m", "f", None, "f", "x"])
    np.testing.assert_array_equal(
        frame_codes(series.to_frame())[:, 0], ordinal_codes(series)[0].astype(float)
    )


def test_frame_codes_fill_missing_numbers_with_the_median():
    frame = pd.DataFrame({"x": [1.0, np.nan, 4.0, 2.0]})
    np.testing.assert_array_equal(frame_codes(frame)[:, 0], [1.0, 2.0, 4.0, 2.0])


def test_frame_codes_fill_an_all_missing_number_column_with_zero():
    frame = pd.DataFrame({"x": [np.nan, np.nan]})
    np.testing.assert_array_equal(frame_codes(frame)[:, 0], [0.0, 0.0])


def test_frame_codes_take_booleans_as_categories():
    frame = pd.DataFrame({"b": [True, False, True]})
    np.testing.assert_array_equal(frame_codes(frame)[:, 0], [1.0, 0.0, 1.0])


def test_frame_codes_refuse_infinite_numbers_by_default():
    frame = pd.DataFrame({"x": [1.0, np.inf]})
    with pytest.raises(DataError, match="Column 'x' holds infinite values"):
        frame_codes(frame)


def test_frame_codes_keep_infinite_numbers_when_allowed():
    frame = pd.DataFrame({"x": [1.0, np.inf]})
    np.testing.assert_array_equal(frame_codes(frame, allow_infinite=True)[:, 0], [1.0, np.inf])


def test_frame_codes_of_a_frame_without_columns_is_empty():
    assert frame_codes(pd.DataFrame(index=range(3))).shape == (3, 0)


def test_a_column_with_no_value_at_all_is_encoded_not_an_index_error():
    """The real-table sweep (statsmodels' fertility): a column whose every cell is missing
    raised IndexError on the Correlations page (no most common value to fill with)."""
    from core.data import Dataset
    from core.data.encoding import encode

    frame = pd.DataFrame({"x": np.arange(12.0), "empty_number": [np.nan] * 12,
                          "empty_text": pd.Series([None] * 12, dtype=object), "y": ["a", "b"] * 6})
    ds = Dataset(frame, "y", (), ("x", "empty_number"), ("empty_text", "y"), name="t")
    enc = encode(ds)
    assert np.isfinite(enc.X).all() and enc.X.shape[0] == 12
