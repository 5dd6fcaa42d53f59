"""How a cell is matched to a declared category: the canonical form, cell by cell.

The rule (:func:`canonical`): surrounding whitespace is stripped; a value that reads as a
finite number is compared as that number (``"1"``, ``1``, ``1.0`` and ``" 1.00 "`` are one
category); any other text is compared as it is, case kept. :func:`match_categories` maps
each value to its declared category or :data:`OTHER`, looking at that value alone, so one
record can never change another record's category. :mod:`core.privacy.schema_columns`
and the schema-first reader both use it.
"""
from __future__ import annotations

import math
import numbers
from typing import Any

import numpy as np
import pandas as pd

__all__ = ["OTHER", "canonical", "match_categories"]

#: The category that every value outside a declared list (and a missing one) becomes.
OTHER = "(other)"


def canonical(value: Any) -> Any:
    """The form a cell is matched to a declared category in (:func:`match_categories`).

    The rule, cell by cell: surrounding whitespace is stripped; a value that reads as a
    finite number is compared as that number (``"1"``, ``1``, ``1.0`` and ``" 1.00 "`` are
    all 1.0); any other text is compared as it is, case kept (``"Male"`` is not ``"male"``).
    Nothing here looks at another record.
    """
    if isinstance(value, (bool, np.bool_)):
        return str(value)
    if isinstance(value, numbers.Real):
        out = float(value)
        return out if math.isfinite(out) else str(value)
    text = str(value).strip()
    try:
        out = float(text)
    except ValueError:
        return text
    return out if math.isfinite(out) else text


def match_categories(values: Any, categories: tuple, *, missing: Any = None) -> np.ndarray:
    """Each value's declared category (its canonical form matched, :func:`canonical`), else
    :data:`OTHER`; a missing value (None, NaN, an empty cell) becomes ``missing`` (default
    :data:`OTHER`).

    Record by record: a value's outcome depends on that value and the declared list only.
    Distinct values are matched once (``pandas.factorize``), so a column of many records
    costs one match per distinct value.
    """
    missing = OTHER if missing is None else missing
    lookup = {canonical(c): c for c in categories}
    codes, distinct = pd.factorize(pd.Series(values, dtype=object), use_na_sentinel=True)
    mapped = np.empty(len(distinct) + 1, dtype=object)
    for i, v in enumerate(distinct):
        key = canonical(v)
        mapped[i] = lookup.get(key, missing if key == "" else OTHER)
    mapped[-1] = missing  # code -1: a missing value
    return mapped[codes]

