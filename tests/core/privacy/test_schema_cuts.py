"""core.privacy.schema_columns: a numeric entry's optional public cuts (bin edges) are checked,
kept through JSON, and refused where they mean nothing."""
from __future__ import annotations

import math

import pytest

from core.privacy.schema import PublicSchema
from core.privacy.schema_builtin import BUILT_IN_SCHEMAS
from core.privacy.schema_columns import ColumnSchema


def test_cuts_are_kept_as_floats_and_survive_json():
    entry = ColumnSchema("gain", "numeric", lower=0, upper=99_999, integer=True, cuts=[1, 1_000, 99_999])
    assert entry.cuts == (1.0, 1_000.0, 99_999.0)
    schema = PublicSchema((entry,))
    assert PublicSchema.from_json(schema.to_json()) == schema
    assert "cuts" not in ColumnSchema("x", "numeric", lower=0, upper=1).to_dict()


@pytest.mark.parametrize("cuts", [(5, 5), (10, 3), (0,), (1, 100_000), (), (math.nan,)])
def test_cuts_must_increase_strictly_inside_the_range(cuts):
    with pytest.raises(ValueError):
        ColumnSchema("gain", "numeric", lower=0, upper=99_999, cuts=cuts)


@pytest.mark.parametrize("cuts", ["1,2", 3, ("a",), (True,)])
def test_cuts_must_be_a_list_of_numbers(cuts):
    with pytest.raises(TypeError):
        ColumnSchema("gain", "numeric", lower=0, upper=99_999, cuts=cuts)


@pytest.mark.parametrize("kind, extra", [("categorical", {"categories": ("a",)}), ("identifier", {})])
def test_only_numbers_have_cuts(kind, extra):
    with pytest.raises(ValueError):
        ColumnSchema("c", kind, cuts=(1.0,), **extra)


def test_a_json_entry_with_cuts_that_are_not_a_list_is_refused():
    with pytest.raises(TypeError):
        ColumnSchema.from_dict({"name": "g", "kind": "numeric", "lower": 0, "upper": 9, "cuts": "1, 2"})


def test_adults_skewed_columns_ship_their_public_cuts():
    schema = BUILT_IN_SCHEMAS["adult"]()
    assert schema["capital_gain"].cuts[0] == 1.0 and schema["capital_gain"].cuts[-1] == 99_999.0
    assert schema["capital_loss"].cuts[0] == 1.0 and schema["hours_per_week"].cuts == (35.0, 40.0, 41.0, 49.0, 60.0)
    assert all("bins:" in schema[c].note for c in ("age", "capital_gain", "capital_loss", "hours_per_week"))
