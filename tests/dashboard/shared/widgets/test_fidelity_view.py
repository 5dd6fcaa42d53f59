"""dashboard.shared.widgets.fidelity_view: the real-against-release section, run in a small AppTest script."""
from __future__ import annotations

import numpy as np
import pandas as pd
from streamlit.testing.v1 import AppTest

from dashboard.shared.widgets.fidelity_view import SCORES_NOTE, sampled
from tests.dashboard.conftest import assert_clean
from tests.dashboard.shared.widgets.test_chart_data import assert_every_chart_has_its_csv


def _script(case: str) -> None:
    import numpy as np
    import pandas as pd

    from dashboard.shared.widgets.fidelity_view import real_vs_release

    x = np.arange(40.0)
    real = pd.DataFrame({"x": x, "y": 2 * x, "c": ["a"] * 20 + ["b"] * 20})
    release = pd.DataFrame({"x": x[::-1], "y": x, "c": ["a", "b"] * 20})
    if case == "missing":
        release = release.drop(columns="y")
    elif case == "one column":
        real, release = real[["c"]], release[["c"]]
    elif case == "odd":  # a constant column, missing values, one released row
        real = real.assign(k=1.0, y=real["y"].where(real["x"] > 3))
        release = release.assign(k=1.0).iloc[:1]
    elif case == "ids":  # a row-number column and a constant one, on both sides
        real = real.assign(row=np.arange(40), k=1.0)
        release = release.assign(row=np.arange(40) + 100, k=1.0)
    elif case == "big":
        big = pd.DataFrame({"x": np.arange(6_000.0), "c": ["a", "b", "c"] * 2_000})
        real, release = big, big.copy()
    elif case == "several":
        def never():
            raise AssertionError("a release that is not shown is not made")

        release = {"first": release, "second": never}
    real_vs_release(real, release, key="t", dataset="toy")


def _open(case: str, *, opened: bool = True) -> AppTest:
    at = AppTest.from_function(_script, kwargs={"case": case}, default_timeout=60)
    if opened:
        at.session_state["t_open"] = True
    return at.run()


def test_closed_it_computes_nothing():
    at = _open("plain", opened=False)
    assert_clean(at)
    assert at.expander[0].label == "Real against release"
    assert not at.dataframe and not at.get("plotly_chart")


def test_opened_it_shows_shapes_an_overlay_the_heatmap_and_pairs():
    at = _open("plain")
    assert_clean(at)
    shapes = at.dataframe[0].value
    assert list(shapes.columns) == ["column", "kind", "score", "test"]
    assert dict(zip(shapes["column"], shapes["test"])) == {"x": "KS complement", "y": "KS complement",
                                                           "c": "TV complement"}
    assert shapes["score"].tolist()[:2] == [1.0, 0.5]  # x reordered; y halved: half its range is missed
    pairs = at.dataframe[1].value
    assert {"left", "right", "real", "release", "difference", "score"} <= set(pairs.columns)
    assert [c.key for c in at.get("plotly_chart")] == ["t_overlay", "t_heatmap"]
    assert_every_chart_has_its_csv(at)
    assert any(c.value == SCORES_NOTE for c in at.caption)
    assert any(m.value.startswith("**Column shapes** (mean ") for m in at.markdown)
    assert any(m.value.startswith("**Pair trends** (mean ") for m in at.markdown)


def test_the_column_choice_moves_the_overlay():
    at = _open("plain")
    at.selectbox(key="t_column").set_value("c").run()
    assert_clean(at)
    assert '"c: real against release' in at.get("plotly_chart")[0].proto.spec


def test_a_column_the_release_lacks_is_named_and_left_out():
    at = _open("missing")
    assert_clean(at)
    assert any(c.value.startswith("Not in the release (not scored): y") for c in at.caption)
    assert at.dataframe[0].value["column"].tolist() == ["x", "c"]


def test_one_column_has_no_pairs_and_says_so():
    at = _open("one column")
    assert_clean(at)
    assert any("no pair" in i.value for i in at.info)
    assert [c.key for c in at.get("plotly_chart")] == ["t_overlay"]


def test_a_constant_column_missing_values_and_one_row_do_not_break_it():
    at = _open("odd")
    assert_clean(at)
    assert "k" in at.dataframe[0].value["column"].tolist()


def test_a_row_number_and_a_constant_column_are_scored_with_a_note():
    at = _open("ids")
    assert_clean(at)
    assert at.dataframe[0].value["column"].tolist() == ["x", "y", "c", "row", "k"]
    notes = [c.value for c in at.caption]
    assert any(n.startswith("row: a different whole number in every row") for n in notes)
    assert any(n.startswith("k: one value in every real row") for n in notes)
    assert any(n.startswith("Reference: two random halves of the real rows (20 each)") for n in notes)
    assert any("; two random halves of the real rows: " in m.value for m in at.markdown)


def test_a_big_table_is_sampled_and_says_so():
    at = _open("big")
    assert_clean(at)
    assert any("seeded sample of at most 5,000 rows" in c.value for c in at.caption)
    assert at.dataframe[0].value["score"].tolist() == [1.0, 1.0]  # the same positions on both sides


def test_several_releases_are_picked_and_only_the_shown_one_is_made():
    at = _open("several")
    assert_clean(at)
    assert at.selectbox(key="t_release").options == ["first", "second"]


def test_the_sample_keeps_aligned_rows_together_and_is_seeded():
    real = pd.DataFrame({"v": np.arange(50)})
    a, b = sampled(real, real.copy(), rows=10)
    assert len(a) == 10 and a["v"].tolist() == b["v"].tolist()
    assert sampled(real, real, rows=10)[0].equals(a)
    short = sampled(real, real.iloc[:20], rows=10)[1]
    assert len(short) == 10 and short["v"].max() < 20
