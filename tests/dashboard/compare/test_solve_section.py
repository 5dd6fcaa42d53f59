"""dashboard.compare.solve_section: solve for epsilon on a comparison's runs (a small AppTest script)."""
from __future__ import annotations

import math

import pandas as pd
import pytest
from streamlit.testing.v1 import AppTest

from core.decide import Target, solve_summary
from dashboard.compare.solve_section import UNSEEDED_NOTE, solve_measures, spread_rows
from dashboard.shared.safe import md
from tests.dashboard.conftest import assert_clean
from tests.dashboard.shared.widgets.test_chart_data import assert_every_chart_has_its_csv


def _runs() -> pd.DataFrame:
    """kRR (seeded) and MST (unseeded) at epsilon 0.5 to 4, three repetitions; MDAV without epsilon."""
    means = {0.5: 0.6, 1.0: 0.7, 2.0: 0.8, 4.0: 0.85}
    rows = []
    for method, shift in (("kRR", 0.0), ("MST", -0.05)):
        for e, m in means.items():
            for r, d in enumerate((-0.01, 0.0, 0.01)):
                rows.append({"method": method, "kind": "table", "epsilon": e, "repetition": r, "utility": m + shift + d,
                             "ai_advantage": 0.1 / e + d, "ai_advantage_sex": 0.1 / e, "mia_auc": math.nan,
                             "rows_released": 100.0, "is_dp": True})
    rows += [{"method": "MDAV", "kind": "table", "epsilon": math.nan, "repetition": r, "utility": 0.82,
              "ai_advantage": 0.2, "ai_advantage_sex": 0.2, "mia_auc": math.nan, "rows_released": 100.0,
              "is_dp": False} for r in range(3)]
    return pd.DataFrame(rows)


def test_the_measures_offered_are_those_with_a_direction_and_a_value():
    names = [m.column for m in solve_measures(_runs())]
    assert names == ["utility", "ai_advantage", "ai_advantage_sex"]  # mia_auc has no value, rows_released no direction
    by = {m.column: m for m in solve_measures(_runs())}
    assert by["utility"].higher_is_better and not by["ai_advantage"].higher_is_better
    assert by["ai_advantage_sex"].words == "attribute-inference advantage (sex)"


def test_the_spread_of_an_unseeded_method_is_its_repetitions_at_each_epsilon():
    rows = spread_rows(_runs(), "MST", "utility").set_index("epsilon")
    assert rows.loc[1.0, "mean"] == pytest.approx(0.65) and rows.loc[1.0, "repetitions"] == 3
    assert rows.loc[1.0, "smallest"] == pytest.approx(0.64) and rows.loc[1.0, "largest"] == pytest.approx(0.66)


def _script(repetitions: int = 3) -> None:
    import math

    import pandas as pd

    from core.compare.result import ComparisonResult
    from dashboard.compare.solve_section import solve_section

    means = {0.5: 0.6, 1.0: 0.7, 2.0: 0.8, 4.0: 0.85}
    rows = []
    for method, shift in (("kRR", 0.0), ("MST", -0.05)):
        for e, m in means.items():
            for r, d in enumerate((0.0, -0.01, 0.01)[:repetitions]):
                rows.append({"method": method, "kind": "table", "epsilon": e, "repetition": r,
                             "utility": m + shift + d, "ai_advantage": 0.1 / e + d, "ai_advantage_sex": 0.1 / e,
                             "mia_auc": math.nan, "rows_released": 100.0, "is_dp": True})
    rows += [{"method": "MDAV", "kind": "table", "epsilon": math.nan, "repetition": r, "utility": 0.82,
              "ai_advantage": 0.2, "ai_advantage_sex": 0.2, "mia_auc": math.nan, "rows_released": 100.0,
              "is_dp": False} for r in range(3)]
    solve_section(ComparisonResult(pd.DataFrame(rows), {}, {"dataset": "toy"}))


def _run(measure: str | None = None, target: float | None = None, repetitions: int = 3) -> AppTest:
    at = AppTest.from_function(_script, args=(repetitions,), default_timeout=60).run()
    if measure is not None:
        at.selectbox(key="cmp_solve_measure").set_value(measure).run()
    if target is not None:
        at.number_input(key=f"cmp_solve_target_{measure or 'utility'}").set_value(target).run()
    return at


def test_without_a_target_it_offers_the_measures_and_solves_nothing():
    at = _run()
    assert_clean(at)
    assert at.subheader[0].value == "Solve for epsilon"
    assert at.selectbox(key="cmp_solve_measure").options == ["accuracy", "attribute-inference advantage",
                                                             "attribute-inference advantage (sex)"]
    assert not at.dataframe and not at.get("plotly_chart")


def test_each_methods_epsilon_is_core_decides_on_the_runs():
    at = _run(target=0.75)
    assert_clean(at)
    rows = at.dataframe[0].value.set_index("method")
    expected = {s.method: s for s in solve_summary(_runs(), Target("utility", at_least=0.75))}
    assert rows.loc["kRR", "epsilon"] == pytest.approx(expected["kRR"].epsilon)
    assert rows.loc["kRR", "epsilon"] == pytest.approx(math.sqrt(2))  # 0.7 at 1, 0.8 at 2: halfway on log-epsilon
    assert rows.loc["MST", "epsilon"] == pytest.approx(expected["MST"].epsilon)
    assert rows.loc["MDAV", "meets the target"] == "takes no epsilon: meets it"


def test_an_unseeded_method_says_so_with_its_spread():
    at = _run(target=0.75)
    assert any(i.value == md(UNSEEDED_NOTE.format(method="MST")) for i in at.info)
    assert "MST" in at.info[0].value and "kRR" not in " ".join(i.value for i in at.info)
    spread = at.dataframe[1].value
    assert list(spread.columns) == ["epsilon", "mean", "standard deviation", "smallest", "largest", "repetitions"]


def test_one_repetition_says_there_is_no_spread_to_read():
    from dashboard.compare.solve_section import ONE_RUN_NOTE

    assert not any(c.value == ONE_RUN_NOTE for c in _run(target=0.75).caption)
    at = _run(target=0.75, repetitions=1)
    assert_clean(at)
    assert any(c.value == ONE_RUN_NOTE for c in at.caption)


def test_the_curves_are_drawn_with_the_solved_epsilons_marked():
    at = _run(target=0.75)
    (chart,) = at.get("plotly_chart")
    assert chart.key == "cmp_solve_chart"
    assert "kRR: solved epsilon 1.41" in chart.proto.spec
    assert_every_chart_has_its_csv(at)


def test_an_attack_target_reads_at_most_and_no_epsilon_in_range_meets_a_tight_one():
    at = _run("ai_advantage", 0.01)
    assert_clean(at)
    rows = at.dataframe[0].value.set_index("method")
    assert rows.loc["kRR", "meets the target"] == "no epsilon in range meets it"
    assert rows.loc["MDAV", "meets the target"] == "takes no epsilon: does not meet it"


def test_the_two_sound_ways_are_said_where_they_are():
    at = _run(target=0.75)
    captions = " ".join(c.value.replace("\\", "") for c in at.caption)
    assert "run pux solve on it" in captions and "CDP-LR and Publishing" in captions
