"""Count queries of paper 000's publishing (Section 6.3): random conjunctive range queries
and their exact answers.

A :class:`Query` is a conjunction of ranges lo <= value <= hi over the original attributes
(categories as codes). :func:`schema_range_queries` draws them from the public schema (ranges
from the declared bounds, categories from the declared lists), never from the values;
:func:`random_range_queries` draws them from the records' values (the paper's reading, not
DP: kept as the audit's mutant). :func:`answer_counts` answers them on a coded table,
dropping the conditions on attributes a scheme removed. Nothing here adds noise: the releases
are :mod:`core.cdp.publishing`'s.
"""
from __future__ import annotations

from dataclasses import dataclass
from typing import Callable, Iterable, Sequence

import numpy as np
import pandas as pd

from core.cdp.dp_reading import LOG_SCALE_RATIO, reading_columns
from core.data import Dataset, ordinal_codes
from core.privacy.schema import PublicSchema
from core.runtime.randomness import RandomState, check_random_state
from core.validation import DataError, check_positive_int

__all__ = [
    "QUERY_SOURCES",
    "Query",
    "values_coded",
    "schema_coded",
    "schema_range_queries",
    "random_range_queries",
    "answer_counts",
    "query_matches",
]

#: Where the query ranges come from: the public schema, or (the audit's mutant, not DP) the values.
QUERY_SOURCES = ("schema", "values")


@dataclass(frozen=True)
class Query:
    """A conjunction of range conditions lo <= value <= hi (categoricals as sorted codes)."""

    conditions: tuple[tuple[str, float, float], ...]

    def describe(self) -> str:
        return " AND ".join(f"{lo:g} <= {c} <= {hi:g}" for c, lo, hi in self.conditions)


def values_coded(dataset: Dataset) -> pd.DataFrame:
    """The records as :func:`random_range_queries` sees them: numbers as they are, each
    categorical column as the codes of its sorted values."""
    out = {}
    for col in dataset.features:
        s = dataset.frame[col]
        if col in dataset.categorical:
            out[col] = ordinal_codes(s)[0].astype(float)
        else:
            out[col] = s.to_numpy(dtype=float)
    return pd.DataFrame(out)


def schema_coded(dataset: Dataset | pd.DataFrame, schema: PublicSchema,
                 columns: Sequence[str] | None = None) -> pd.DataFrame:
    """The records as the queries see them, from the schema alone: numbers conformed to their
    declared bounds, categories as codes over ``ColumnSchema.domain`` (record by record)."""
    frame = dataset.frame if isinstance(dataset, Dataset) else dataset
    cols = reading_columns(schema, schema.label, None) if columns is None else list(columns)
    conformed = schema.conform(frame, cols)
    out = {}
    for c in cols:
        if schema[c].kind == "numeric":
            out[c] = conformed[c].to_numpy(dtype=float)
        else:
            out[c] = schema.codes(conformed, c).astype(float)
    return pd.DataFrame(out, index=frame.index)


def _public_value(spec, u: np.ndarray) -> np.ndarray:
    """Points of a numeric column's declared range from uniforms ``u`` in [0, 1): uniform on
    the range, or on the log1p scale for a wide one (the rule of
    :func:`core.cdp.dp_reading.schema_matrix`); whole numbers for an integer column."""
    lo, hi = float(spec.lower), float(spec.upper)
    if lo >= 0 and (hi + 1.0) / (lo + 1.0) >= LOG_SCALE_RATIO:
        v = np.expm1(np.log1p(lo) + u * (np.log1p(hi) - np.log1p(lo)))
    else:
        v = lo + u * (hi - lo)
    v = np.clip(v, lo, hi)
    return np.round(v) if spec.integer else v


def schema_range_queries(
    schema: PublicSchema,
    columns: Sequence[str] | None = None,
    *,
    n_queries: int = 200,
    max_conditions: int = 3,
    random_state: RandomState = None,
) -> list[Query]:
    """Random conjunctive range queries drawn from the public schema, never from the records.

    Each query picks 1..``max_conditions`` attributes of ``columns`` (default every schema
    feature) and, for each, a range: two points of a numeric column's declared range
    (log-uniform for a range of three orders of magnitude or more), or two codes of a
    categorical column's domain (:func:`schema_coded`'s coding). The same schema and seed
    give the same queries on any table.
    """
    n_queries = check_positive_int(n_queries, name="n_queries")
    max_conditions = check_positive_int(max_conditions, name="max_conditions")
    if not isinstance(schema, PublicSchema):
        raise TypeError(f"schema must be a PublicSchema, got {type(schema).__name__}.")
    rng = check_random_state(random_state)
    cols = reading_columns(schema, schema.label, None) if columns is None else list(columns)
    if not cols:
        raise DataError("The schema has no attributes to query.")
    def public_range(col: str) -> tuple[float, float]:
        spec = schema[col]
        if spec.kind == "numeric":
            return tuple(np.sort(_public_value(spec, rng.random(2))))
        return tuple(np.sort(rng.integers(0, len(spec.domain), size=2)).astype(float))

    return _random_queries(cols, n_queries, max_conditions, rng, public_range)


def _random_queries(cols: list[str], n_queries: int, max_conditions: int, rng: np.random.Generator,
                    draw_range: Callable[[str], tuple[float, float]]) -> list[Query]:
    """``n_queries`` conjunctions of 1..``max_conditions`` attributes, each range from ``draw_range``."""
    out = []
    for _ in range(n_queries):
        k = int(rng.integers(1, min(max_conditions, len(cols)) + 1))
        chosen = rng.choice(len(cols), size=k, replace=False)
        conds = []
        for j in sorted(chosen):
            a, b = draw_range(cols[j])
            conds.append((cols[j], float(a), float(b)))
        out.append(Query(tuple(conds)))
    return out


def random_range_queries(
    dataset: Dataset,
    *,
    n_queries: int = 200,
    max_conditions: int = 3,
    random_state: RandomState = None,
) -> list[Query]:
    """Random conjunctive range queries over the attributes of ``dataset``, from its values.

    Each query picks 1..``max_conditions`` attributes and, for each, a range between two
    values drawn from the attribute's observed values (so ranges follow the data).
    Not differentially private: a value only one record has can become a query's end, and
    the release shows it. Kept as the audit's mutant; releases use
    :func:`schema_range_queries`.
    """
    n_queries = check_positive_int(n_queries, name="n_queries")
    max_conditions = check_positive_int(max_conditions, name="max_conditions")
    rng = check_random_state(random_state)
    coded = values_coded(dataset)
    cols = list(coded.columns)
    if not cols:
        raise DataError("The data has no attributes to query.")
    values = {c: np.unique(coded[c].to_numpy()) for c in cols}
    return _random_queries(cols, n_queries, max_conditions, rng,
                           lambda col: tuple(np.sort(rng.choice(values[col], size=2, replace=True))))


def _mask(arrays: dict[str, np.ndarray], n: int, query: Query, keep: set[str]) -> np.ndarray:
    mask = np.ones(n, dtype=bool)
    for c, lo, hi in query.conditions:
        if c in keep:
            v = arrays[c]
            mask &= (v >= lo) & (v <= hi)
    return mask


def answer_counts(coded: pd.DataFrame, queries: Sequence[Query], columns: Iterable[str]) -> np.ndarray:
    """Exact counts, with conditions on attributes outside ``columns`` dropped."""
    keep = set(columns)
    arrays = {c: coded[c].to_numpy() for c in coded.columns}
    return np.array([_mask(arrays, len(coded), q, keep).sum() for q in queries], dtype=float)


def query_matches(dataset: Dataset, query: Query, columns: Iterable[str],
                  schema: PublicSchema | None = None) -> np.ndarray:
    """Which records satisfy ``query`` once conditions outside ``columns`` are dropped.

    ``schema``: the records are coded as :func:`schema_coded` does (the queries of
    :func:`schema_range_queries`); without it, as the values' sorted categories
    (:func:`random_range_queries`)."""
    coded = values_coded(dataset) if schema is None else schema_coded(dataset, schema)
    return _mask({c: coded[c].to_numpy() for c in coded.columns}, len(coded), query, set(columns))
