"""Publishing page (paper 000, Section 6.3): count-query MAE vs epsilon (Fig. 6), with and
without the product columns (Fig. 7), Pearson vs Mahalanobis (Fig. 8), each with its claim box.

This script is the layout; each section's widgets and charts are functions of
:mod:`dashboard.cdp.publishing_panels`.
"""
from __future__ import annotations

import streamlit as st

from dashboard.cdp import bundle_blocks
from dashboard.cdp import publishing_panels as panels
from dashboard.shared.widgets.errors import page_errors
from dashboard.shared.widgets.preamble import page_data
from dashboard.shared.widgets.present import control_hint

st.title("Publishing")
control_hint("Move epsilon: the dotted line on the chart and the reading beside it follow. Each MAE is read "
             "against the queries' mean true count and a release without noise.")

page = page_data("supplier", needs_label="Choose a label column on the Data page: Publishing selects the "
                 "attributes of its count queries with the label (Zhang's and the proposed scheme), so it needs one.")
dataset, seed = page.dataset, page.seed
with page_errors():
    # chart first: epsilon and the MAE chart side by side at the top, the settings folded below
    control, chart = st.columns([1, 2])
    choice = panels.controls(control, dataset)
    curves = panels.mae_curves(chart, dataset, seed, choice)
    setup, true_mean = panels.reading(control, choice, curves, seed)
    panels.about(choice, curves)
    st.subheader("Count-query error vs epsilon (Fig. 6; Fig. 8 with both measures)")
    panels.fig6_and_fig8(choice, curves, true_mean)
    solved = panels.solve(choice, curves, seed)
    panels.draw_mae_chart(choice, curves, solved)  # in its place at the top, the solved epsilons marked

    st.subheader("With and without the product columns (Fig. 7)")
    panels.fig7(dataset, seed, choice, curves)
    panels.sensitivities(curves)

    st.subheader("Privacy of one release")
    panels.release_privacy(choice, curves, setup, seed)
    bundle_blocks.publishing_bundle(dataset, seed, choice, curves.schema)
