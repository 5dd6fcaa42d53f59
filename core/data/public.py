"""The real public datasets: UCI Adult and NLTCS, read from a directory the user names.

The files are never shipped with the project. ``data_dir`` falls back to the environment
variable ``PUX_DATA_DIR``.
"""
from __future__ import annotations

import io
import os
from pathlib import Path

import numpy as np
import pandas as pd

from core.data.dataset import Dataset, infer_column_types
from core.validation import DataError

__all__ = ["ADULT_COLUMNS", "EXPECTED_ROWS", "resolve_data_dir", "load_adult", "load_nltcs", "available_public"]

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


#: Data rows of the UCI files (adult.test also has a first line ``|1x3 Cross validator``).
EXPECTED_ROWS = {"adult.data": 32_561, "adult.test": 16_281, "nltcs.csv": 21_574}
NLTCS_COLUMNS = [f"x{i}" for i in range(1, 17)]


def _require(files: list[str], key: str, data_dir: str | os.PathLike | None) -> list[Path]:
    root = resolve_data_dir(data_dir)
    if root is None:
        raise DataError(
            f"No data directory is set: put {_HOW_TO_GET[key]} in a folder and set "
            "PUX_DATA_DIR to it (or pass --data-dir)."
        )
    paths = [root / f for f in files]
    missing = [p.name for p in paths if not p.is_file()]
    if missing:
        raise DataError(
            f"Looked for {', '.join(missing)} in the data directory and found nothing; put "
            f"{_HOW_TO_GET[key]} there, or point PUX_DATA_DIR (or --data-dir) at the folder "
            "that holds them."
        )
    return paths


def _unusable(name: str, reason: str) -> DataError:
    """One fixed sentence plus the reason; never a path or the file's contents."""
    return DataError(f"The public file {name} in the data directory cannot be used: {reason}.")


def _text(path: Path) -> str:
    raw = path.read_bytes()
    if not raw.strip():
        raise _unusable(path.name, "it is empty; download it again")
    try:
        return raw.decode("ascii")
    except UnicodeDecodeError:
        raise _unusable(
            path.name, "it is not plain text in the UCI format (a different or damaged file); "
            "download it again"
        ) from None


def _read_adult_file(path: Path) -> pd.DataFrame:
    text = _text(path)
    try:
        frame = pd.read_csv(
            io.StringIO(text),
            header=None,
            names=ADULT_COLUMNS,
            skipinitialspace=True,
            na_values=["?"],
            comment="|",
            skip_blank_lines=True,
            on_bad_lines="error",
        )
    except (pd.errors.ParserError, pd.errors.EmptyDataError, ValueError):
        raise _unusable(
            path.name, f"its rows do not have the {len(ADULT_COLUMNS)} comma-separated fields "
            "of the UCI format; download it again"
        ) from None
    frame = frame.dropna(how="all")
    if frame.iloc[:, -1].isna().any() or frame.iloc[:, -2].isna().all():
        raise _unusable(
            path.name, f"some rows have fewer than the {len(ADULT_COLUMNS)} fields of the UCI "
            "format; download it again"
        )
    expected = EXPECTED_ROWS[path.name]
    if len(frame) != expected:
        raise _unusable(
            path.name, f"it has {len(frame):,} data rows where the UCI file has {expected:,} "
            "(truncated or a different file); download it again"
        )
    for col in ("age", "fnlwgt", "education_num", "capital_gain", "capital_loss", "hours_per_week"):
        if not pd.api.types.is_numeric_dtype(frame[col]):
            raise _unusable(
                path.name, f"its column {col} is not numeric as in the UCI format; download "
                "it again"
            )
    labels = set(frame["income"].astype(str).str.strip().str.rstrip("."))
    if labels != {"<=50K", ">50K"}:
        raise _unusable(path.name, "its last column is not the income label (<=50K / >50K)")
    return frame


def load_adult(data_dir: str | os.PathLike | None = None) -> Dataset:
    """UCI Adult, both files (48,842 rows), ``?`` as missing, label ``income``.

    The test file's labels end with a dot (``>50K.``); it is stripped so both parts share
    two classes. ``sex`` is marked sensitive, as in papers 002 and 003. The files are
    checked (text, 15 fields per row, exactly 32,561 and 16,281 data rows, numeric
    columns, two income classes): anything else raises :class:`DataError` with one
    sentence that names the file, never its path or its contents.
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

    No label; no column is marked sensitive (pages let the user choose). The file is
    checked (header ``x1..x16``, 21,574 rows, values 0/1).
    """
    (path,) = _require(["nltcs.csv"], "nltcs", data_dir)
    text = _text(path)
    try:
        frame = pd.read_csv(io.StringIO(text), on_bad_lines="error")
    except (pd.errors.ParserError, pd.errors.EmptyDataError, ValueError):
        raise _unusable(path.name, "its rows are not comma-separated 0/1 values") from None
    if list(frame.columns) != NLTCS_COLUMNS:
        raise _unusable(path.name, "its header is not x1,x2,...,x16")
    expected = EXPECTED_ROWS[path.name]
    if len(frame) != expected:
        raise _unusable(
            path.name, f"it has {len(frame):,} rows where the NLTCS extract has {expected:,} "
            "(truncated or a different file)"
        )
    values = frame.to_numpy()
    if not (pd.api.types.is_integer_dtype(frame.dtypes.iloc[0]) and frame.dtypes.nunique() == 1
            and np.isin(values, (0, 1)).all()):
        raise _unusable(path.name, "some of its cells are not 0 or 1")
    frame = frame.astype(np.int64)
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
