"""Data page: choose a sample, upload a CSV, or read Adult / NLTCS; set the roles; review
the public schema (:mod:`dashboard.data.schema_panel`). Layout only: the sections live in
:mod:`dashboard.data.sections`.
"""
from __future__ import annotations

import streamlit as st

from dashboard.data import sections
from dashboard.data.schema_panel import schema_panel
from dashboard.shared.state import SOURCES

st.title("Data")
st.caption(
    "Pick the table every page works on, then say which column is the label (what a model "
    "predicts) and which columns are sensitive (what must not leak)."
)
source = sections.choose_source()
loaded = sections.load_table(source)
if loaded is not None:
    dataset = sections.set_roles(loaded)
    sections.preview(dataset)
    schema_panel(dataset)
    sections.column_types(dataset, from_upload=source == SOURCES[1])
    sections.distribution(dataset)
