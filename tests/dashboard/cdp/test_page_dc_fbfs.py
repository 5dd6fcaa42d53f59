"""DC-FBFS page: bars, traversal curves, the sets of Table 1, the T_c slider."""
from __future__ import annotations

import pytest

from tests.dashboard.conftest import assert_clean
from tests.dashboard.shared.widgets.test_chart_data import assert_every_chart_has_its_csv


def test_page_draws_figures_and_sets(open_page):
    at = open_page("dc_fbfs", timeout=300)
    assert_clean(at)
    assert len(at.get("plotly_chart")) == 3  # Fig. 1, Fig. 2, Fig. 3
    assert len(at.dataframe) == 3  # Table 1 sets, Table 2 sensitivities, and the paper's Table 2


def test_every_chart_offers_its_data_as_csv(open_page):
    at = open_page("dc_fbfs", timeout=300)
    assert_clean(at)
    assert_every_chart_has_its_csv(at)  # C(x) vs features, DC and importance bars, traversal curves


def test_tc_slider_changes_the_candidate_set(open_page):
    at = open_page("dc_fbfs", timeout=300)
    slider = next(s for s in at.slider if s.key and s.key.startswith("fb_tc_"))
    slider.set_value(slider.max).run()
    assert_clean(at)
    table = at.dataframe[0].value
    n_c_del = int(table.loc[table["set"].str.startswith("F_c_del"), "n"].iloc[0])
    assert n_c_del >= 1


@pytest.mark.slow
def test_page_works_on_adult(open_page_on_public, data_dir):
    at = open_page_on_public("adult", "dc_fbfs", data_dir)
    assert_clean(at)
    assert at.get("plotly_chart")


def test_dc_and_importance_bars_are_two_panels_with_a_titled_chart(open_page):
    import json

    at = open_page("dc_fbfs", timeout=300)
    spec = json.loads(next(c.proto.spec for c in at.get("plotly_chart") if "Fig. 2" in c.proto.spec))
    layout = spec["layout"]
    assert "yaxis2" in layout and "overlaying" not in layout["yaxis2"]  # two panels, no overlaid bars
    assert any(a["text"].startswith("T_c = ") for a in layout["annotations"])
    assert "1639.00" not in " ".join(c.value for c in at.caption)


def _claims(at) -> list[str]:
    return [e.value for kind in ("success", "warning", "info") for e in getattr(at, kind)
            if e.value.startswith("**Paper 000")]


def test_fig1_section_draws_c_against_the_number_of_features(open_page):
    at = open_page("dc_fbfs", timeout=300)
    assert_clean(at)
    assert any("Fig. 1" in s.value for s in at.subheader)
    assert any("vs number of features on supplier" in c.proto.spec for c in at.get("plotly_chart"))


def test_every_figure_and_table_has_its_claim_box(open_page):
    at = open_page("dc_fbfs", timeout=300)
    boxes = " ".join(_claims(at))
    for label in (r"Fig\. 1", r"Fig\. 2", r"Fig\. 3", r"Table 1", r"Table 2"):
        assert f"Paper 000, {label} ·" in boxes


def test_paper_table2_is_shown_beside_ours(open_page):
    at = open_page("dc_fbfs", timeout=300)
    paper = at.dataframe[2].value
    assert paper["GS"].tolist()[0] == 45.86 and "CDP-LR accuracy (%)" in paper.columns
    assert "paper (their supplier data)" in at.dataframe[0].value.columns


def _on_skewed(page: str, *, present: bool = False):
    from streamlit.testing.v1 import AppTest

    from dashboard.navigation import page_file

    from tests.dashboard.conftest import APP
    from tests.dashboard.skewed_table import skewed_dataset

    at = AppTest.from_file(str(APP), default_timeout=300)
    at.session_state["pux_dataset"] = skewed_dataset()
    if present:
        at.session_state["present"] = True
    at.switch_page(page_file(page))
    at.run()
    return at


def test_tc_is_shown_as_a_share_of_its_range_and_of_c():
    import json

    at = _on_skewed("dc_fbfs")
    assert_clean(at)
    share = next(m for m in at.metric if m.label == "T_c as a share of its range")
    assert share.value.endswith("%") and share.proto.delta.startswith("T_c = 40 of 0 to ")
    reading = next(c.value for c in at.caption if c.value.startswith("T_c = 40 is "))
    assert "% of its range" in reading and "of C(x) = " in reading and "N = 300 records" in reading
    spec = json.loads(next(c.proto.spec for c in at.get("plotly_chart") if c.key == "fb_bars"))
    assert any("% of its range" in a["text"] for a in spec["layout"]["annotations"])


def test_tc_and_its_chart_come_first_side_by_side():
    at = _on_skewed("dc_fbfs")
    cols = list(at.main.columns)
    i = next(k for k, c in enumerate(cols) if any(s.key.startswith("fb_tc_") for s in c.slider))
    assert [c.key for c in cols[i + 1].get("plotly_chart")] == ["fb_bars"]  # the column beside it
    assert not any(c.get("plotly_chart") for c in cols[:i])  # no chart before them


def test_table2_gives_cs_as_a_share_of_n():
    at = _on_skewed("dc_fbfs")
    stages = at.dataframe[1].value
    assert stages["CS as a share of N"].str.endswith("%").all()


def test_presenting_shows_the_charts_and_no_caption_that_points_at_a_control():
    at = _on_skewed("dc_fbfs", present=True)
    assert_clean(at)
    assert any(c.key == "fb_bars" for c in at.get("plotly_chart"))
    assert not any(c.value.startswith("Move T_c") for c in at.caption)


def test_the_traversals_are_read_against_the_constant_guess():
    at = _on_skewed("dc_fbfs")
    spec = next(c.proto.spec for c in at.get("plotly_chart") if c.key == "fb_curves")
    assert "majority class (constant guess)" in spec
    assert any("always guessing the majority class (0.900" in c.value for c in at.caption)
