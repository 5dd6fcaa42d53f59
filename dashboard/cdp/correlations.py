"""Correlations page (paper 000, Section 3): attribute association, record correlation, CS vs GS.

This script is the layout; each section's widgets and charts are functions of
:mod:`dashboard.cdp.correlations_panels`.
"""
from __future__ import annotations

import streamlit as st

from dashboard.cdp import correlations_panels as panels
from dashboard.cdp.bundle_blocks_features import correlations_bundle
from dashboard.shared.widgets.preamble import page_data

st.title("Correlations")
st.caption(
    "Correlated records leak each other: deleting one record changes what a query says about "
    "the records correlated with it. This page measures how correlated the records are and "
    "what that does to the sensitivity (the scale of the noise) of a count query."
)

page = page_data("supplier")
dataset, seed = page.dataset, page.seed

st.subheader("Attributes")
association, mic_rows = panels.attributes(dataset, seed)

st.subheader("Records")
measure, threshold, n_sample = panels.records(dataset, seed)

correlations_bundle(dataset, seed, association=association, mic_rows=mic_rows, measure=measure,
                    threshold=threshold, heatmap_records=n_sample)
