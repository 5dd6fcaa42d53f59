"""The sensitive column of implicit-privacy detection, checked before any work.

:func:`core.imposter.detection.detect_implicit` asks a classifier to predict the sensitive
attribute ``s`` out of fold, so ``s`` must be a column of the table, categorical (2 to 20
values) and have every value in at least as many rows as there are folds; this module
refuses anything else with a sentence that says which.
"""
from __future__ import annotations

import pandas as pd

from core.validation import DataError

__all__ = ["check_sensitive_column"]


def check_sensitive_column(frame: pd.DataFrame, sensitive: str, folds: int) -> pd.Series:
    """The value counts of ``sensitive``, checked: 2 to 20 values, each in ``folds`` rows."""
    if sensitive not in frame.columns:
        raise DataError(f"The sensitive column '{sensitive}' is not in the data.")
    counts = frame[sensitive].value_counts(dropna=True)
    if len(counts) < 2:
        raise DataError(
            f"The sensitive column '{sensitive}' has a single value, so nothing can leak "
            "about it; choose another column."
        )
    if len(counts) > 20:
        raise DataError(
            f"The sensitive column '{sensitive}' has {len(counts)} distinct values; "
            "implicit-privacy detection needs a categorical attribute (20 values at most)."
        )
    if counts.min() < folds:
        raise DataError(
            f"The value '{counts.idxmin()}' of '{sensitive}' occurs only {counts.min()} "
            f"times; each value needs at least {folds} rows for the cross-validated check."
        )
    return counts
