"""The "Present" switch: on any page, hide the controls and the sidebar, enlarge text and charts.

A presenter turns it on in the sidebar (or opens a link with ``?present=true``); an "Exit
presentation" button stays at the top of the page. Widgets whose key starts with
``tour_`` (the Tour's Next and Back) stay visible. Charts are enlarged where they are drawn
(:func:`dashboard.components.chart_data.show_chart` applies
:func:`dashboard.charts.present.for_projector`); the rest is one style sheet of our own.
"""
from __future__ import annotations

import streamlit as st

__all__ = ["PRESENT_KEY", "is_presenting", "present_toggle", "exit_button", "apply_style", "STYLE", "LARGE_TEXT"]

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
_KEEP = ':not([class*="st-key-tour_"]):not(.st-key-present_exit)'

#: larger type for a projector (the Tour's "Large text" alone, and part of presenting)
LARGE_TEXT = """
.stMainBlockContainer { max-width: 100%; }
.stMainBlockContainer p, .stMainBlockContainer li { font-size: 1.45rem; line-height: 1.5; }
.stMainBlockContainer h1 { font-size: 3rem; }
.stMainBlockContainer h2 { font-size: 2.3rem; }
.stMainBlockContainer h3 { font-size: 1.9rem; }
.stMainBlockContainer [data-testid="stCaptionContainer"] p { font-size: 1.2rem; }
.stMainBlockContainer [data-testid="stMetricValue"] { font-size: 2.6rem; }
"""

#: presenting: no sidebar, no header bar, no controls, large type
STYLE = f"""
section[data-testid="stSidebar"], [data-testid="stSidebarCollapsedControl"],
[data-testid="stExpandSidebarButton"], header[data-testid="stHeader"] {{ display: none !important; }}
.stMainBlockContainer .stElementContainer{_KEEP}:has({_CONTROLS}) {{ display: none !important; }}
.stMainBlockContainer {{ padding-top: 1.5rem; }}
{LARGE_TEXT}
"""


def is_presenting() -> bool:
    """Whether this session presents (the sidebar switch is on)."""
    return bool(st.session_state.get(PRESENT_KEY, False))


def _from_link() -> None:
    """A first run whose link says ``?present=true`` starts presenting."""
    if PRESENT_KEY not in st.session_state and st.query_params.get(PRESENT_PARAM) == "true":
        st.session_state[PRESENT_KEY] = True


def present_toggle() -> None:
    """The switch, in the sidebar of every page."""
    _from_link()
    st.toggle("Present", key=PRESENT_KEY,
              help="For a projector: hides the controls and this sidebar and enlarges text and charts. "
                   "'Exit presentation' at the top of the page turns it off.")


def _stop_presenting() -> None:
    st.session_state[PRESENT_KEY] = False


def exit_button() -> None:
    """While presenting: the button that ends it, at the top of the page."""
    if is_presenting():
        st.button("Exit presentation", key="present_exit", on_click=_stop_presenting,
                  icon=":material/fullscreen_exit:", type="tertiary")


def apply_style(*, large_text: bool = False) -> None:
    """The style sheet for this run: presenting, or large text alone, or nothing."""
    css = STYLE if is_presenting() else (LARGE_TEXT if large_text else "")
    if css:
        st.html(f"<style>{css}</style>")
