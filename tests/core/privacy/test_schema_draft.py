"""Drafts that do not invite a leak: the bulk-confirm rule of core.privacy.schema_draft."""
from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

import core.privacy.schema_draft as schema_draft
from core.data import Dataset
from core.privacy.ledger import PrivacyLedger
from core.privacy.schema_columns import ColumnSchema
from core.privacy.schema_draft import (
    EXACT_EXTREMES, RARE_CATEGORY_RECORDS, RARE_VALUES, bulk_confirmable, confirm_draft, draft_schema,
    rare_categories,
)
from core.sskm.scaled_table import ScaledTable


def _table() -> Dataset:
    """24 rows: an exact-extreme number, a list with one rare value, a list of common values."""
    n = 24
    frame = pd.DataFrame({
        "row": np.arange(1, n + 1),
        "age": np.linspace(0.1667, 80.0, n),
        "city": ["A"] * 11 + ["B"] * 11 + ["Zell"] * 2,  # Zell: 2 records, rare
        "sex": ["f", "m"] * 12,
    })
    return Dataset(frame, None, (), ("row", "age"), ("city", "sex"), name="t")


def _release_leaks_exact_extremes(schema, dataset: Dataset) -> list[str]:
    """The columns whose release (scaled by the schema, as every release is) claims DP while
    its bounds are the rows' exact minimum and maximum."""
    columns = [c for c in dataset.frame.columns if schema[c].kind != "identifier"]
    table = ScaledTable(dataset.frame[columns], schema=schema)
    if not table.charge(PrivacyLedger()).is_dp:
        return []
    leaks = []
    for i, c in enumerate(table.columns):
        if schema[c].kind == "numeric":
            values = dataset.frame[c].astype(float)
            if (table.lo[i], table.hi[i]) == (values.min(), values.max()):
                leaks.append(c)
    return leaks


def test_rare_value_threshold_is_five():
    assert RARE_CATEGORY_RECORDS == 5


def test_rare_categories_finds_values_held_by_few_records():
    ds = _table()
    assert rare_categories(draft_schema(ds), ds) == {"city": ("Zell",)}


def test_bulk_confirmable_leaves_out_numbers_and_rare_lists():
    ds = _table()
    ok, left_out = bulk_confirmable(draft_schema(ds), ds)
    assert ok == ["sex"]  # 'row' is an identifier by its name: public already
    assert left_out == {"age": EXACT_EXTREMES, "city": RARE_VALUES}


def test_bulk_confirm_leaves_out_the_number_and_the_rare_list_and_says_how_many():
    ds = _table()
    new, sentence = confirm_draft(draft_schema(ds), ds)
    assert new.read_from_data() == ["age", "city"]
    assert sentence.startswith("1 entry declared public knowledge; 2 left out")
    assert "exact minimum and maximum" in sentence and "type a public range" in sentence


def test_an_identifier_by_its_name_is_public_and_by_its_values_read_from_data():
    """A role proposed from the header costs nothing; one proposed from the values is a read."""
    ds = _table()
    frame = ds.frame.assign(code=[f"k{i:02d}" for i in range(len(ds.frame))])
    draft = draft_schema(Dataset(frame, None, (), ("row", "age"), ("city", "sex", "code"), name="t"))
    assert draft["row"].kind == "identifier" and draft["row"].public
    assert draft["code"].kind == "identifier" and not draft["code"].public


def test_the_sentence_names_no_rare_value():
    ds = _table()
    assert "Zell" not in confirm_draft(draft_schema(ds), ds)[1]


def test_a_list_of_common_values_is_confirmed():
    ds = _table()
    new, _ = confirm_draft(draft_schema(ds), ds)
    assert new["sex"].source == "declared" and new["sex"].categories == ("f", "m")


def test_no_release_built_from_a_bulk_confirmed_draft_claims_dp_with_exact_extremes():
    ds = _table()
    new, _ = confirm_draft(draft_schema(ds), ds)
    assert _release_leaks_exact_extremes(new, ds) == []


def test_mutant_bulk_confirm_of_exact_extremes_is_caught(monkeypatch):
    """The leak: a bulk confirm that declares every drafted entry public (the old
    ``PublicSchema.confirm()``) makes a release claim DP while its bounds are the rows' exact
    minimum and maximum (age 0.1667-80). Put that behaviour back; the invariant check of
    test_no_release_built_from_a_bulk_confirmed_draft_claims_dp_with_exact_extremes sees it."""
    ds = _table()
    monkeypatch.setattr(schema_draft, "bulk_confirmable",
                        lambda schema, dataset: (schema.read_from_data(), {}))
    new, _ = confirm_draft(draft_schema(ds), ds)
    assert _release_leaks_exact_extremes(new, ds) == ["age"]


def test_a_typed_range_declares_the_number_with_it():
    ds = _table()
    new, sentence = confirm_draft(draft_schema(ds), ds, ranges={"age": (0, 120)})
    assert (new["age"].lower, new["age"].upper, new["age"].source) == (0.0, 120.0, "declared")
    assert "1 left out" in sentence


def test_a_chosen_number_without_a_range_is_not_declared():
    ds = _table()
    draft = draft_schema(ds)
    new, sentence = confirm_draft(draft, ds, ["age"])
    assert new == draft and sentence.startswith("No entry declared")


def test_a_chosen_rare_list_needs_the_box_ticked():
    ds = _table()
    draft = draft_schema(ds)
    assert confirm_draft(draft, ds, ["city"])[0]["city"].source == "read from data"
    assert confirm_draft(draft, ds, ["city"], accept_rare=["city"])[0]["city"].source == "declared"


def test_a_bulk_confirm_ignores_the_ticked_box():
    ds = _table()
    new, _ = confirm_draft(draft_schema(ds), ds, accept_rare=["city"])
    assert new["city"].source == "read from data"


def test_entries_already_public_are_kept():
    ds = _table()
    estimated = draft_schema(ds).replace_column(
        ColumnSchema("sex", "categorical", categories=("f", "m"), source="private estimate"))
    new, _ = confirm_draft(estimated, ds, ["sex"])
    assert new["sex"].source == "private estimate"


def test_confirm_draft_refuses_an_unknown_column():
    ds = _table()
    with pytest.raises(ValueError, match="'nope' is not a column"):
        confirm_draft(draft_schema(ds), ds, ["nope"])


def test_confirm_draft_refuses_a_reversed_range():
    ds = _table()
    with pytest.raises(ValueError, match="age"):
        confirm_draft(draft_schema(ds), ds, ranges={"age": (10, 1)})


@pytest.mark.parametrize("args", [("not a schema", None), (None, "not a dataset")])
def test_confirm_draft_wants_a_schema_and_a_dataset(args):
    ds = _table()
    schema = draft_schema(ds) if args[0] is None else args[0]
    dataset = ds if args[1] is None else args[1]
    with pytest.raises(TypeError):
        confirm_draft(schema, dataset)


def test_a_draft_keeps_one_category_per_canonical_form_and_counts_rows_by_it():
    frame = pd.DataFrame({"c": ["a", "a ", " a", "b"] * 10 + ["q", " q"], "d": ["1", "1.0", "x", "x"] * 10 + ["y", None]})
    ds = Dataset(frame, None, (), (), ("c", "d"), name="t")
    draft = draft_schema(ds)
    assert (draft["c"].categories, draft["d"].categories) == (("a", "b", "q"), ("1", "x", "y"))
    assert rare_categories(draft, ds) == {"c": ("q",), "d": ("y",)}


def test_a_numeric_label_with_two_whole_values_is_drafted_as_two_classes():
    """The real-table sweep (statsmodels' spector, label GRADE 0/1): the label was drafted
    numeric, so CDP-LR's DP reading and Compare's models refused a binary outcome."""
    from core.data.csv_loader import frame_to_dataset

    frame = pd.DataFrame({"gpa": [2.5, 3.1, 3.9, 2.2, 3.3, 2.8] * 2, "grade": [0, 1, 1, 0, 1, 0] * 2,
                          "score": [1, 2, 3, 1, 2, 3] * 2})
    schema = draft_schema(frame_to_dataset(frame, label="grade", name="t"))
    assert schema["grade"].kind == "categorical" and [int(c) for c in schema["grade"].categories] == [0, 1]
    assert schema["score"].kind == "numeric"  # only the label: a feature keeps its numbers
    unlabelled = draft_schema(frame_to_dataset(frame, name="t"))
    assert unlabelled["grade"].kind == "numeric"
