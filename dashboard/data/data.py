"""Data page: choose a sample, upload a CSV, or read Adult / NLTCS; set the roles beside the
distribution of a column (chart first); review the public schema
(:mod:`dashboard.data.schema_panel`). Layout only: the sections live in
:mod:`dashboard.data.sections`.
"""
from __future__ import annotations

import streamlit as st

from dashboard.data import sections
from dashboard.data.schema_panel import schema_panel
from dashboard.shared.serving.state import SOURCES

st.title("Data")
st.caption(
    "Pick the table every page works on, then say which column is the label (what a model "
    "predicts) and which columns are sensitive (what must not leak)."
)
# chart first: the table and its roles beside the distribution of one of its columns; the
# preview, the public schema and the column types below
table, chart = st.columns([1, 2])
with table:
    source = sections.choose_source()
    loaded = sections.load_table(source)
    dataset = sections.set_roles(loaded) if loaded is not None else None
if dataset is not None:
    with chart:
        sections.distribution(dataset)
    sections.preview(dataset)
    schema_panel(dataset)
    sections.column_types(dataset, from_upload=source == SOURCES[1])
