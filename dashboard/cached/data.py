"""Cached dataset loading for the Data page and the defaults of the other pages."""
from __future__ import annotations

import streamlit as st

from core.data import Dataset, load_adult, load_csv, load_nltcs, load_sample
from core.export import to_csv_bytes
from dashboard.cached import HASH_FUNCS

_TTL = 3600


@st.cache_data(max_entries=4, ttl=_TTL, show_spinner="Loading the sample...")
def sample_dataset(name: str) -> Dataset:
    """A built-in synthetic sample."""
    return load_sample(name)


@st.cache_data(max_entries=4, ttl=_TTL, show_spinner="Reading the file...")
def uploaded_dataset(content: bytes, filename: str, max_rows: int | None = None) -> Dataset:
    """A dataset parsed from uploaded bytes (validated; raises DataError)."""
    name = filename.rsplit(".", 1)[0] or "upload"
    return load_csv(content, max_rows=max_rows, name=name)


@st.cache_data(max_entries=4, ttl=_TTL, show_spinner="Reading the public dataset...")
def public_dataset(name: str, data_dir: str | None) -> Dataset:
    """Adult or NLTCS from the data directory (raises DataError if missing)."""
    loader = {"adult": load_adult, "nltcs": load_nltcs}[name]
    return loader(data_dir or None)


@st.cache_data(max_entries=4, ttl=_TTL, show_spinner=False, hash_funcs=HASH_FUNCS)
def csv_download(dataset: Dataset) -> bytes:
    """The dataset as formula-guarded CSV bytes."""
    return to_csv_bytes(dataset.frame)
