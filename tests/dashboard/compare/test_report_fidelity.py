"""dashboard.compare.report_fidelity: the report's real-against-release section, as pure functions."""
from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

from core.compare.result import ComparisonResult
from dashboard.compare.report_fidelity import (
    REFERENCE_ROW, fidelity_html, release_label, released_tables, score_tables,
)

EVIL = "<script>alert(1)</script>"


def _real(n: int = 200) -> pd.DataFrame:
    rng = np.random.default_rng(0)
    x = rng.normal(size=n)
    return pd.DataFrame({"age": 40 + 10 * x, EVIL: np.where(x > 0, "<b>high</b>", "low"),
                         "hours": 40 + 5 * x + rng.normal(size=n)})


def _result(tables: dict | None = None, *, real: pd.DataFrame | None = None,
            methods=("Raw table", "kRR")) -> ComparisonResult:
    real = _real() if real is None else real
    if tables is None:
        rng = np.random.default_rng(1)  # each column permuted on its own: the same values, no pair kept
        shuffled = pd.DataFrame({c: real[c].to_numpy()[rng.permutation(len(real))] for c in real.columns})
        tables = {("kRR", 5.0): shuffled, ("kRR", 1.0): shuffled.iloc[::-1], ("Raw table", None): real.copy()}
    return ComparisonResult(pd.DataFrame(), {}, {"methods": list(methods), "dataset": "toy <i>", "table_rows": 5000},
                            tables=tables, real=real)


def test_the_tables_come_in_method_order_then_by_epsilon():
    assert list(released_tables(_result())) == ["Raw table", "kRR at epsilon 1", "kRR at epsilon 5"]
    assert release_label("MST", 0.5) == "MST at epsilon 0.5" and release_label("MDAV", None) == "MDAV"


def test_the_summary_has_the_reference_first_and_a_copy_scores_one():
    summary = score_tables(_result()).summary.set_index("release")
    assert list(summary.index) == [REFERENCE_ROW, "Raw table", "kRR at epsilon 1", "kRR at epsilon 5"]
    assert summary.loc["Raw table", ["column shape", "pair trend"]].tolist() == pytest.approx([1.0, 1.0])
    shuffled = summary.loc["kRR at epsilon 5"]
    assert shuffled["column shape"] == pytest.approx(1.0)  # the same values, each column on its own
    assert shuffled["pair trend"] < summary.loc[REFERENCE_ROW, "pair trend"]  # the pairs are lost
    assert 0.0 < summary.loc[REFERENCE_ROW, "column shape"] < 1.0  # sampling noise, not a copy


def test_the_html_carries_the_scores_and_a_per_column_grid():
    html = fidelity_html(_result(), charts=False)
    assert html.startswith("<h2>Real against release</h2>")
    assert "Reference: two random halves of the training rows" in html
    assert "<th>kRR at epsilon 5</th>" in html and "<td class=num>1.000</td>" in html
    assert "Column shape of each column" in html and "plotly" not in html


def test_every_user_string_is_escaped_in_the_tables_and_the_charts():
    html = fidelity_html(_result())
    assert EVIL not in html and "<b>high</b>" not in html and "toy <i>" not in html
    assert "&lt;script&gt;alert(1)&lt;/script&gt;" in html
    assert html.count('class="plotly-graph-div"') == 4  # per method: the heatmap and the worst column


def test_a_row_number_and_a_constant_column_get_a_note_not_an_error():
    real = _real().assign(row=np.arange(200), k=1.0)
    release = real.assign(row=np.arange(200) * 2, k=1.0)
    html = fidelity_html(_result({("MDAV", None): release}, real=real, methods=("MDAV",)))
    assert "<b>row</b>: a different whole number in every row" in html
    assert "<b>k</b>: one value in every real row" in html


def test_without_a_kept_table_it_says_so():
    assert "no method of this comparison releases a table" in fidelity_html(_result({}))
    older = ComparisonResult(pd.DataFrame(), {}, {"methods": []})
    assert "this result keeps no table" in fidelity_html(older)
    with pytest.raises(TypeError, match="ComparisonResult"):
        fidelity_html({"tables": {}})
