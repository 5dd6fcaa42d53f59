"""The Present switch: enlarged charts (pure), hidden controls, a way back."""
from __future__ import annotations

import json

import plotly.graph_objects as go
import pytest

from dashboard.shared.widgets.present_chart import FONT, MIN_HEIGHT, TITLE_FONT, for_projector
from dashboard.shared.widgets import present
from tests.dashboard.conftest import assert_clean


def _fig(height=300):
    fig = go.Figure(go.Scatter(x=[1, 2], y=[3, 4]))
    fig.update_layout(title="t", height=height, xaxis_title="x", yaxis_title="y")
    return fig


def test_for_projector_enlarges_type_and_height():
    big = for_projector(_fig(400))
    assert big.layout.font.size == FONT and big.layout.title.font.size == TITLE_FONT
    assert big.layout.xaxis.title.font.size == FONT
    assert big.layout.height == max(MIN_HEIGHT, int(1.35 * 400))


def test_for_projector_leaves_the_page_figure_alone():
    fig = _fig()
    for_projector(fig)
    assert fig.layout.font.size is None and fig.layout.height == 300


def test_for_projector_gives_a_chart_without_height_the_minimum():
    fig = go.Figure(go.Bar(x=["a"], y=[1]))
    assert for_projector(fig).layout.height == MIN_HEIGHT


def test_for_projector_lays_the_larger_text_out_again():
    fig = _fig()
    fig.update_layout(title="A title long enough to need two lines on a projector at 26 pixels",
                      legend=dict(orientation="h", y=-0.25))
    big = for_projector(fig)
    assert "<br>" in big.layout.title.text and big.layout.title.automargin is True
    assert big.layout.xaxis.automargin is True


def test_each_pages_main_control_is_live_while_presenting():
    for key in ("lr_eps", "pub_epsilon", "sskm_epsilon", "imposter_theta", "imposter_beta", "imposter_lambda",
                "fb_tc_0123abcd_pearson_0.8", "tour_next", "tour_step", "present_exit"):
        assert present.is_live(key), key
    for key in ("lr_reps", "imposter_thetas", "imposter_epochs", "fb_threshold", "sskm_cs", "data_source"):
        assert not present.is_live(key), key


def test_the_style_keeps_live_controls_and_hides_the_rest():
    hide = next(line for line in present.STYLE.splitlines() if ":has(" in line)
    assert ".st-key-lr_eps" in hide and '[class*="st-key-fb_tc_"]' in hide and ".st-key-present_exit" in hide
    assert ".st-key-imposter_thetas" not in hide  # only the named key, not every key starting with it
    assert "stSlider" in hide and "display: none" in hide
    assert '[data-testid="stDataFrame"]' in present.STYLE and '[data-testid="stTable"]' in present.STYLE
    assert '[role="slider"]' in present.STYLE  # the live slider is enlarged
    empty = next(line for line in present.STYLE.splitlines() if '[data-testid="stExpander"]' in line)
    assert "display: none" in empty and ":not(:has(" in empty
    assert ":has(.stElementContainer:not(:has(" not in empty  # :has cannot nest: the rule would be dropped


def test_control_hint_is_silent_while_presenting(monkeypatch):
    said = []

    class Where:
        @staticmethod
        def caption(text, **kwargs):
            said.append(text)

    monkeypatch.setattr(present, "is_presenting", lambda: False)
    present.control_hint("Press Train.", where=Where)
    monkeypatch.setattr(present, "is_presenting", lambda: True)
    present.control_hint("Lower theta.", where=Where)
    assert said == ["Press Train."]


def test_for_projector_refuses_what_is_not_a_plotly_figure():
    with pytest.raises(TypeError, match="plotly Figure"):
        for_projector({"data": []})


def test_present_switch_hides_controls_and_offers_the_way_back(open_page):
    at = open_page("data")
    assert not [b for b in at.button if b.key == "present_exit"]
    at.toggle(key="present").set_value(True).run()
    assert_clean(at)
    styles = [h.proto.body for h in at.get("html")]
    assert any("stSidebar" in s and "display: none" in s for s in styles)
    exit_button = next(b for b in at.button if b.key == "present_exit")
    exit_button.click().run()
    assert at.session_state["present"] is False
    assert not [b for b in at.button if b.key == "present_exit"]


def test_presenting_enlarges_the_charts_a_page_draws(open_page):
    at = open_page("data")
    at.toggle(key="present").set_value(True).run()
    assert_clean(at)
    specs = [json.loads(c.proto.spec) for c in at.get("plotly_chart")]
    assert specs and all(s["layout"]["font"]["size"] == FONT for s in specs)



def test_a_link_with_present_true_opens_presenting():
    from streamlit.testing.v1 import AppTest

    from tests.dashboard.conftest import APP

    at = AppTest.from_file(str(APP), default_timeout=120)
    at.query_params["present"] = "true"
    at.run()
    assert_clean(at)
    assert at.session_state["present"] is True
