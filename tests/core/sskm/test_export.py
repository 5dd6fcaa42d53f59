"""Formula-guarded CSV export of the published table."""
from __future__ import annotations

import pandas as pd

from core.sskm.export import guard_formulas, to_csv_bytes


def test_text_cells_that_start_a_formula_get_a_quote():
    frame = pd.DataFrame({"a": ["=1+1", "+x", "-y", "@SUM(A1)", "ok"], "n": [-1, 2, 3, 4, 5]})
    out = guard_formulas(frame)
    assert out["a"].tolist() == ["'=1+1", "'+x", "'-y", "'@SUM(A1)", "ok"]
    assert out["n"].tolist() == [-1, 2, 3, 4, 5]


def test_column_names_are_guarded_and_csv_has_no_index():
    text = to_csv_bytes(pd.DataFrame({"=cmd": ["v"]})).decode()
    assert text.splitlines() == ["'=cmd", "v"]
