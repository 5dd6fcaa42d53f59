"""Input checks and text codes shared by the empirical attacks of :mod:`core.evaluation.attacks`.

Every attack takes tables as a pandas DataFrame or a :class:`core.data.Dataset` and
columns by name; :func:`_as_frame` and :func:`_check_columns` read them the same way for
all of them, with the same messages. :func:`_text_codes` codes a non-numeric column by its
distinct values as text, which both the distance encoding and the exact-copy count use.
"""
from __future__ import annotations

from collections.abc import Sequence as SequenceABC
from typing import Any

import numpy as np
import pandas as pd

from core.data import Dataset
from core.validation import DataError

_MISSING = "(missing)"


def _as_frame(data: Any, name: str) -> pd.DataFrame:
    """The frame of a Dataset or DataFrame; TypeError for anything else."""
    if isinstance(data, Dataset):
        return data.frame
    if isinstance(data, pd.DataFrame):
        return data
    raise TypeError(f"{name} must be a pandas DataFrame or a Dataset, got {type(data).__name__}.")


def _check_columns(columns: Any, reference: pd.DataFrame, frames: dict[str, pd.DataFrame]) -> list[str]:
    """``columns`` (default: every column of the reference) as a list present in every frame."""
    if columns is None:
        columns = list(reference.columns)
    elif isinstance(columns, (str, bytes)) or not isinstance(columns, (SequenceABC, pd.Index, np.ndarray)):
        raise TypeError(f"columns must be a list of column names or None, got {type(columns).__name__}.")
    columns = list(columns)
    if not columns:
        raise ValueError("columns must name at least one column to measure distances on.")
    if len(set(columns)) != len(columns):
        raise ValueError(f"columns must not repeat a name, got {columns}.")
    for name, frame in frames.items():
        missing = [c for c in columns if c not in frame.columns]
        if missing:
            raise DataError(f"The {name} table lacks the columns {missing}; pass tables with the same columns.")
    return columns



def _text_codes(s: pd.Series) -> tuple[np.ndarray, pd.Index]:
    """Codes of ``s`` into its distinct values as text (missing as ``(missing)``); only
    the distinct values are converted, so it costs one hashing pass."""
    codes, uniques = pd.factorize(s, use_na_sentinel=True)
    texts = [str(u) for u in uniques] + [_MISSING]
    return np.where(codes < 0, len(texts) - 1, codes), pd.Index(texts)

