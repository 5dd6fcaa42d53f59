"""dashboard.shared.solve.solve_panel: the target, each method's epsilon, the two sound ways and
"use this epsilon" (pure parts, then the widget in a small AppTest script)."""
from __future__ import annotations

import math

import pandas as pd
import pytest
from streamlit.testing.v1 import AppTest

from core.decide import Target, solve_summary
from core.decide.selection import PRIVATE_CHOICE_NOTE
from core.validation import DataError
from dashboard.shared.safe import md
from dashboard.shared.solve.solve_panel import (
    SolveMeasure, read_reference, reference_problems, snap_up, solution_rows, solve_runs,
)
from tests.dashboard.conftest import assert_clean

GRID = (0.5, 1.0, 2.0, 4.0)
#: the DP reading's mean accuracy at each epsilon (Group's is 0.3 lower: it never reaches 0.6)
MEANS = {0.5: 0.4, 1.0: 0.5, 2.0: 0.7, 4.0: 0.8}


def _runs(repetitions: int = 3) -> pd.DataFrame:
    spread = (-0.01, 0.0, 0.01)[:repetitions] if repetitions > 1 else (0.0,)
    return pd.DataFrame([{"scheme": s, "epsilon": e, "repetition": r, "accuracy": m + d - (0.3 if s == "Group" else 0)}
                         for s in ("DP reading", "Group") for e, m in MEANS.items() for r, d in enumerate(spread)])


ACCURACY = SolveMeasure("accuracy", "test accuracy", True, low=0.0, high=1.0)


def _csv(columns: str) -> bytes:
    """A 12-row table with ``columns`` among x (a number), z (a category) and y (the 0/1 label)."""
    cells = {"x": lambda i: str(i), "z": lambda i: "ab"[i % 2], "y": lambda i: str(i % 2)}
    names = columns.split(",")
    return ("\n".join([columns] + [",".join(cells[c](i) for c in names) for i in range(12)]) + "\n").encode()


# ----------------------------------------------------------------------------- pure parts
def test_solve_runs_is_core_decides_answer_on_the_renamed_runs():
    target = ACCURACY.target(0.6)
    mine = solve_runs(_runs(), target, group="scheme", column="accuracy")
    core = solve_summary(_runs().rename(columns={"scheme": "method"}), target)
    assert mine == core


def test_the_answer_is_the_log_epsilon_interpolation_of_the_means():
    """Mean 0.5 at epsilon 1 and 0.7 at 2: 0.6 is reached halfway on log-epsilon, at sqrt(2)."""
    dp, group = solve_runs(_runs(), ACCURACY.target(0.6), column="accuracy")
    assert dp.epsilon == pytest.approx(math.sqrt(2))
    assert group.epsilon is None and not group.met


def test_the_rows_say_the_answer_in_words():
    rows = solution_rows(solve_runs(_runs(), ACCURACY.target(0.6), column="accuracy")).set_index("method")
    assert rows.loc["DP reading", "meets the target"] == "from epsilon 1.41"
    assert rows.loc["DP reading", "epsilon"] == pytest.approx(math.sqrt(2))
    assert rows.loc["Group", "meets the target"] == "no epsilon in range meets it"
    assert math.isnan(rows.loc["Group", "epsilon"])
    assert list(rows["repetitions"]) == [3, 3]
    low, high = rows.loc["DP reading", "95% interval of that epsilon"].split(" to ")
    assert float(low) < math.sqrt(2) < float(high)


def test_a_target_met_at_the_smallest_epsilon_is_at_or_below_it():
    rows = solution_rows(solve_runs(_runs(), ACCURACY.target(0.3), column="accuracy"))
    assert rows["meets the target"].iloc[0] == "at or below 0.5 (the smallest tried)"


def test_one_repetition_says_its_uncertainty_is_unknown():
    rows = solution_rows(solve_runs(_runs(repetitions=1), ACCURACY.target(0.6), column="accuracy"))
    assert rows["95% interval of that epsilon"].iloc[0] == "unknown (run at least two repetitions)"


def test_a_method_without_epsilon_or_measure_says_so():
    runs = pd.DataFrame({"method": ["MDAV", "MDAV", "CDP-LR"], "epsilon": [math.nan, math.nan, 1.0],
                         "utility": [0.8, 0.82, math.nan]})
    rows = solution_rows(solve_runs(runs, Target("utility", at_least=0.7), group="method")).set_index("method")
    assert rows.loc["MDAV", "meets the target"] == "takes no epsilon: meets it"
    assert rows.loc["CDP-LR", "meets the target"] == "does not apply"


def test_an_at_most_measure_reads_at_most():
    mae = SolveMeasure("mae", "count-query MAE", False, name="MAE")
    assert mae.target(50.0) == Target("MAE", at_most=50.0) and mae.side == "at most"
    assert ACCURACY.target(0.6) == Target("accuracy", at_least=0.6)


@pytest.mark.parametrize("solved, expected", [(1.414, 2.0), (2.0, 2.0), (0.1, 0.5), (9.0, 4.0)])
def test_snap_up_rounds_up_to_a_value_the_widget_offers(solved, expected):
    assert snap_up(solved, GRID) == expected


def test_snap_up_needs_options():
    with pytest.raises(ValueError, match="at least one"):
        snap_up(1.0, [])


def test_a_reference_table_is_read_with_the_pages_label_and_checked_against_the_schema():
    from core.privacy.schema_draft import draft_schema

    table = read_reference(_csv("x,z,y"), "ref.csv", label="y")
    assert table.label == "y"
    schema = draft_schema(table)
    assert reference_problems(table, schema, "y") == []
    narrow = read_reference(_csv("x,z"), "ref.csv", label="y")
    problems = " ".join(reference_problems(narrow, schema, "y"))
    assert "'y'" in problems and "label" in problems


def test_an_unreadable_reference_raises_a_data_error():
    with pytest.raises(DataError):
        read_reference(b"", "empty.csv", label=None)


# ----------------------------------------------------------------------------- the widget
def _script(case: str) -> None:
    import pandas as pd
    import streamlit as st

    from core.privacy.ledger import PrivacyLedger
    from core.privacy.schema_draft import draft_schema
    from dashboard.shared.solve.solve_panel import (
        ApplyEpsilon, ReferenceOffer, SelectionOffer, SolveMeasure, chosen_ledger, read_reference, snap_up,
        solve_panel,
    )

    grid = (0.5, 1.0, 2.0, 4.0)
    means = {0.5: 0.4, 1.0: 0.5, 2.0: 0.7, 4.0: 0.8}
    runs = pd.DataFrame([{"scheme": s, "epsilon": e, "repetition": r, "accuracy": m + d - (0.3 if s == "Group" else 0)}
                         for s in ("DP reading", "Group") for e, m in means.items()
                         for r, d in enumerate((-0.01, 0.0, 0.01))])
    eps = st.select_slider("epsilon", grid, value=1.0, key="eps")
    ledger = PrivacyLedger()
    ledger.spend(eps, label="release")
    reference, selection = "Reference: elsewhere.", "Selection: elsewhere."
    if case == "selection":
        selection = SelectionOffer("DP reading", lambda e, random_state: means[e], grid, "One run: a closed form.",
                                   random_state=0)
    if case == "reference":
        table = read_reference(("x,y\n" + "".join(f"{i},{i % 2}\n" for i in range(12))).encode(), "ref.csv",
                               label="y")
        reference = ReferenceOffer(draft_schema(table), "y", lambda ds: runs.assign(accuracy=runs["accuracy"] + 0.1))
    if st.session_state.get("hide"):  # a run that does not draw the panel (its curve recomputes)
        return
    solved = solve_panel(runs, key="t", measures=[SolveMeasure("accuracy", "test accuracy", True, 0.0, 1.0)],
                         apply=ApplyEpsilon("eps", lambda e: snap_up(e, grid), default="DP reading"),
                         reference=reference, selection=selection)
    shown = chosen_ledger("eps", eps, ledger)
    st.text(f"guarantee: {shown.total()[0]:g}" if shown.is_dp else "guarantee: none")
    st.text(f"solved: {None if solved is None else [(s.method, s.epsilon) for s in solved.solutions]}")


def _run(case: str = "private", target: float | None = 0.6) -> AppTest:
    at = AppTest.from_function(_script, kwargs={"case": case}, default_timeout=60).run()
    if target is not None:
        at.number_input(key="t_target_accuracy").set_value(target).run()
    return at


def _texts(at: AppTest) -> list[str]:
    return [t.value for t in at.text]


def test_without_a_target_nothing_is_solved():
    at = _run(target=None)
    assert_clean(at)
    assert not at.dataframe and "solved: None" in _texts(at)
    assert any(c.value.startswith("Type a target") for c in at.caption)


def test_a_target_gives_each_methods_epsilon_and_says_the_choice_uses_the_private_data():
    at = _run()
    assert_clean(at)
    rows = at.dataframe[0].value.set_index("method")
    assert rows.loc["DP reading", "epsilon"] == pytest.approx(math.sqrt(2))
    assert rows.loc["Group", "meets the target"] == "no epsilon in range meets it"
    assert any(w.value == md(PRIVATE_CHOICE_NOTE) for w in at.warning)
    assert any("Reference: elsewhere." in c.value.replace("\\", "") for c in at.caption)


def test_the_target_outlives_a_run_that_does_not_draw_the_panel():
    at = _run()
    at.session_state["hide"] = True
    at.run()
    at.session_state["hide"] = False
    at.run()
    assert at.number_input(key="t_target_accuracy").value == 0.6
    assert at.dataframe[0].value.set_index("method").loc["DP reading", "epsilon"] == pytest.approx(math.sqrt(2))


def test_use_this_epsilon_sets_the_page_rounded_up_and_marks_its_ledger():
    at = _run()
    assert at.button(key="t_use").label == "Use this epsilon (2)"
    at.button(key="t_use").click().run()
    assert_clean(at)
    assert at.select_slider(key="eps").value == 2.0
    assert "guarantee: none" in _texts(at)  # chosen on the private data: no guarantee any more
    at.select_slider(key="eps").set_value(4.0).run()
    assert "guarantee: 4" in _texts(at)  # an epsilon set by hand is not the chosen one


def test_a_public_reference_answers_without_marking_the_ledger():
    at = AppTest.from_function(_script, kwargs={"case": "reference"}, default_timeout=60)
    from dashboard.shared.solve.solve_panel import read_reference

    at.session_state["t_reference"] = ("test", read_reference(_csv("x,y"), "ref.csv", label="y"))
    at.run()
    at.number_input(key="t_target_accuracy").set_value(0.6).run()
    at.radio(key="t_source").set_value("reference").run()
    assert_clean(at)
    assert any(s.value.startswith("Solved on the public reference table") for s in at.success)
    assert not any(w.value == md(PRIVATE_CHOICE_NOTE) for w in at.warning)
    rows = at.dataframe[0].value.set_index("method")
    assert rows.loc["DP reading", "epsilon"] == pytest.approx(1.0, abs=1e-9)  # the reference's means are 0.1 higher
    at.button(key="t_use").click().run()
    assert at.select_slider(key="eps").value == 1.0 and "guarantee: 1" in _texts(at)


def test_a_reference_without_the_schemas_columns_is_refused_in_words():
    at = AppTest.from_function(_script, kwargs={"case": "reference"}, default_timeout=60)
    from dashboard.shared.solve.solve_panel import read_reference

    at.session_state["t_reference"] = ("test", read_reference(_csv("x"), "ref.csv", label="y"))
    at.run()
    at.number_input(key="t_target_accuracy").set_value(0.6).run()
    at.radio(key="t_source").set_value("reference").run()
    assert not at.exception
    assert "y" in at.error[0].value and "label" in at.error[0].value
    assert not at.dataframe


def test_private_selection_shows_its_cost_then_adds_it_to_the_ledger():
    at = _run("selection")
    at.radio(key="t_source").set_value("selection").run()
    assert_clean(at)
    assert not at.dataframe  # the answers on the private data are not shown beside the selection
    cost = next(m for m in at.metric if m.label == "Cost of the choice")
    assert cost.value == "epsilon = 6"  # 3 x the largest candidate, 2
    at.button(key="t_sel_run").click().run()
    assert_clean(at)
    chosen = next(s.value for s in at.success if s.value.startswith("Private selection chose epsilon"))
    assert "chose epsilon 2 for" in chosen  # the only candidate up to 2 whose run meets 0.6
    assert at.dataframe[0].value["epsilon"].tolist() == [6.0]  # the cost, as a ledger line
    at.button(key="t_use").click().run()
    assert at.select_slider(key="eps").value == 2.0
    assert "guarantee: 8" in _texts(at)  # the release's 2 and the choice's 6


def test_every_selection_run_spends_its_cost_again():
    at = _run("selection")
    at.radio(key="t_source").set_value("selection").run()
    at.button(key="t_sel_run").click().run()
    at.button(key="t_sel_run").click().run()
    assert_clean(at)
    assert at.dataframe[0].value["epsilon"].tolist() == [6.0, 6.0]
    if at.button(key="t_use").label == "Use this epsilon (2)":  # the second selection chose 2 again
        at.button(key="t_use").click().run()
        assert "guarantee: 14" in _texts(at)  # the release's 2 and two choices of 6


def test_papernot_steinke_with_eta_zero_costs_two_times_the_largest_candidate():
    at = _run("selection")
    at.radio(key="t_source").set_value("selection").run()
    at.radio(key="t_sel_algorithm").set_value("papernot_steinke").run()
    assert next(m for m in at.metric if m.label == "Cost of the choice").value == "epsilon = 4"
    at.select_slider(key="t_sel_largest").set_value(4.0).run()
    assert next(m for m in at.metric if m.label == "Cost of the choice").value == "epsilon = 8"
