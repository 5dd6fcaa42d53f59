import pandas as pd
import pytest

from core.data.export import guard_formulas, to_csv_bytes


@pytest.mark.parametrize("cell", ["=1+1", "+cmd", "-2+3", "@SUM(A1)", "\tx"])
def test_formula_cells_get_a_leading_quote(cell):
    out = guard_formulas(pd.DataFrame({"a": [cell, "ok"]}))
    assert out["a"].tolist() == ["'" + cell, "ok"]


def test_numbers_are_left_alone():
    out = guard_formulas(pd.DataFrame({"x": [-3.5, 2.0]}))
    assert out["x"].tolist() == [-3.5, 2.0]


def test_column_names_are_guarded():
    assert list(guard_formulas(pd.DataFrame({"=evil": ["a"]})).columns) == ["'=evil"]


def test_csv_bytes_round_trip():
    data = to_csv_bytes(pd.DataFrame({"a": ["=x", "y"], "b": [1, -2]}))
    assert data.decode().splitlines() == ["a,b", "'=x,1", "y,-2"]


def test_original_frame_is_not_changed():
    frame = pd.DataFrame({"a": ["=x"]})
    guard_formulas(frame)
    assert frame.loc[0, "a"] == "=x"


def test_needs_a_frame():
    with pytest.raises(TypeError):
        guard_formulas([["=x"]])
