"""Dataset loading for the Data page and the defaults of the other pages.

- Samples: ``st.cache_data`` (small, synthetic).
- Public data (Adult, NLTCS): ``st.cache_resource``: read and validated once per server,
  shared read-only (a :class:`Dataset` is immutable), no copy per rerun. The data
  directory comes from the operator (``PUX_DATA_DIR`` / ``pux dashboard --data-dir``),
  never from a viewer.
- Uploads: not cached across sessions. :func:`parse_upload` is plain; the Data page keeps
  the one parsed upload of a session in ``st.session_state`` (so it is parsed once, and
  freed when the session ends or another file replaces it).
"""
from __future__ import annotations

import io
import time
from typing import TYPE_CHECKING

import streamlit as st

from core.data import (
    Dataset, available_public, export_frame, load_adult, load_csv, load_nltcs, load_sample,
    resolve_data_dir,
)
from core.data.export import guard_formulas
from dashboard.shared.serving.cache import HASH_FUNCS, TTL
from dashboard.shared.serving.memory import trim_memory, watch_dataset

if TYPE_CHECKING:
    from core.privacy.schema import PublicSchema


@st.cache_data(max_entries=4, ttl=TTL, show_spinner="Loading the sample...")
def sample_dataset(name: str) -> Dataset:
    """A built-in synthetic sample."""
    return load_sample(name)


#: bytes per second an upload is read at on this server: 12 MB/s measured on 2 cores (a
#: 47 MB table in 3.8 s), then the last read's speed; for the page's time-left estimate
_READ_SPEED = [12e6]


def expected_read_seconds(n_bytes: int) -> float:
    """About how long reading an upload of ``n_bytes`` takes here (from the last read)."""
    return n_bytes / _READ_SPEED[0]


def parse_upload(content: bytes, filename: str, max_rows: int | None = None) -> Dataset:
    """A dataset parsed from uploaded bytes (validated; raises DataError). Not cached:
    the page stores the result in the session."""
    name = filename.rsplit(".", 1)[0] or "upload"
    big = len(content) > 1e6
    if big:  # what receiving the file freed goes back first, so the parse's peak does not add to it
        trim_memory(collect=False)
    start = time.perf_counter()
    dataset = load_csv(content, max_rows=max_rows, name=name)
    seconds = time.perf_counter() - start
    if big and seconds > 0.1 and max_rows is None:  # big enough to measure
        _READ_SPEED[0] = len(content) / seconds
    watch_dataset(dataset)
    if big:  # and what the parse freed
        trim_memory(collect=False)
    return dataset


def public_available() -> dict[str, bool]:
    """Which public datasets the operator provided (``PUX_DATA_DIR``)."""
    return available_public(None)


def public_dataset(name: str) -> Dataset:
    """Adult or NLTCS from the operator's data directory (raises DataError)."""
    root = resolve_data_dir(None)
    return _public_dataset(name, None if root is None else str(root))


@st.cache_resource(max_entries=4, ttl=TTL, show_spinner="Reading the public dataset...")
def _public_dataset(name: str, data_dir: str | None) -> Dataset:
    loader = {"adult": load_adult, "nltcs": load_nltcs}[name]
    return loader(data_dir)


#: rows written at a time by :func:`csv_bytes` (about 1 MB of text for 40 columns)
CSV_BLOCK_ROWS = 4096


def csv_bytes(dataset: Dataset, *, block_rows: int = CSV_BLOCK_ROWS) -> bytes:
    """The dataset as formula-guarded CSV bytes (integer columns written as integers):
    the bytes of :func:`core.data.export.to_csv_bytes` on :func:`core.data.export_frame`.

    Written ``block_rows`` rows at a time, so only one block's guarded copy and text exist
    beside the output: a whole-table copy, its text and its bytes took about 5.7 MB of
    server memory per MB of CSV (``benchmarks/bench_upload_cycle.py``). Not cached: the
    Data page keeps an upload's bytes in its session only."""
    if isinstance(block_rows, bool) or not isinstance(block_rows, int):
        raise TypeError(f"block_rows must be an int, got {type(block_rows).__name__}.")
    if block_rows < 1:
        raise ValueError(f"block_rows must be 1 or more, got {block_rows}.")
    frame = export_frame(dataset.frame)
    out = io.BytesIO()
    for start in range(0, max(len(frame), 1), block_rows):
        block = guard_formulas(frame.iloc[start:start + block_rows])
        out.write(block.to_csv(index=False, header=start == 0).encode("utf-8"))
        del block
    return out.getvalue()


@st.cache_data(max_entries=4, ttl=TTL, show_spinner=False, hash_funcs=HASH_FUNCS)
def csv_download(dataset: Dataset) -> bytes:
    """:func:`csv_bytes`, cached (samples and public data, shared by every session)."""
    return csv_bytes(dataset)


# --------------------------------------------------------------------------- public schemas

#: the largest schema file the Data page reads (a schema of 200 columns is far smaller)
MAX_SCHEMA_BYTES = 2_000_000


def parse_schema(content: bytes) -> "PublicSchema":
    """A public schema from an uploaded JSON file (validated; ValueError in one sentence).

    Its size (:data:`core.limits.MAX_SCHEMA_BYTES`: a schema lists columns, not rows) and
    nesting depth are checked before it is parsed (:func:`core.limits.load_json`).
    Not cached: the Data page applies it once per file."""
    from core.limits import MAX_SCHEMA_BYTES as limit
    from core.limits import load_json
    from core.privacy.schema import PublicSchema

    if not isinstance(content, (bytes, bytearray)):
        raise TypeError(f"content must be bytes, got {type(content).__name__}.")
    data = load_json(bytes(content), what="The schema file", max_bytes=limit)
    try:
        return PublicSchema.from_dict(data)
    except TypeError as exc:
        raise ValueError(f"The schema file is not a schema: {exc}") from None


def schema_json(schema: "PublicSchema") -> bytes:
    """The schema as the JSON file the Data page offers."""
    return (schema.to_json() + "\n").encode()


def estimate_public_schema(dataset: Dataset, schema: "PublicSchema", *, epsilon: float,
                           columns: list[str], ranges: dict | None = None,
                           progress=None) -> "PublicSchema":
    """:func:`core.privacy.schema_estimate.estimate_schema` with fresh entropy (never cached:
    each estimate is a new spend, drawn once and kept in the session by the caller)."""
    from core.privacy.schema_estimate import estimate_schema

    return estimate_schema(dataset, epsilon=epsilon, columns=columns, schema=schema, ranges=ranges,
                           random_state=None, progress=progress)
