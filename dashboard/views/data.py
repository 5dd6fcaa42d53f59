"""Data page: choose a sample, upload a CSV, or read Adult / NLTCS; set the roles."""
from __future__ import annotations

import os

import streamlit as st

from core.data import SAMPLES, Dataset, available_public
from core.validation import DataError
from dashboard.cached.data import csv_download, public_dataset, sample_dataset, uploaded_dataset
from dashboard.charts.data import column_distribution, missing_by_column
from dashboard.state import DATASET_KEY, roles_text, set_dataset, show_error

st.title("Data")
st.caption(
    "Pick the table every page works on, then say which column is the label (what a model "
    "predicts) and which columns are sensitive (what must not leak)."
)

SOURCES = ["Built-in sample", "Upload a CSV", "Adult (data directory)", "NLTCS (data directory)"]
source = st.radio("Source", SOURCES, horizontal=True, key="data_source")

loaded: Dataset | None = None
try:
    if source == SOURCES[0]:
        name = st.selectbox(
            "Sample",
            list(SAMPLES),
            format_func=lambda n: f"{n}: {SAMPLES[n]['description']}",
            key="data_sample",
        )
        loaded = sample_dataset(name)
    elif source == SOURCES[1]:
        upload = st.file_uploader(
            "CSV file (comma, semicolon, tab or | separated; first row = column names)",
            type=["csv", "txt", "tsv"],
            key="data_upload",
        )
        max_rows = st.number_input(
            "Read at most this many rows (0 = all)", min_value=0, value=0, step=1000,
            key="data_max_rows",
        )
        if upload is not None:
            loaded = uploaded_dataset(upload.getvalue(), upload.name, int(max_rows) or None)
        else:
            st.info("Choose a file to upload. Nothing leaves this machine.")
    else:
        key = "adult" if source == SOURCES[2] else "nltcs"
        data_dir = st.text_input(
            "Data directory",
            value=os.environ.get("PUX_DATA_DIR", ""),
            key="data_dir",
            help="Folder that holds adult.data + adult.test, or nltcs.csv "
            "(set PUX_DATA_DIR to fill this in).",
        )
        if not available_public(data_dir or None)[key]:
            raise DataError(
                f"No {key} files in '{data_dir or '(no folder set)'}': set PUX_DATA_DIR or type "
                "the folder that holds them (see the README, section Datasets)."
            )
        loaded = public_dataset(key, data_dir or None)
except (DataError, ValueError, TypeError) as exc:
    show_error(exc)
    previous = st.session_state.get(DATASET_KEY)
    if isinstance(previous, Dataset):
        st.info(f"Still using the dataset loaded before: **{previous.name}**.")

if loaded is not None:
    current = st.session_state.get(DATASET_KEY)
    same_data = isinstance(current, Dataset) and current.frame.equals(loaded.frame) if current is not None else False
    base = current if same_data else loaded

    cols = list(loaded.frame.columns)
    c1, c2 = st.columns(2)
    label_options = ["(none)"] + cols
    label = c1.selectbox(
        "Label (predicted)",
        label_options,
        index=label_options.index(base.label) if base.label in cols else 0,
        key=f"data_label_{loaded.name}",
    )
    sensitive = c2.multiselect(
        "Sensitive attributes",
        cols,
        default=[s for s in base.sensitive if s in cols],
        key=f"data_sensitive_{loaded.name}",
    )
    try:
        dataset = loaded.with_roles(label=None if label == "(none)" else label, sensitive=sensitive)
        set_dataset(dataset)
        st.success(
            f"Using **{dataset.name}**: {dataset.frame.shape[1]} columns · {roles_text(dataset)}."
        )
    except (DataError, ValueError) as exc:
        show_error(exc)
        dataset = base
        st.info(f"Roles kept as before: {roles_text(base)}.")

    for note in dataset.notes:
        st.info(note, icon=":material/info:")

    st.subheader("Preview")
    st.dataframe(dataset.frame.head(200), width="stretch", hide_index=True)
    st.subheader("Schema")
    st.dataframe(dataset.schema(), width="stretch", hide_index=True)
    st.download_button(
        "Download the table as read (CSV)",
        data=csv_download(dataset),
        file_name=f"{dataset.name}.csv",
        mime="text/csv",
        help="The table as the methods see it, after the repairs listed above; cells that "
        "a spreadsheet would run as formulas get a leading quote.",
        key="data_download",
    )

    st.subheader("Distribution")
    col = st.selectbox("Column", cols, key=f"data_dist_col_{dataset.name}")
    st.plotly_chart(column_distribution(dataset, col), width="stretch")
    st.caption("Bars count rows per value (coloured by the label): look for rare values and skew.")
    if dataset.frame.isna().any().any():
        st.plotly_chart(missing_by_column(dataset), width="stretch")
        st.caption("Share of empty cells per column; the methods fill them (median / most common value) or drop those rows.")
