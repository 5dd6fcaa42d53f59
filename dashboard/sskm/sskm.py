"""SSKM_DP page (paper 003): SOM clusters, MIC-protected attributes, Laplace centres.

Chart first: the epsilon slider, the release's MSE and record linkage (beside the raw table's
and a random release's, :mod:`core.sskm.references`) and the SOM grid of the release share
the first screen; the attributes, map and mechanism settings fold into one expander below.
Identifier columns (the dataset's and the public schema's) are never offered nor published.
Tabs: its training, the MIC connections, the release (MSE and RL vs epsilon),
"Fig. 5-6: across a and m" (the paper's Fig. 5 and 6: a sweep, started by a button, that fits
a map per SOM grid, m and repetition and releases it at epsilon 0.05, 0.1, 1 and 5 in the
page's mode; MSE and RL vs the number of clusters a with the paper's claims judged beside
them) and "Baselines (Fig. 7)" (MDAV, MDAV_DP and IDP-KMeans vs a, with Fig. 7's claim).
Every claim box says in which mode it was judged: the sound mode is DP, the paper's is not.

"Download bundle" (at the end) holds every number with a script and notebook that recompute it.

This script is the layout: the widgets are in :mod:`dashboard.sskm.settings`, the release's
sections and tabs in :mod:`dashboard.sskm.sections`, the sweep and baselines tabs in
:mod:`dashboard.sskm.studies`.
"""
from __future__ import annotations

import streamlit as st

from dashboard.sskm import sections, settings, studies
from dashboard.shared.widgets.errors import page_errors
from dashboard.shared.widgets.preamble import page_data
from dashboard.shared.serving.schemas import current_schema

st.title("SSKM_DP")

page = page_data("census", needs_sensitive=True)
dataset, seed = page.dataset, page.seed
with page_errors(stop=True):
    schema = current_schema(dataset)
    features = settings.publishable(dataset, schema)
    # chart first: the budget and what it moves (the map, MSE and linkage) on the first screen,
    # every other setting folded below
    control, chart_area = st.columns([1, 2])
    epsilon, metric_area, view, view_extra = settings.budget_and_view(control)
    chosen = settings.settings(dataset, schema, features)
    release = sections.fit(dataset, schema, chosen, chart_area, epsilon, seed)

sections.metrics(metric_area, release)
sections.som_view(chart_area, view_extra, view, release)
sections.privacy_status(release)

tab_train, tab_mic, tab_release, tab_sweep, tab_base = st.tabs(
    ["Training", "Connections", "Release", "Fig. 5-6: across a and m", "Baselines (Fig. 7)"]
)
with tab_train:
    sections.training_tab(release)
with tab_mic:
    sections.connections_tab(release)
with tab_release:
    sections.release_tab(release)
with tab_sweep:
    studies.sweep_tab(release, schema)
with tab_base:
    studies.baselines_tab(release)

sections.audit(release)
sections.bundle(release, schema)
