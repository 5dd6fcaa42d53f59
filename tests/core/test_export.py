import pandas as pd
import pytest

from core.export import guard_cell, guard_formulas, to_safe_csv


@pytest.mark.parametrize("text", ["=1+1", "+SUM(A1)", "-2+3", "@cmd", "\t=x", "\r=x"])
def test_formula_cells_get_a_leading_quote(text):
    assert guard_cell(text) == "'" + text


def test_plain_text_and_numbers_are_unchanged():
    assert guard_cell("Male") == "Male"
    assert guard_cell(-3.5) == -3.5


def test_guard_formulas_leaves_numeric_columns_alone():
    frame = pd.DataFrame({"a": [-1, 2], "b": ["=cmd|' /C calc'!A0", "ok"]})
    out = guard_formulas(frame)
    assert out["a"].tolist() == [-1, 2]
    assert out["b"].tolist() == ["'=cmd|' /C calc'!A0", "ok"]
    assert frame["b"].iloc[0].startswith("=")  # the input is not modified


def test_guarded_column_names():
    out = guard_formulas(pd.DataFrame({"=evil": ["x"]}))
    assert list(out.columns) == ["'=evil"]


def test_to_safe_csv_contains_no_raw_formula():
    data = to_safe_csv(pd.DataFrame({"x": ["=HYPERLINK(1)", "+1"]})).decode()
    lines = data.splitlines()
    assert lines[1:] == ["'=HYPERLINK(1)", "'+1"]


def test_guard_formulas_rejects_non_frames():
    with pytest.raises(TypeError):
        guard_formulas(["=1"])
