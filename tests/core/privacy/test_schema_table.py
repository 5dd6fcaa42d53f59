"""The schema editor's table never shows a drafted number's exact extremes."""
from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

from core.data import Dataset
from core.privacy.schema_draft import draft_schema
from core.privacy.schema_table import edited_columns, schema_frame


def _draft():
    frame = pd.DataFrame({"age": np.linspace(0.1667, 80.0, 30), "c": ["u", "v"] * 15})
    return draft_schema(Dataset(frame, None, (), ("age",), ("c",), name="t"))


def _row(table: pd.DataFrame, name: str) -> pd.Series:
    return table.set_index("column").loc[name]


def test_a_drafted_number_shows_empty_bounds():
    table = schema_frame(_draft())
    assert _row(table, "age")[["lower", "upper"]].isna().all()
    assert not table.isin([0.1667, 80.0]).any().any()


def test_a_declared_number_shows_its_bounds():
    schema = _draft()
    declared = schema.confirm(["age"])
    assert _row(schema_frame(declared), "age")[["lower", "upper"]].tolist() == [0.1667, 80.0]


def test_leaving_the_bounds_empty_keeps_the_drafted_entry():
    schema = _draft()
    assert edited_columns(schema, schema_frame(schema)) == {}
    assert schema.with_edits(schema_frame(schema)) is schema


def test_typed_bounds_declare_the_number():
    schema = _draft()
    table = schema_frame(schema)
    table.loc[table["column"] == "age", ["lower", "upper"]] = [0.0, 120.0]
    entry = schema.with_edits(table)["age"]
    assert (entry.lower, entry.upper, entry.source) == (0.0, 120.0, "declared")


def test_one_typed_bound_is_refused_in_one_sentence():
    schema = _draft()
    table = schema_frame(schema)
    table.loc[table["column"] == "age", "upper"] = 120.0
    with pytest.raises(ValueError, match="'age' needs a lower and an upper bound"):
        edited_columns(schema, table)


def test_edited_columns_wants_a_frame():
    with pytest.raises(TypeError):
        edited_columns(_draft(), [{"column": "age"}])
