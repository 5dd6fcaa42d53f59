"""MIC connection strengths and the protected set (Algorithm 4 of paper 003)."""
from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

from core.sskm.connection import mic_connections
from core.validation import DataError


@pytest.fixture(scope="module")
def conn(census_frame):
    return mic_connections(census_frame, "sex", threshold=0.3, max_rows=800, random_state=0)


def test_strengths_have_one_row_per_sensitive_attribute(conn, census_frame):
    assert list(conn.strengths.index) == ["sex"]
    assert list(conn.strengths.columns) == list(census_frame.columns)
    assert conn.strengths.loc["sex", "sex"] == 1.0
    values = conn.strengths.to_numpy()
    assert np.all((values >= 0) & (values <= 1))


def test_relationship_leaks_sex_and_is_protected(conn):
    # in the census sample Husband / Wife gives sex away
    assert conn.strengths.loc["sex", "relationship"] > conn.strengths.loc["sex", "age"]
    assert conn.protected == ("relationship", "sex")


def test_threshold_moves_the_protected_set_without_recomputing(conn):
    low = conn.with_threshold(0.0)
    high = conn.with_threshold(1.0)
    assert set(low.protected) == set(conn.strengths.columns)
    assert high.protected == ("sex",)
    assert low.strengths is conn.strengths


def test_row_cap_is_reported(census_frame):
    res = mic_connections(census_frame.head(300), ["sex"], max_rows=100, random_state=0)
    assert res.rows_used == 100


def test_two_sensitive_attributes_are_both_protected(census_frame):
    res = mic_connections(census_frame.head(300), ["sex", "age"], threshold=0.99, max_rows=None)
    assert res.protected == ("age", "sex")
    assert res.strengths.loc["sex", "age"] == res.strengths.loc["age", "sex"]


def test_parallel_pairs_give_the_same_values(census_frame):
    small = census_frame.head(200)
    one = mic_connections(small, "sex", max_rows=None, n_jobs=1)
    two = mic_connections(small, "sex", max_rows=None, n_jobs=2)
    pd.testing.assert_frame_equal(one.strengths, two.strengths)


def test_unknown_sensitive_column_is_a_data_error(census_frame):
    with pytest.raises(DataError, match="not in the data"):
        mic_connections(census_frame, "salary")


def test_threshold_outside_0_1_is_refused(census_frame):
    with pytest.raises(ValueError, match="between 0 and 1"):
        mic_connections(census_frame, "sex", threshold=1.5)
