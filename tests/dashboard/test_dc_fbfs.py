"""DC-FBFS page: bars, traversal curves, the sets of Table 1, the T_c slider."""
from __future__ import annotations

import pytest

from tests.dashboard.conftest import assert_clean
from tests.dashboard.test_chart_data import assert_every_chart_has_its_csv


def test_page_draws_figures_and_sets(open_page):
    at = open_page("dc_fbfs", timeout=300)
    assert_clean(at)
    assert len(at.get("plotly_chart")) == 2
    assert len(at.dataframe) == 2  # Table 1 sets and Table 2 sensitivities


def test_every_chart_offers_its_data_as_csv(open_page):
    at = open_page("dc_fbfs", timeout=300)
    assert_clean(at)
    assert_every_chart_has_its_csv(at)  # DC and importance bars, traversal curves


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
