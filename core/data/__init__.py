"""Datasets: the :class:`Dataset` object, loaders (CSV, samples, Adult, NLTCS), and encoding. The public
schema lives in :mod:`core.privacy.schema`."""
from core.data.csv_loader import (
    MAX_BYTES, MAX_COLUMNS, MAX_UPLOAD_MB, MIN_ROWS, export_frame, frame_to_dataset, load_csv,
)
from core.data.dataset import Dataset, infer_column_types
from core.data.encoding import Encoded, encode, ordinal_codes
from core.data.identifiers import detect_identifiers
from core.data.public import available_public, load_adult, load_nltcs, resolve_data_dir
from core.data.samples import SAMPLES, load_sample, make_census, make_supplier

__all__ = [
    "Dataset", "Encoded", "encode", "ordinal_codes", "infer_column_types", "detect_identifiers",
    "load_csv", "frame_to_dataset", "export_frame", "MIN_ROWS", "MAX_BYTES", "MAX_UPLOAD_MB",
    "MAX_COLUMNS",
    "load_sample", "make_supplier", "make_census", "SAMPLES",
    "load_adult", "load_nltcs", "available_public", "resolve_data_dir",
]
