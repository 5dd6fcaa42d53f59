"""AppTest smoke tests of the SSKM_DP page on the census sample."""
from __future__ import annotations

import pytest

from tests.dashboard.conftest import assert_clean


@pytest.fixture
def sskm_page(open_page):
    at = open_page("sskm", timeout=240)
    return at


def _charts(at):
    return at.get("plotly_chart")


def test_page_shows_grid_and_charts(sskm_page):
    at = sskm_page
    assert_clean(at)
    assert at.title[0].value == "SSKM_DP"
    assert at.multiselect(key="sskm_sensitive").value == ["sex"]  # the census sample by default
    # grid, SFLA, training, MIC, epsilon curves, baselines
    assert len(_charts(at)) >= 6
    assert any("Protected attributes" in m.value for m in at.markdown)
    labels = [m.label for m in at.metric]
    assert "MSE" in labels and "Record linkage" in labels


def test_epsilon_and_threshold_sliders_move(sskm_page):
    at = sskm_page
    mse_before = next(m.value for m in at.metric if m.label == "MSE")
    at.select_slider(key="sskm_epsilon").set_value(0.05).run()
    assert_clean(at)
    mse_after = next(m.value for m in at.metric if m.label == "MSE")
    assert float(mse_after) > float(mse_before)
    at.slider(key="sskm_cs").set_value(0.0).run()
    assert_clean(at)
    protected = next(m.value for m in at.markdown if "Protected attributes" in m.value)
    assert protected.count("`") == 2 * len(at.multiselect(key="sskm_columns").value)


def test_grid_views_and_size_change(sskm_page):
    at = sskm_page
    at.slider(key="sskm_rows").set_value(5).run()
    at.radio(key="sskm_topology").set_value("hexagonal").run()
    for view in ("Hit map", "Component plane", "Sensitive share", "U-matrix"):
        at.radio(key="sskm_view").set_value(view).run()
        assert_clean(at)
    assert any(m.label == "Clusters (non-empty neurons)" and m.value.endswith("of 40") for m in at.metric)


def test_no_sensitive_attribute_gives_one_sentence(sskm_page):
    at = sskm_page
    at.multiselect(key="sskm_sensitive").set_value([]).run()
    assert not at.exception
    assert len(at.error) == 1
    assert "sensitive" in at.error[0].value


@pytest.mark.slow
@pytest.mark.parametrize("name", ["adult", "nltcs"])
def test_page_works_on_public_data(request, name):
    from streamlit.testing.v1 import AppTest

    from tests.dashboard.conftest import APP

    dataset = request.getfixturevalue(name)
    at = AppTest.from_file(str(APP), default_timeout=600)
    at.session_state["pux_dataset"] = dataset  # as if chosen on the Data page
    at.switch_page("views/sskm.py")
    at.run()
    assert_clean(at)
    assert len(_charts(at)) >= 5  # baselines are off by default on large tables
    if len(dataset.frame) > 20_000:
        at.toggle(key="sskm_run_baselines").set_value(True).run()
        assert_clean(at)
        assert len(_charts(at)) >= 6
    expected = list(dataset.sensitive) or [dataset.frame.columns[0]]
    assert at.multiselect(key="sskm_sensitive").value == expected


def test_sound_mode_is_the_default_and_says_dp(open_page):
    at = open_page("sskm", timeout=300)
    assert at.radio(key="sskm_mode").value == "sound"
    assert any(i.value.startswith("Sound mode") for i in at.info)


def test_paper_mode_is_labelled_not_dp_and_its_audit_finds_the_violation(open_page):
    at = open_page("sskm", timeout=300)
    at.radio(key="sskm_mode").set_value("paper").run()
    assert not at.exception
    assert any(w.value.startswith("Paper mode: not differentially private") for w in at.warning)
    at.button(key="sskm_paper_audit_run").click().run()
    assert at.session_state["sskm_paper_audit_job"].wait(120)
    at.run()
    assert any(e.value.startswith("VIOLATION") for e in at.error)


def test_two_downloads_add_up_in_the_session_ledger(open_page):
    from core.release import read_release

    at = open_page("sskm", timeout=300)
    at.button(key="sskm_prepare").click().run()
    first = read_release(at.session_state["sskm_prepared"]["csv"])
    at.select_slider(key="sskm_epsilon").set_value(2.0).run()
    at.button(key="sskm_prepare").click().run()
    header, table = read_release(at.session_state["sskm_prepared"]["csv"])
    assert any(line == "session total so far: epsilon = 3" for line in header)
    assert any("fresh operating-system entropy" in line for line in header)
    assert not first[1].equals(table)
    assert "epsilon = 3 over 2 release(s)" in " ".join(c.value for c in at.sidebar.caption)


def test_reproducible_release_is_labelled_not_private(open_page):
    from core.release import read_release

    at = open_page("sskm", timeout=300)
    at.checkbox(key="sskm_reproducible").check().run()
    at.button(key="sskm_prepare").click().run()
    header, _ = read_release(at.session_state["sskm_prepared"]["csv"])
    assert any(line.startswith("privacy: NOT PRIVATE as released") for line in header)
    assert any(e.value.startswith("NOT PRIVATE") for e in at.error)


def test_bounds_editor_rows_become_public_bounds():
    import pandas as pd

    from dashboard.cached.sskm import parse_bounds

    edited = pd.DataFrame({"column": ["age", "hours"], "lo": [17, None], "hi": [90, None]}, dtype=object)
    assert parse_bounds(edited) == (("age", 17.0, 90.0),)
    with pytest.raises(ValueError, match="lo < hi"):
        parse_bounds(pd.DataFrame({"column": ["age"], "lo": [90], "hi": [17]}, dtype=object))


def test_guarantee_box_says_where_the_bounds_came_from(open_page):
    at = open_page("sskm", timeout=300)
    box = " ".join(m.value for m in at.markdown)
    assert "minima and maxima of the held" in box  # no user bounds: from the held-out part
