"""The pipeline pairs of core.audit.pipeline_pairs: a new category, a value far out of range,
a held-out record changed; each changes one record and keeps what is declared public."""
from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

from core.audit.pairs import NeighbouringPair
from core.audit.pipeline_pairs import NEW_CATEGORY, held_out_pair, new_category_pair, out_of_range_pair
from core.privacy.schema import PublicSchema
from core.privacy.schema_columns import ColumnSchema

FRAME = pd.DataFrame({
    "age": [23, 35, 47, 52, 61, 29, 90, 17],
    "income": [1.5, 2.0, 3.5, 0.5, 4.0, 2.5, 1.0, 3.0],
    "job": ["a", "b", "a", "c", "b", "a", "c", "b"],
})


def _only_difference(pair: NeighbouringPair) -> list[tuple[int, str]]:
    d0, d1 = pair.d0, pair.d1
    assert len(d0) == len(d1) and list(d0.columns) == list(d1.columns)
    return [(i, c) for i in range(len(d0)) for c in d0.columns if d0[c].iloc[i] != d1[c].iloc[i]]


def test_new_category_pair_brings_a_category_the_other_side_lacks():
    pair = new_category_pair(FRAME, "job", index=2)
    assert _only_difference(pair) == [(2, "job")]
    assert pair.d1["job"].iloc[2] == NEW_CATEGORY and NEW_CATEGORY not in set(FRAME["job"])
    assert "new category" in pair.description and pair.d0 is FRAME


def test_new_category_pair_takes_a_declared_category_the_data_lacks():
    schema = PublicSchema((ColumnSchema("job", "categorical", categories=("a", "b", "c", "d")),))
    pair = new_category_pair(FRAME, "job", schema=schema)
    assert pair.d1["job"].iloc[0] == "d" and "declared category" in pair.description


def test_new_category_pair_ignores_a_list_read_from_the_data():
    schema = PublicSchema((ColumnSchema("job", "categorical", categories=("a", "b", "c", "d"),
                                        source="read from data"),))
    assert new_category_pair(FRAME, "job", schema=schema).d1["job"].iloc[0] == NEW_CATEGORY


def test_new_category_pair_on_integer_codes_adds_a_code_above_them():
    pair = new_category_pair(FRAME, "age", index=1)
    assert pair.d1["age"].iloc[1] == 91 and _only_difference(pair) == [(1, "age")]


def test_out_of_range_pair_puts_a_value_far_above_the_observed_range():
    pair = out_of_range_pair(FRAME, "age", factor=10, index=3)
    assert _only_difference(pair) == [(3, "age")]
    assert pair.d1["age"].iloc[3] == 90 + 10 * (90 - 17) and pair.d1["age"].dtype.kind == "i"
    assert "above its maximum 90" in pair.description


def test_out_of_range_pair_on_a_constant_column_uses_its_magnitude():
    frame = pd.DataFrame({"x": [2.0, 2.0, 2.0]})
    assert out_of_range_pair(frame, "x", factor=3).d1["x"].iloc[0] == 2.0 + 3 * 2.0


@pytest.mark.parametrize("call, error", [
    (lambda: out_of_range_pair(FRAME, "job"), ValueError),
    (lambda: out_of_range_pair(FRAME, "nope"), ValueError),
    (lambda: out_of_range_pair(FRAME, "age", factor=0), ValueError),
    (lambda: out_of_range_pair(FRAME, "age", factor="10"), TypeError),
    (lambda: out_of_range_pair(FRAME.to_numpy(), "age"), TypeError),
    (lambda: new_category_pair(FRAME, 3), TypeError),
    (lambda: new_category_pair(FRAME, "job", index=8), ValueError),
    (lambda: new_category_pair(FRAME, "job", schema={"job": ["a"]}), TypeError),
])
def test_pipeline_pairs_refuse_bad_arguments_in_words(call, error):
    with pytest.raises(error):
        call()


def test_held_out_pair_moves_a_held_out_record_on_every_column():
    pair = held_out_pair(FRAME, [5, 2])
    diff = _only_difference(pair)
    assert {i for i, _ in diff} == {2} and {c for _, c in diff} == {"age", "income", "job"}
    assert pair.d1["age"].iloc[2] > FRAME["age"].max() and pair.d1["job"].iloc[2] not in set(FRAME["job"])
    assert "held-out record 2" in pair.description


def test_held_out_pair_keeps_to_the_columns_named_and_the_record_chosen():
    pair = held_out_pair(FRAME, np.array([1, 4]), index=4, columns=["income"])
    assert _only_difference(pair) == [(4, "income")]


@pytest.mark.parametrize("hold, kw, error", [
    ([], {}, ValueError), ([9], {}, ValueError), ([1, 2], dict(index=3), ValueError),
    ([0.5], {}, TypeError), ("1", {}, TypeError), ([1], dict(columns="age"), TypeError),
])
def test_held_out_pair_refuses_bad_splits(hold, kw, error):
    with pytest.raises(error):
        held_out_pair(FRAME, hold, **kw)
