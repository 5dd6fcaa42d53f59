"""A schema drafted from the rows: every entry "read from data", for the user to review.

:func:`draft_schema` is where a table without a shipped or declared schema starts: observed
ranges, observed categories, detected identifiers. Nothing in it is private; a release
that uses it says so until the user confirms the entries or estimates them
(:mod:`core.privacy.schema_estimate`).
"""
from __future__ import annotations

import numpy as np
import pandas as pd

from core.data.dataset import Dataset
from core.privacy.schema import PublicSchema
from core.privacy.schema_columns import OTHER, ColumnSchema

__all__ = ["draft_schema"]


def draft_schema(dataset: Dataset, *, detect: bool = True) -> PublicSchema:
    """A schema drafted from the rows: every entry marked "read from data".

    Numbers get their observed min and max, categories their observed values (sorted by
    text). The dataset's identifier columns (:attr:`Dataset.identifiers`) are drafted as
    identifiers and, with ``detect``, so is every column the rule of
    :func:`core.data.identifiers.detect_identifiers` finds (row numbers, also unsorted or
    with gaps, IDs, text keys; never a number with decimals), unless it is the label or
    sensitive. Nothing here is private: the draft is for the user to review, confirm or
    replace by an estimate.
    """
    from core.data.identifiers import detect_identifiers

    if not isinstance(dataset, Dataset):
        raise TypeError(f"dataset must be a Dataset, got {type(dataset).__name__}.")
    cols = []
    frame = dataset.frame
    roles = {dataset.label, *dataset.sensitive} - {None}
    ids = {c: "marked as an identifier" for c in dataset.identifiers}
    if detect:
        found = detect_identifiers(frame, exclude=roles)
        ids.update({c: f"{why}: an identifier" for c, why in found.items() if c not in ids})
    for name in frame.columns:
        s = frame[name]
        if name in ids and name not in roles:
            cols.append(ColumnSchema(name, "identifier", source="read from data", note=ids[name]))
            continue
        if name in dataset.numeric:
            v = pd.to_numeric(s, errors="coerce").dropna()
            integer = bool(len(v)) and bool(np.all(v.to_numpy() == np.round(v.to_numpy())))
            lo = float(v.min()) if len(v) else 0.0
            hi = float(v.max()) if len(v) else 1.0
            if not lo < hi:
                hi = lo + 1.0
            cols.append(ColumnSchema(name, "numeric", lower=lo, upper=hi, integer=integer,
                                     source="read from data"))
        else:
            values = s.dropna()
            cats = sorted(values.unique(), key=str) or [OTHER]
            cols.append(ColumnSchema(name, "categorical", categories=tuple(cats), source="read from data"))
    return PublicSchema(tuple(cols), label=dataset.label, sensitive=dataset.sensitive,
                        name=dataset.name)

