"""DC-FBFS page: bars, traversal curves, the sets of Table 1, the T_c slider."""
from __future__ import annotations

import pytest

from tests.dashboard.conftest import assert_clean
from tests.dashboard.test_chart_data import assert_every_chart_has_its_csv


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
