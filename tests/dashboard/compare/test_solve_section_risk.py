"""dashboard.compare.solve_section on a risk target: answers read "up to epsilon", with the note why."""
from __future__ import annotations

from streamlit.testing.v1 import AppTest

from dashboard.compare.solve_section import UP_TO_NOTE
from dashboard.shared.safe import md
from tests.dashboard.conftest import assert_clean


def _script() -> None:
    import pandas as pd

    from core.compare.result import ComparisonResult
    from dashboard.compare.solve_section import solve_section

    risk = {"MST": {0.5: 0.0276, 1.0: 0.0216, 2.0: 0.0356, 4.0: 0.0366},
            "IDP-KMeans": dict.fromkeys((0.5, 1, 2, 4), 0.0)}
    rows = [{"method": m, "kind": "table", "epsilon": float(e), "repetition": r, "utility": 0.8,
             "ai_advantage": v + d, "is_dp": True}
            for m, means in risk.items() for e, v in means.items()
            for r, d in enumerate((-0.002, 0.0, 0.002) if m == "MST" else (0.0, 0.0, 0.0))]
    solve_section(ComparisonResult(pd.DataFrame(rows), {}, {"dataset": "toy"}))


def _run() -> AppTest:
    at = AppTest.from_function(_script, default_timeout=60).run()
    at.selectbox(key="cmp_solve_measure").set_value("ai_advantage").run()
    at.number_input(key="cmp_solve_target_ai_advantage").set_value(0.03).run()
    return at


def test_a_risk_target_is_answered_up_to_an_epsilon():
    at = _run()
    assert_clean(at)
    rows = at.dataframe[0].value.set_index("method")
    assert rows.loc["MST", "meets the target"].startswith("up to epsilon 1.")
    assert rows.loc["IDP-KMeans", "meets the target"] == "at or above 4 (the largest tried)"


def test_a_risk_target_says_why_it_reads_up_to():
    at = _run()
    assert any(c.value == md(UP_TO_NOTE) or c.value == UP_TO_NOTE for c in at.caption)
