"""The public schema: validation, JSON, conform, codes, charge, drafts and the shipped schemas."""
from __future__ import annotations

import json
from dataclasses import replace
from pathlib import Path

import numpy as np
import pandas as pd
import pytest

from core.data import Dataset, load_sample
from core.privacy.schema import PublicSchema
from core.privacy.schema_builtin import schema_for
from core.privacy.schema_draft import draft_schema
from core.privacy.schema_columns import OTHER, ColumnSchema
from core.privacy.ledger import PrivacyLedger

EXAMPLES = Path(__file__).resolve().parents[3] / "examples"


def _schema(**kw) -> PublicSchema:
    cols = (
        ColumnSchema("age", "numeric", lower=0, upper=100, integer=True),
        ColumnSchema("city", "categorical", categories=("A", "B")),
        ColumnSchema("id", "identifier"),
        ColumnSchema("y", "categorical", categories=(0, 1)),
    )
    return PublicSchema(cols, label="y", **kw)


def _table(frame: pd.DataFrame, name: str = "t", label=None) -> Dataset:
    numeric = tuple(c for c in frame.columns if pd.api.types.is_numeric_dtype(frame[c]))
    return Dataset(frame, label, (), numeric, tuple(c for c in frame.columns if c not in numeric), name=name)


# --------------------------------------------------------------------------- validation


@pytest.mark.parametrize("kwargs,message", [
    ({"name": "x", "kind": "number"}, "kind must be one of"),
    ({"name": "x", "kind": "numeric", "lower": 1}, "needs a lower and an upper bound"),
    ({"name": "x", "kind": "numeric", "lower": 2, "upper": 1}, "must be below its upper bound"),
    ({"name": "x", "kind": "numeric", "lower": 0, "upper": float("inf")}, "finite"),
    ({"name": "x", "kind": "categorical"}, "needs its list of categories"),
    ({"name": "x", "kind": "categorical", "categories": ("a", "a")}, "distinct"),
    ({"name": "x", "kind": "categorical", "categories": ("a", float("nan"))}, "missing value"),
    ({"name": "x", "kind": "categorical", "categories": ("a",), "lower": 0}, "cannot have bounds"),
    ({"name": "x", "kind": "identifier", "lower": 0, "upper": 1}, "no bounds or categories"),
    ({"name": "x", "kind": "numeric", "lower": 0, "upper": 1, "source": "guessed"}, "source must be one of"),
])
def test_bad_column_entries_raise_value_error_in_words(kwargs, message):
    with pytest.raises(ValueError, match=message):
        ColumnSchema(**kwargs)


@pytest.mark.parametrize("kwargs,message", [
    ({"name": 3, "kind": "numeric", "lower": 0, "upper": 1}, "name must be a str"),
    ({"name": "x", "kind": "numeric", "lower": "0", "upper": 1}, "must be a number"),
    ({"name": "x", "kind": "numeric", "lower": True, "upper": 1}, "must be a number"),
])
def test_wrong_types_in_a_column_raise_type_error(kwargs, message):
    with pytest.raises(TypeError, match=message):
        ColumnSchema(**kwargs)


def test_schema_level_rules_raise_value_error():
    cols = (ColumnSchema("a", "numeric", lower=0, upper=1), ColumnSchema("i", "identifier"))
    with pytest.raises(ValueError, match="only once"):
        PublicSchema(cols + cols[:1])
    with pytest.raises(ValueError, match="not in the schema"):
        PublicSchema(cols, label="b")
    with pytest.raises(ValueError, match="cannot be an identifier"):
        PublicSchema(cols, sensitive=("i",))
    with pytest.raises(ValueError, match="at least 1"):
        PublicSchema(cols, max_group_size=0)
    with pytest.raises(TypeError, match="max_group_size must be an int"):
        PublicSchema(cols, max_group_size=2.5)
    with pytest.raises(TypeError, match="ColumnSchema"):
        PublicSchema(({"name": "a"},))


# --------------------------------------------------------------------------- JSON


def test_json_round_trip_keeps_everything():
    s = _schema(max_group_size=4, name="mine", sensitive=("city",))
    back = PublicSchema.from_json(s.to_json())
    assert back == s
    assert back["y"].categories == (0, 1) and back["age"].integer


def test_json_round_trip_keeps_the_estimates_cost():
    ledger = PrivacyLedger()
    ledger.spend(0.5, 1e-7, label="private category discovery of 'city'")
    s = PublicSchema(_schema().columns, estimate=ledger)
    back = PublicSchema.from_json(s.to_json())
    assert back.estimate.nominal() == pytest.approx((0.5, 1e-7))


@pytest.mark.parametrize("text,message", [
    ("{not json", "not valid JSON"),
    ('{"columns": 3}', "needs 'columns'"),
    ('{"columns": [], "extra": 1}', "unknown key"),
    ('{"version": 9, "columns": []}', "version"),
    ('{"columns": [{"name": "a"}]}', "needs 'name' and 'kind'"),
    ('{"columns": [{"name": "a", "kind": "numeric", "lower": 0, "upper": 1, "colour": 2}]}', "unknown key"),
    ('{"columns": [], "estimate": {"epsilon": "a lot"}}', "'estimate' must be an object"),
    ('{"columns": [], "sensitive": "sex"}', "'sensitive' must be a list"),
    ('{"columns": [], "label": 3}', "'label' must be a column name"),
])
def test_bad_json_raises_value_error_in_one_sentence(text, message):
    with pytest.raises(ValueError, match=message):
        PublicSchema.from_json(text)


def test_json_that_is_not_an_object_raises_type_error():
    with pytest.raises(TypeError, match="JSON object"):
        PublicSchema.from_json("[1, 2]")


# --------------------------------------------------------------------------- conform and codes


def test_conform_clips_fills_and_maps_to_other():
    frame = pd.DataFrame({"age": [-5, 50, 300, None], "city": ["A", "Z", None, "B"],
                          "id": [1, 2, 3, 4], "y": [0, 1, 1, 0]})
    out = _schema().conform(frame)
    assert list(out.columns) == ["age", "city", "y"]  # identifier dropped
    assert out["age"].tolist() == [0.0, 50.0, 100.0, 50.0]
    assert out["city"].tolist() == ["A", OTHER, OTHER, "B"]


def test_conform_changes_one_row_when_one_record_is_replaced():
    rng = np.random.default_rng(0)
    frame = pd.DataFrame({"age": rng.integers(0, 100, 50), "city": rng.choice(["A", "B"], 50),
                          "id": np.arange(50), "y": rng.integers(0, 2, 50)})
    other = frame.copy()
    other.loc[7] = [10_000, "brand-new city", 999, 1]
    a, b = _schema().conform(frame), _schema().conform(other)
    differs = (a != b).any(axis=1)
    assert differs.sum() == 1 and differs.iloc[7]


def test_codes_index_the_domain_with_other_last():
    s = _schema()
    frame = pd.DataFrame({"city": ["B", "A", "Q", None]})
    assert s.codes(frame, "city").tolist() == [1, 0, 2, 2]
    assert s["city"].domain == ("A", "B", OTHER)


# --------------------------------------------------------------------------- charge


def test_charge_read_from_data_is_not_dp_with_the_reason():
    s = PublicSchema((ColumnSchema("a", "numeric", lower=0, upper=1, source="read from data"),))
    ledger = s.charge(PrivacyLedger())
    assert not ledger.is_dp
    assert "read from your data ('a')" in ledger.not_dp_reasons[0]


def test_charge_declared_is_an_assumption_only():
    ledger = _schema().charge(PrivacyLedger(), ["age", "city"])
    assert ledger.is_dp and not ledger.entries
    assert "declared public by the user" in ledger.assumptions[0]


def test_charge_private_estimate_adds_the_estimates_spend():
    est = PrivacyLedger()
    est.spend(0.3, label="private quantiles of 'a'")
    s = PublicSchema((ColumnSchema("a", "numeric", lower=0, upper=1, source="private estimate"),
                      ColumnSchema("b", "numeric", lower=0, upper=1)), estimate=est)
    ledger = PrivacyLedger()
    ledger.spend(1.0, label="release")
    s.charge(ledger, ["a"])
    assert ledger.is_dp and ledger.total()[0] == pytest.approx(1.3)
    assert s.charge(PrivacyLedger(), ["b"]).total()[0] == 0.0  # not used: not charged


def test_charge_group_size_undeclared_is_not_dp():
    ledger = _schema().charge(PrivacyLedger(), ["age"], group_size=True)
    assert not ledger.is_dp and "correlated group size" in ledger.not_dp_reasons[0]


# --------------------------------------------------------------------------- drafts


def test_draft_detects_a_row_number_column_as_identifier():
    frame = pd.DataFrame({"row": np.arange(1, 41), "x": np.tile([1.5, 2.5], 20),
                          "c": ["u", "v"] * 20})
    draft = draft_schema(_table(frame))
    assert draft["row"].kind == "identifier"
    assert draft["x"].kind == "numeric" and (draft["x"].lower, draft["x"].upper) == (1.5, 2.5)
    assert draft["c"].categories == ("u", "v")


def test_draft_finds_unsorted_gappy_row_numbers_and_text_keys_not_distinct_floats():
    rng = np.random.default_rng(0)
    frame = pd.DataFrame({"n": rng.permutation(np.arange(1, 80))[:50],
                          "code": [f"A-{v}" for v in rng.permutation(50)],
                          "weight": rng.normal(70, 10, 50).round(3),
                          "c": ["u", "v"] * 25})
    draft = draft_schema(_table(frame))
    assert draft.identifiers == ["n", "code"]
    assert draft["weight"].kind == "numeric"
    assert draft.features == ["weight", "c"]


def test_draft_without_detection_keeps_only_the_marked_identifiers():
    frame = pd.DataFrame({"row": np.arange(1, 41), "x": np.tile([1.5, 2.5], 20)})
    assert draft_schema(_table(frame), detect=False)["row"].kind == "numeric"


def test_every_drafted_entry_is_read_from_data():
    draft = draft_schema(load_sample("census"))
    assert {c.source for c in draft.columns} == {"read from data"}
    assert not draft.is_public() and "read from your data" in draft.describe()


def test_confirm_declares_the_named_entries():
    draft = draft_schema(load_sample("census"))
    one = draft.confirm(["age"])
    assert one["age"].source == "declared" and one["sex"].source == "read from data"
    assert draft.confirm().is_public()


# --------------------------------------------------------------------------- shipped schemas


@pytest.mark.parametrize("name", ["census", "supplier"])
def test_samples_ship_a_built_in_schema_that_fits(name):
    ds = load_sample(name)
    s = schema_for(ds)
    assert s.check(ds) == []
    assert {c.source for c in s.columns} == {"built-in"}
    assert s.label == ds.label and s.is_public()


def test_supplier_declares_its_group_size():
    s = schema_for(load_sample("supplier"))
    assert s.max_group_size == 45 and s.max_group_source == "built-in"


def test_built_in_bounds_are_not_the_rows_min_and_max():
    ds = load_sample("census")
    s, draft = schema_for(ds), draft_schema(ds)
    assert any(s.bounds()[c] != draft.bounds()[c] for c in s.numeric)


def test_adult_ships_its_codebook_schema(adult):
    s = schema_for(adult)
    assert s.check(adult) == []
    assert {c.source for c in s.columns} == {"built-in"}
    assert s["capital_gain"].upper == 99_999


def test_nltcs_ships_its_codebook_schema(nltcs):
    s = schema_for(nltcs)
    assert s.check(nltcs) == []
    assert {c.source for c in s.columns} == {"built-in"}


def test_a_renamed_built_in_is_drafted():
    ds = load_sample("census")
    other = Dataset(ds.frame, ds.label, ds.sensitive, ds.numeric, ds.categorical, name="upload")
    assert not schema_for(other).is_public()


# --------------------------------------------------------------------------- the example file


def test_the_census_schema_example_loads_and_fits_the_census_sample():
    s = PublicSchema.from_json((EXAMPLES / "census.schema.json").read_text())
    ds = load_sample("census")
    assert s.check(ds) == []
    assert s.is_public() and {c.source for c in s.columns} == {"declared"}
    assert json.loads(s.to_json()) == json.loads((EXAMPLES / "census.schema.json").read_text())


# --------------------------------------------------------------------------- the editable table


def test_table_round_trip_changes_nothing():
    s = _schema()
    assert s.with_edits(s.to_frame()) is s


def test_an_edited_row_becomes_declared_and_keeps_number_categories():
    s = PublicSchema(tuple(replace(c, source="read from data") for c in _schema().columns), label="y")
    table = s.to_frame()
    table.loc[table["column"] == "age", ["lower", "upper"]] = [0.0, 120.0]  # a drafted number shows no bounds
    table.loc[table["column"] == "y", "categories"] = "0, 1, 2"
    out = s.with_edits(table)
    assert out["age"].upper == 120.0 and out["age"].source == "declared"
    assert out["y"].categories == (0, 1, 2) and out["y"].source == "declared"
    assert out["city"].source == "read from data"


def test_an_invalid_edit_raises_value_error_naming_the_column():
    table = _schema().to_frame()
    table.loc[table["column"] == "age", "lower"] = 500.0
    with pytest.raises(ValueError, match="'age'"):
        _schema().with_edits(table)


# --- an identifier role found by reading the rows (issue 24) ---------------------------------

def _schema_with_identifier(source: str):
    from core.privacy.schema import PublicSchema
    from core.privacy.schema_columns import ColumnSchema

    return PublicSchema(columns=(
        ColumnSchema("row", "identifier", source=source),
        ColumnSchema("age", "numeric", lower=0, upper=100, source="declared"),
    ))


def test_an_identifier_found_in_the_rows_makes_the_release_not_dp():
    from core.privacy.ledger import PrivacyLedger

    ledger = _schema_with_identifier("read from data").charge(PrivacyLedger(), ["age"])
    assert not ledger.is_dp
    assert any("identifiers" in r and "'row'" in r for r in ledger.not_dp_reasons)


def test_a_declared_identifier_keeps_the_release_dp():
    from core.privacy.ledger import PrivacyLedger

    ledger = _schema_with_identifier("declared").charge(PrivacyLedger(), ["age"])
    assert ledger.is_dp


def test_a_deeply_nested_schema_is_one_sentence_not_a_recursion_error():
    with pytest.raises(ValueError, match="nests more than .* levels deep"):
        PublicSchema.from_json("[" * 100_000 + "]" * 100_000)
