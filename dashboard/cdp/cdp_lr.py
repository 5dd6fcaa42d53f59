"""CDP-LR page (paper 000, Algorithm 2): epsilon slider that retrains live, noise methods, schemes.

This script is the layout; each section's widgets and charts are functions of
:mod:`dashboard.cdp.lr_panels`.
"""
from __future__ import annotations

import streamlit as st

from dashboard.cdp import bundle_blocks, lr_panels
from dashboard.shared.safe import md
from dashboard.shared.widgets.errors import page_errors
from dashboard.shared.widgets.preamble import page_data
from dashboard.shared.widgets.present import control_hint

st.title("CDP-LR")
control_hint("Move epsilon: the four schemes of the paper and their DP reading retrain at once, each read "
             "against always guessing the majority class and the non-private model.")

page = page_data("supplier", needs_label="Choose a label column on the Data page: CDP-LR trains a classifier.")
dataset, seed = page.dataset, page.seed
if (problem := lr_panels.two_class_problem(dataset)) is not None:
    st.warning(md(problem), icon=":material/label:")
    st.stop()
with page_errors():
    # chart first: the slider and what it moves side by side at the top, the rest folded below
    control, chart = st.columns([1, 2])
    choice = lr_panels.controls(control)
    live = lr_panels.train(dataset, seed, choice)
    lr_panels.live_view(control, chart, choice, live)
    lr_panels.schemes_and_guarantees(choice, live)

    st.subheader("Privacy-accuracy trade-off (Fig. 4)")
    lr_panels.tradeoff(choice, live, seed)
    lr_panels.noise_methods(choice, live, seed)
    lr_panels.audit(choice, live, seed)
    bundle_blocks.cdp_lr_bundle(dataset, seed, choice, live.schema)
