"""DC-FBFS page (paper 000, Algorithm 1, section 6.2.1-6.2.2): Fig. 1, Fig. 2, Fig. 3, Table 1, Table 2.

Chart first: T_c and the chart it moves, Fig. 2 (DC and importance bars, T_c also as a
share of its range), side by side at the top; then Fig. 3 (the traversals), Fig. 1 (C(x)
of the first k features, added by descending random-forest importance, the selection's own
order), Table 1 (the deleted sets, the paper's counts beside ours) and Table 2 (GS and CS
after each stage, CS also as a share of N, beside the paper's table on its supplier data). Under
each, a claim box (:func:`dashboard.shared.widgets.claims.claim_box`): the paper's words, and
whether they hold on the data at hand by the rule of :mod:`core.cdp.claims`.

This script is the layout; each section's widgets and charts are functions of
:mod:`dashboard.cdp.dc_fbfs_panels`.
"""
from __future__ import annotations

import streamlit as st

from dashboard.cdp import dc_fbfs_panels as panels
from dashboard.cdp.bundle_blocks_features import dc_fbfs_bundle
from dashboard.shared.widgets.errors import page_errors
from dashboard.shared.widgets.preamble import page_data
from dashboard.shared.widgets.present import control_hint

st.title("DC-FBFS")
control_hint("Move T_c: the deletion candidates (DC below the dashed line) and the sets below follow.")

page = page_data("supplier", needs_label="Choose a label column on the Data page: DC-FBFS selects features "
                 "for a classifier.")
dataset, seed = page.dataset, page.seed
with page_errors():
    data, measure, threshold, base, max_rows = panels.selection(dataset, seed)

    # chart first: T_c and the chart it moves (Fig. 2) side by side at the top
    control, chart = st.columns([1, 2])
    res = panels.tc_and_fig2(control, chart, data, measure, threshold, base)
    st.subheader("DC, importance and the traversals (Fig. 2, Fig. 3)")
    guess = panels.fig2_and_fig3(data, res)

    st.subheader("Data correlation vs number of features (Fig. 1)")
    panels.fig1(data, measure, threshold, base)
    st.subheader("Deleted sets (Table 1)")
    panels.table1(res, guess)
    st.subheader("Sensitivity after each stage (Table 2)")
    panels.table2(data, measure, threshold, res)

    dc_fbfs_bundle(dataset, seed, measure=measure, threshold=threshold, max_rows=max_rows, tc=res.tc)
