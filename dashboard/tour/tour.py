"""Tour page: a guided story per paper and one for the comparison, stepped with Next and Back.

Every step runs on the built-in samples (no data directory, no network); a story is
computed once per server on its first visit (a few seconds, with a progress bar) and
shown at once after. "Large text" or the sidebar's "Present" switch make it readable on a
projector; each step links to the full page behind it, and the whole Tour exports as one
offline HTML page or as a bundle whose script and notebook rerun its numbers.
"""
from __future__ import annotations

import streamlit as st

from dashboard.tour import cached
from dashboard.tour.bundle_block import bundle_block
from dashboard.shared.widgets.chart_data import show_chart
from dashboard.shared.widgets.claims import claim_box
from dashboard.shared.widgets.present import apply_style, is_presenting
from dashboard.shared.safe import md
from dashboard.tour.steps import STEPS

STEP_KEY = "tour_step"
N = len(STEPS)

if not isinstance(st.session_state.get(STEP_KEY), int) or not 0 <= st.session_state[STEP_KEY] < N:
    st.session_state[STEP_KEY] = 0  # a link's step out of range starts at the beginning


def _move(by: int) -> None:
    st.session_state[STEP_KEY] = min(max(st.session_state[STEP_KEY] + by, 0), N - 1)


st.title("Tour")
# chart first: the navigation in one row, the step's title, then its chart (at most 400 px down at
# 1280x720) and the words under it; the introduction moves to the foot of the page
back, pick, ahead, size = st.columns([2, 6, 2, 3], vertical_alignment="center")
back.button("Back", key="tour_back", on_click=_move, args=(-1,), disabled=st.session_state[STEP_KEY] == 0,
            icon=":material/arrow_back:", width="stretch")
pick.selectbox("Step", range(N), key=STEP_KEY, label_visibility="collapsed",
               format_func=lambda i: f"Step {i + 1} of {N} · {STEPS[i].chapter}: {STEPS[i].title}")
ahead.button("Next", key="tour_next", on_click=_move, args=(1,), disabled=st.session_state[STEP_KEY] == N - 1,
             icon=":material/arrow_forward:", type="primary", width="stretch")
if not is_presenting():  # presenting has large text already
    large = size.toggle("Large text", key="tour_large", help="Larger type for a projector; the sidebar's "
                        "'Present' switch also hides the controls and the sidebar.")
    apply_style(large_text=large)

cached.prefetch()  # the later stories compute while the first steps are read
step = STEPS[st.session_state[STEP_KEY]]
st.header(step.title)

if step.story is not None and not cached.story_ready(step.story):
    bar = st.progress(0.0, text="Computing this story on the built-in sample...")
    view = cached.step_view(step, lambda f, m: bar.progress(min(max(float(f), 0.0), 1.0), text=str(m)))
    bar.empty()
else:
    view = cached.step_view(step)

if view.figure is not None:
    show_chart(view.figure, view.data, name=view.name, key=f"chart_{view.name}", width="stretch")
st.markdown(step.text)
for fact in view.facts:
    st.markdown(f"- {md(fact)}")
if view.claim is not None:
    claim_box(view.claim)
for what, audit in view.audits:
    (st.error if audit.violation else st.success)(f"**Audit, {md(what)}:** {md(audit.verdict)}",
                                                  icon=":material/shield:")
st.page_link(step.page, label=f"Open the full page: {step.page_title}", icon=":material/open_in_new:")

if not is_presenting():
    st.divider()
    st.caption("A short guided story per paper and one for the comparison, on the built-in samples. "
               "Each step's first visit computes it (a few seconds); after that it shows at once.")
    st.caption("Hand the Tour over: every step, chart and verdict in one HTML page that opens offline.")
    if st.button("Export the tour (HTML)", key="tour_export", icon=":material/description:"):
        bar = st.progress(0.0, text="Computing every story...")
        html = cached.export_html(lambda f, m: bar.progress(min(max(float(f), 0.0), 1.0), text=str(m)))
        bar.empty()
        st.download_button("Download the tour (HTML)", html, file_name="privacy-utility-tour.html",
                           mime="text/html", key="tour_download", on_click="ignore",
                           icon=":material/download:")
    bundle_block()
