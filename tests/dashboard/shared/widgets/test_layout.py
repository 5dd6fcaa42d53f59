"""Chart text that fits and stays text (dashboard.shared.widgets.layout): pure functions on figures."""
from __future__ import annotations

import json

import numpy as np
import pandas as pd
import plotly.express as px
import plotly.graph_objects as go
import pytest
from plotly.subplots import make_subplots

from dashboard.shared.widgets.layout import LABEL_CHARS, escape, for_export, inert, shorten, tidy, wrap

LINK, BOLD = '<a href="https://example.com">x</a>', "<b>bold</b>"


def _bars(categories, *, title="Counts of each value", **layout):
    fig = go.Figure(go.Bar(x=list(categories), y=list(range(1, len(categories) + 1)), name="rows"))
    fig.update_layout(title=title, xaxis_title="value", yaxis_title="rows", **layout)
    return fig


def _live_tags(fig: go.Figure) -> list[str]:
    """Tags other than <br> left in the strings of a figure's JSON (plotly would draw them as
    markup), hover templates (ours) aside."""
    import re

    found = []

    def walk(value, key=""):
        if isinstance(value, str) and not key.endswith("template"):
            found.extend(t for t in re.findall(r"<\s*/?\s*([a-zA-Z]+)", value) if t.lower() != "br")
        elif isinstance(value, dict):
            for k, v in value.items():
                walk(v, k)
        elif isinstance(value, list):
            for v in value:
                walk(v, key)

    walk(json.loads(fig.to_json()))
    return found


# ---------------------------------------------------------------- inert

def test_inert_leaves_no_live_tag_in_category_values():
    frame = pd.DataFrame({"tag": [LINK, BOLD, "plain"], "rows": [3, 2, 1]})
    fig = px.bar(frame, x="tag", y="rows", color="tag", title="Rows per tag")
    assert _live_tags(fig)  # plotly would draw a link and bold text
    out = inert(fig)
    assert not _live_tags(out)
    assert {LINK.replace("<", "&lt;").replace(">", "&gt;"), "&lt;b&gt;bold&lt;/b&gt;"} <= set(list(out.data[0].x) + list(out.data[1].x))


def test_inert_escapes_every_data_field_and_trace_name():
    fig = go.Figure(go.Scatter(x=[BOLD], y=[1], text=[LINK], hovertext=[BOLD], customdata=np.array([[LINK]], dtype=object),
                               ids=[BOLD], name=LINK))
    fig.add_trace(go.Pie(labels=[LINK], values=[1]))
    fig.add_trace(go.Table(header=dict(values=[BOLD]), cells=dict(values=[[LINK]])))
    fig.update_layout(xaxis=dict(categoryarray=[BOLD], ticktext=[LINK], tickvals=[BOLD]))
    assert not _live_tags(inert(fig))


def test_inert_keeps_our_titles_templates_and_line_breaks():
    fig = go.Figure(go.Bar(x=["a &amp; b", "c"], y=[1, 2], hovertext=["line one<br>line two", "x"],
                           hovertemplate="%{x}<br>%{y}<extra></extra>"))
    fig.update_layout(title="Title<br><sup>sub</sup>")
    out = inert(fig)
    assert out.layout.title.text == "Title<br><sup>sub</sup>"
    assert out.data[0].hovertemplate == "%{x}<br>%{y}<extra></extra>"
    assert list(out.data[0].hovertext) == ["line one<br>line two", "x"]
    assert list(out.data[0].x) == ["a &amp; b", "c"]  # already escaped: not escaped twice


def test_inert_moves_annotations_with_their_category():
    fig = _bars([BOLD, "b"])
    fig.add_annotation(x=BOLD, y=1, text="here")
    out = inert(fig)
    assert out.layout.annotations[0].x == out.data[0].x[0] == "&lt;b&gt;bold&lt;/b&gt;"


def test_inert_leaves_the_page_figure_and_numbers_alone():
    fig = go.Figure(go.Bar(x=np.array([1.5, 2.5]), y=[BOLD, "b"]))
    out = inert(fig)
    assert fig.data[0].y == (BOLD, "b")
    assert list(out.data[0].x) == [1.5, 2.5]


def test_escape_is_idempotent_and_refuses_what_is_not_a_figure():
    assert escape("a & <b>") == "a &amp; &lt;b&gt;" == escape(escape("a & <b>"))
    with pytest.raises(TypeError, match="plotly Figure"):
        inert({"data": []})
    with pytest.raises(TypeError, match="plotly Figure"):
        tidy("figure")


# ---------------------------------------------------------------- tidy

def test_wrap_breaks_long_lines_between_words_and_keeps_breaks():
    text = wrap("Association of each attribute with the sensitive attribute (NMI, Fig. 6) · census", 30)
    lines = text.split("<br>")
    assert len(lines) > 1 and all(len(line) <= 30 for line in lines)
    assert " ".join(lines) == "Association of each attribute with the sensitive attribute (NMI, Fig. 6) · census"
    assert wrap("a<br>b", 30) == "a<br>b"
    assert wrap("&lt;b&gt; " * 8, 10).count("<br>") >= 1 and "&l<br>" not in wrap("&lt;b&gt; " * 8, 10)


def test_shorten_cuts_long_labels_without_cutting_an_entity():
    assert shorten("short") == "short"
    long = "a very long category label that goes on and on"
    assert shorten(long) == long[: LABEL_CHARS - 1].rstrip() + "…" and len(shorten(long)) <= LABEL_CHARS
    assert shorten("&lt;" * 40, 5) == "&lt;" * 4 + "…"


def test_tidy_wraps_the_title_and_lets_it_push_the_top_margin():
    fig = _bars(["a", "b"], title="A fairly long title that would not fit in half a page at 1280 pixels wide at all")
    out = tidy(fig)
    assert "<br>" in out.layout.title.text
    assert out.layout.title.automargin is True and out.layout.title.yref == "paper"
    assert out.layout.title.yanchor == "bottom"
    assert all(a.automargin for a in (out.layout.xaxis, out.layout.yaxis))


def test_tidy_makes_room_for_subplot_titles_and_a_subtitle_under_the_title():
    fig = make_subplots(rows=1, cols=2, subplot_titles=["Default rule: gain over the constant guess",
                                                        "The paper's rule: NMI with the sensitive attribute"])
    fig.add_trace(go.Bar(x=["a"], y=[1]), 1, 1)
    fig.add_trace(go.Bar(x=["a"], y=[1]), 1, 2)
    fig.update_layout(title=dict(text="Which attributes give s away", subtitle=dict(text="two rules")))
    out = tidy(fig)
    assert out.layout.title.pad.b > 30  # the subplot titles and the subtitle sit in the title's padding
    assert all("<br>" in a.text for a in out.layout.annotations)  # side by side: each wraps to its half


def test_tidy_puts_the_legend_beside_the_plot():
    fig = _bars(["a", "b"], legend=dict(orientation="h", y=-0.25))
    fig.add_trace(go.Scatter(x=["a", "b"], y=[1, 1], name="majority class (constant guess) on the census sample"))
    out = tidy(fig)
    assert (out.layout.legend.orientation, out.layout.legend.x, out.layout.legend.xanchor) == ("v", 1.02, "left")
    assert out.layout.legend.yanchor == "top" and out.layout.legend.y == 1.0
    assert "<br>" in out.data[1].name


def test_tidy_shortens_long_category_labels_and_keeps_the_value_for_the_hover():
    long = "a very long category label that goes on and on"
    out = tidy(_bars([long, "b"]))
    assert out.layout.xaxis.ticktext == (shorten(long), "b") and out.layout.xaxis.tickvals == (long, "b")
    assert out.data[0].x == (long, "b")  # the hover shows the whole value
    assert tidy(_bars(["a", "b"])).layout.xaxis.ticktext is None


def test_tidy_lifts_a_note_hung_under_the_plot():
    fig = _bars(["a", "b"])
    fig.add_annotation(x="b", y=0, xref="x", yref="paper", yanchor="top", text="most this audit can show")
    assert tidy(fig).layout.annotations[0].yanchor == "bottom"


def test_tidy_leaves_the_page_figure_alone_and_checks_width():
    fig = _bars(["a", "b"], title="A fairly long title that would not fit in half a page at 1280 pixels wide at all")
    before = json.loads(fig.to_json())
    tidy(fig)
    assert json.loads(fig.to_json()) == before
    with pytest.raises(ValueError, match="positive"):
        tidy(fig, width=0)


def test_for_export_is_inert_then_tidy():
    fig = _bars([LINK, "a very long category label that goes on and on"])
    out = for_export(fig)
    assert not _live_tags(out) and out.layout.xaxis.automargin is True


# ---------------------------------------------------------------- plain dicts

def test_a_figure_as_dicts_and_back_draws_the_same():
    from dashboard.shared.widgets.layout import figure_dict, from_dict

    fig = _bars(["a", BOLD], title="Counts")
    fig.add_trace(go.Scatter(x=np.array([0.0, 1.0]), y=np.array([1.0, 2.0]), name="line"))
    assert json.loads(from_dict(figure_dict(fig)).to_json()) == json.loads(fig.to_json())


def test_titles_set_as_strings_become_text_dicts():
    from dashboard.shared.widgets.layout import figure_dict

    fig = go.Figure(go.Bar(x=["a"], y=[1]), layout=dict(title="t", xaxis=dict(title="x")))
    out = figure_dict(fig)
    assert out["layout"]["title"]["text"] == "t" and out["layout"]["xaxis"]["title"] == {"text": "x"}


def test_inert_and_tidy_give_what_plotly_validates_unchanged():
    """They build their copy without validation: what they write must be what plotly would
    store, so validating it changes nothing."""
    fig = _bars([LINK, "a very long category label that goes on and on"],
                title="A fairly long title that would not fit in half a page at 1280 pixels wide at all",
                legend=dict(orientation="h"))
    fig.add_trace(go.Scatter(x=["a"], y=[1], name="majority class (constant guess) on the census sample"))
    for out in (inert(fig), tidy(fig), for_export(fig)):
        assert json.loads(go.Figure(out).to_json()) == json.loads(out.to_json())
