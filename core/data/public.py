"""The real public datasets: UCI Adult and NLTCS, read from a directory the user names.

The files are never shipped with the project. ``data_dir`` falls back to the environment
variable ``PUX_DATA_DIR``.
"""
from __future__ import annotations

import os
from pathlib import Path

import numpy as np
import pandas as pd

from core.data.dataset import Dataset, infer_column_types
from core.validation import DataError

__all__ = ["ADULT_COLUMNS", "resolve_data_dir", "load_adult", "load_nltcs", "available_public"]

ADULT_COLUMNS = [
    "age", "workclass", "fnlwgt", "education", "education_num", "marital_status",
    "occupation", "relationship", "race", "sex", "capital_gain", "capital_loss",
    "hours_per_week", "native_country", "income",
]
_HOW_TO_GET = {
    "adult": "adult.data and adult.test from the UCI Machine Learning Repository ('Adult')",
    "nltcs": "nltcs.csv (16 binary columns x1..x16, the NLTCS extract used in the DP literature)",
}


def resolve_data_dir(data_dir: str | os.PathLike | None = None) -> Path | None:
    """The directory to read public data from: ``data_dir``, else ``$PUX_DATA_DIR``, else None."""
    if data_dir is not None:
        return Path(data_dir)
    env = os.environ.get("PUX_DATA_DIR")
    return Path(env) if env else None


def _require(files: list[str], key: str, data_dir: str | os.PathLike | None) -> list[Path]:
    root = resolve_data_dir(data_dir)
    if root is None:
        raise DataError(
            f"No data directory is set: put {_HOW_TO_GET[key]} in a folder and set "
            "PUX_DATA_DIR to it (or pass --data-dir)."
        )
    paths = [root / f for f in files]
    missing = [p for p in paths if not p.is_file()]
    if missing:
        raise DataError(
            f"Looked for {', '.join(str(p) for p in missing)} and found nothing; put "
            f"{_HOW_TO_GET[key]} there, or point PUX_DATA_DIR (or --data-dir) at the folder "
            "that holds them."
        )
    return paths


def _read_adult_file(path: Path) -> pd.DataFrame:
    frame = pd.read_csv(
        path,
        header=None,
        names=ADULT_COLUMNS,
        skipinitialspace=True,
        na_values=["?"],
        comment="|",
        skip_blank_lines=True,
    )
    return frame.dropna(how="all")


def load_adult(data_dir: str | os.PathLike | None = None) -> Dataset:
    """UCI Adult, both files (48,842 rows), ``?`` as missing, label ``income``.

    The test file's labels end with a dot (``>50K.``); it is stripped so both parts share
    two classes. ``sex`` is marked sensitive, as in papers 002 and 003.
    """
    train, test = _require(["adult.data", "adult.test"], "adult", data_dir)
    frame = pd.concat([_read_adult_file(train), _read_adult_file(test)], ignore_index=True)
    frame["income"] = frame["income"].astype(str).str.strip().str.rstrip(".")
    for col in frame.columns:
        if not pd.api.types.is_numeric_dtype(frame[col]):
            frame[col] = frame[col].str.strip()
    numeric, categorical = infer_column_types(frame)
    return Dataset(frame, "income", ("sex",), numeric, categorical, name="adult")


def load_nltcs(data_dir: str | os.PathLike | None = None) -> Dataset:
    """NLTCS: 21,574 people x 16 binary disability indicators ``x1..x16``.

    No label; no column is marked sensitive (pages let the user choose).
    """
    (path,) = _require(["nltcs.csv"], "nltcs", data_dir)
    frame = pd.read_csv(path).astype(np.int64)
    return Dataset(frame, None, (), tuple(frame.columns), (), name="nltcs")


def available_public(data_dir: str | os.PathLike | None = None) -> dict[str, bool]:
    """Which public datasets can be read from the data directory."""
    root = resolve_data_dir(data_dir)
    if root is None:
        return {"adult": False, "nltcs": False}
    return {
        "adult": (root / "adult.data").is_file() and (root / "adult.test").is_file(),
        "nltcs": (root / "nltcs.csv").is_file(),
    }
