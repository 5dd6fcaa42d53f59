"""The "Present" switch: on any page, hide the controls and the sidebar, enlarge text and charts.

A presenter turns it on in the sidebar (or opens a link with ``?present=true``); an "Exit
presentation" button stays at the top of the page. Each page's main control stays live and
visible, enlarged (:data:`LIVE_KEYS`: the epsilon sliders, T_c, theta/beta and lambda, the
Tour's Next and Back), so the presenter can still move what the main chart shows; every other
control is hidden. Charts are enlarged where they are drawn
(:func:`dashboard.shared.widgets.chart_data.show_chart` applies
:func:`dashboard.shared.widgets.present_chart.for_projector`), tables by the style sheet. A caption that
points at a control is drawn with :func:`control_hint`, which says nothing while presenting.
"""
from __future__ import annotations

import re

import streamlit as st

__all__ = ["PRESENT_KEY", "LIVE_KEYS", "is_presenting", "is_live", "control_hint", "present_toggle", "exit_button",
           "apply_style", "BASE_STYLE", "STYLE", "LARGE_TEXT"]

PRESENT_KEY = "present"
#: the query parameter that opens a page presenting
PRESENT_PARAM = "present"

#: widgets hidden while presenting (their element containers), except the ones kept;
#: links to pages stay (the Tour's "Open the full page")
_CONTROLS = ", ".join(f'[data-testid="{t}"]' for t in (
    "stSlider", "stSelectbox", "stRadio", "stMultiSelect", "stNumberInput", "stCheckbox", "stTextInput",
    "stButton", "stDownloadButton", "stFileUploader", "stDataEditor", "stSegmentedControl",
    "stButtonGroup", "stColorPicker", "stDateInput", "stTextArea",
))

#: widget keys that stay live and visible while presenting: each page's main control, the
#: Tour's buttons and the way out. A key ending in "_" names every key that starts with it
#: (DC-FBFS keys T_c by dataset and settings). The IMPOSTER and DC-FBFS names of the shared
#: notes ("imp_theta", ..., "tc") are listed too, so either spelling stays live.
LIVE_KEYS = (
    "lr_eps",                                              # CDP-LR: epsilon
    "pub_epsilon",                                         # Publishing: epsilon
    "sskm_epsilon",                                        # SSKM_DP: epsilon
    "fb_tc_", "tc",                                        # DC-FBFS: T_c
    "imposter_theta", "imposter_beta", "imposter_lambda",  # IMPOSTER: theta/beta, lambda
    "imp_theta", "imp_beta", "imp_lambda",
    "tour_",                                               # the Tour's Back, step and Next
    "cmp_run_stop", "cmp_run_again",                       # Compare: Stop, and Run it again
    "imposter_stop",                                       # IMPOSTER: Stop the training
    "present_exit",                                        # the way out
)


def _css_class(key: str) -> str:
    """The class Streamlit gives a keyed element's container (characters other than
    letters, digits, '_' and '-' become '-')."""
    return "st-key-" + re.sub(r"[^a-zA-Z0-9_-]", "-", key.strip())


def _selector(key: str) -> str:
    cls = _css_class(key)
    return f'[class*="{cls}"]' if key.endswith("_") else f".{cls}"


def is_live(key: str) -> bool:
    """Whether the widget keyed ``key`` stays live and visible while presenting."""
    return any(key.startswith(k) if k.endswith("_") else key == k for k in LIVE_KEYS)


_KEEP = "".join(f":not({_selector(k)})" for k in LIVE_KEYS)
#: the live controls' containers, one selector
_LIVE = f":is({', '.join(_selector(k) for k in LIVE_KEYS)})"
#: what a box may show besides controls (widget labels are markdown too, so only the
#: elements that hold markdown on their own count)
_CONTENT = ", ".join(f'[data-testid="{t}"]' for t in (
    "stMarkdown", "stCaptionContainer", "stHeading", "stPlotlyChart", "stVegaLiteChart", "stArrowVegaLiteChart",
    "stDataFrame", "stTable", "stMetric", "stAlert", "stImage", "stJson", "stCode", "stProgress", "stPageLink",
    "stException", "stGraphVizChart", "stPydeckChart", "stDeckGlJsonChart", "stMap", "stText", "stHtml",
    "stIFrame", "stVideo", "stAudio", "stSpinner", "stToast",
))
#: a box (expander, form, bordered container, row of columns) that holds nothing but hidden
#: controls is hidden too, not left as an empty frame (one level of :has: it cannot nest)
_EMPTY_BOX = (':is([data-testid="stExpander"], [data-testid="stForm"], [data-testid="stVerticalBlock"], '
              f'[data-testid="stLayoutWrapper"]):has({_CONTROLS}):not(:has({_LIVE})):not(:has({_CONTENT}))')
#: the live controls, enlarged for a projector
_LIVE_STYLE = "\n".join(
    f".stMainBlockContainer {_LIVE} :is({inner}) {{ {rule} }}"
    for inner, rule in (
        ('[data-testid="stWidgetLabel"] p', "font-size: 1.45rem !important; line-height: 1.4;"),
        ('[data-testid="stWidgetLabel"]', "margin-bottom: 1.1rem;"),  # room for the value above the thumb
        ('[data-testid="stSliderThumbValue"], [data-testid="stSliderTickBarMin"], '
         '[data-testid="stSliderTickBarMax"]', "font-size: 1.3rem !important;"),
        ('[role="slider"]', "width: 1.5rem !important; height: 1.5rem !important;"),
        ('button p, [data-baseweb="select"] div', "font-size: 1.3rem !important;"),
    )
)

#: larger type for a projector (the Tour's "Large text" alone, and part of presenting)
LARGE_TEXT = """
.stMainBlockContainer { max-width: 100%; }
.stMainBlockContainer p, .stMainBlockContainer li { font-size: 1.45rem; line-height: 1.5; }
.stMainBlockContainer h1 { font-size: 3rem; }
.stMainBlockContainer h2 { font-size: 2.3rem; }
.stMainBlockContainer h3 { font-size: 1.9rem; }
.stMainBlockContainer [data-testid="stCaptionContainer"] p { font-size: 1.2rem; }
.stMainBlockContainer [data-testid="stMetricValue"],
.stMainBlockContainer [data-testid="stMetricValue"] p,
.stMainBlockContainer [data-testid="stMetricValue"] div { font-size: 2.6rem; line-height: 1.2; }
.stMainBlockContainer [data-testid="stTable"] table,
.stMainBlockContainer [data-testid="stTable"] th, .stMainBlockContainer [data-testid="stTable"] td {
  font-size: 1.3rem; line-height: 1.5; }
.stMainBlockContainer .stElementContainer:has([data-testid="stDataFrame"]) { zoom: 1.3; width: calc(100% / 1.3) !important; }
"""

#: presenting: no sidebar, no header bar, no controls, large type
STYLE = f"""
section[data-testid="stSidebar"], [data-testid="stSidebarCollapsedControl"],
[data-testid="stExpandSidebarButton"], header[data-testid="stHeader"] {{ display: none !important; }}
.stMainBlockContainer .stElementContainer{_KEEP}:has({_CONTROLS}) {{ display: none !important; }}
.stMainBlockContainer {_EMPTY_BOX} {{ display: none !important; }}
.stMainBlockContainer {{ padding-top: 1.5rem; }}
{LARGE_TEXT}
{_LIVE_STYLE}
"""


def is_presenting() -> bool:
    """Whether this session presents (the sidebar switch is on)."""
    return bool(st.session_state.get(PRESENT_KEY, False))


def control_hint(text: str, *, where=None, **kwargs) -> None:
    """``st.caption(text)`` (or ``where.caption``), except while presenting: for captions
    that point at a control, which presenting hides ("Press Train ...", "Lower theta ...")."""
    if not is_presenting():
        (where if where is not None else st).caption(text, **kwargs)


def _from_link() -> None:
    """A first run whose link says ``?present=true`` starts presenting."""
    if PRESENT_KEY not in st.session_state and st.query_params.get(PRESENT_PARAM) == "true":
        st.session_state[PRESENT_KEY] = True


def present_toggle() -> None:
    """The switch, in the sidebar of every page."""
    _from_link()
    st.toggle("Present", key=PRESENT_KEY,
              help="For a projector: hides this sidebar and the controls but each page's main one "
                   "(epsilon, T_c, theta/beta, lambda) and enlarges text, charts and tables. "
                   "'Exit presentation' at the top of the page turns it off.")


def _stop_presenting() -> None:
    st.session_state[PRESENT_KEY] = False


def exit_button() -> None:
    """While presenting: the button that ends it, at the top of the page."""
    if is_presenting():
        st.button("Exit presentation", key="present_exit", on_click=_stop_presenting,
                  icon=":material/fullscreen_exit:", type="tertiary")


#: every page, not presenting: the title just under the header bar (Streamlit's 6rem left 96 px
#: empty above it; at 1280x720 the first chart of a page must start in its top 400 px)
BASE_STYLE = ".stMainBlockContainer { padding-top: 4rem; }"


def apply_style(*, large_text: bool = False) -> None:
    """The style sheet for this run: presenting, or large text alone, or the base one."""
    css = STYLE if is_presenting() else BASE_STYLE + (LARGE_TEXT if large_text else "")
    st.html(f"<style>{css}</style>")
