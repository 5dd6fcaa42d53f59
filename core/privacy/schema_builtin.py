"""The public schemas shipped with the built-in datasets, and :func:`schema_for` any dataset.

Each built-in schema comes from its dataset's generator (:mod:`core.data.samples`) or its
published codebook (UCI Adult, NLTCS), never from its rows: its entries have source
"built-in" and a note saying where each fact comes from. :func:`schema_for` picks the
shipped schema of a built-in dataset, or drafts one (:func:`core.privacy.schema_draft.draft_schema`).
"""
from __future__ import annotations

from dataclasses import replace
from typing import Any, Sequence

from core.data.dataset import Dataset
from core.data.public import ADULT_BOUNDS, ADULT_CATEGORIES, ADULT_COLUMNS, ADULT_CUTS
from core.privacy.schema import PublicSchema
from core.privacy.schema_columns import ColumnSchema
from core.privacy.schema_draft import draft_schema

__all__ = ["ADULT_CATEGORIES", "BUILT_IN_SCHEMAS", "schema_for"]


def _num(name: str, lo: float, hi: float, note: str, *, integer: bool = True,
         cuts: Sequence[float] | None = None) -> ColumnSchema:
    return ColumnSchema(name, "numeric", lower=lo, upper=hi, integer=integer, source="built-in", note=note,
                        cuts=None if cuts is None else tuple(cuts))


def _cat(name: str, cats: Sequence[Any], note: str) -> ColumnSchema:
    return ColumnSchema(name, "categorical", categories=tuple(cats), source="built-in", note=note)


def _supplier_schema(with_products: bool = True) -> PublicSchema:
    from core.data import samples as S

    gen = "the generator core.data.samples.make_supplier"
    cols = [
        _num("established_year", 1980, 2022, f"{gen} clips years to 1980-2022"),
        _cat("region", S._REGIONS, f"the region list of {gen}"),
        _num("insured_persons", 1, 100_000, "a public size class: at most 100,000 insured staff"),
        _cat("enterprise_type", S._TYPES, f"the enterprise types of {gen}"),
        _cat("investment_entity", S._ENTITIES, f"the investor kinds of {gen}"),
        _num("registered_capital", 0, 1_000_000, "a public size class: capital up to 1,000,000",
             integer=False),
    ]
    if with_products:
        cols += [_cat(p, (0, 1), "a 0/1 product-line flag") for p in S.PRODUCT_COLUMNS]
    cols.append(_cat("listed", (0, 1), "the 0/1 label 'listed'"))
    return PublicSchema(tuple(cols), label="listed", sensitive=(), max_group_size=45,
                        max_group_source="built-in", name="supplier")


def _census_schema() -> PublicSchema:
    from core.data import samples as S

    gen = "the generator core.data.samples.make_census"
    cols = (
        _num("age", 17, 90, f"{gen} clips ages to 17-90"),
        _cat("workclass", ("Private", "Self-emp", "Gov"), f"the workclass list of {gen}"),
        _cat("education", S._EDU, f"the education list of {gen}"),
        _num("education_num", 1, 16, "years of education, 1-16 as in the UCI Adult codebook"),
        _cat("marital_status", ("Married", "Never-married", "Divorced", "Widowed"), f"{gen}"),
        _cat("occupation", tuple(S._OCCUPATIONS), f"the occupation list of {gen}"),
        _cat("relationship", ("Husband", "Wife", "Not-in-family", "Own-child", "Unmarried"), f"{gen}"),
        _num("hours_per_week", 5, 90, f"{gen} clips hours to 5-90"),
        _cat("sex", ("Male", "Female"), f"{gen}"),
        _cat("income", ("<=50K", ">50K"), f"{gen}"),
    )
    return PublicSchema(cols, label="income", sensitive=("sex",), name="census")


def _adult_schema() -> PublicSchema:
    book = "the UCI Adult codebook (adult.names)"
    cols = []
    for name in ADULT_COLUMNS:
        if name in ADULT_BOUNDS:
            lo, hi, note = ADULT_BOUNDS[name]
            cuts, why = ADULT_CUTS.get(name, (None, ""))
            note = note.format(book=book) + (f"; bins: {why.format(book=book)}" if cuts else "")
            cols.append(_num(name, lo, hi, note, cuts=cuts))
        else:
            cols.append(_cat(name, ADULT_CATEGORIES[name], book))
    return PublicSchema(tuple(cols), label="income", sensitive=("sex",), name="adult")


def _nltcs_schema() -> PublicSchema:
    cols = tuple(_cat(f"x{i}", (0, 1), "a 0/1 disability indicator (NLTCS codebook)") for i in range(1, 17))
    return PublicSchema(cols, label=None, sensitive=(), name="nltcs")


#: The schemas shipped with the built-in datasets, by Dataset.name.
BUILT_IN_SCHEMAS = {
    "supplier": _supplier_schema,
    "census": _census_schema,
    "adult": _adult_schema,
    "nltcs": _nltcs_schema,
}


def schema_for(dataset: Dataset) -> PublicSchema:
    """The public schema of ``dataset``: the shipped one for a built-in dataset, else a draft.

    A built-in schema is restricted to the dataset's columns (a subset keeps its entries) and
    takes the dataset's roles. Anything else gets :func:`draft_schema` (every entry "read
    from data", so a release from it says it is not differentially private until the user
    confirms the entries or estimates them).
    """
    if not isinstance(dataset, Dataset):
        raise TypeError(f"dataset must be a Dataset, got {type(dataset).__name__}.")
    make = BUILT_IN_SCHEMAS.get(dataset.name)
    if make is None:
        return draft_schema(dataset)
    full = make()
    cols = list(dataset.frame.columns)
    if not set(cols) <= set(full.names):
        return draft_schema(dataset)
    kept = tuple(c for c in full.columns if c.name in cols)
    ordered = tuple(sorted(kept, key=lambda c: cols.index(c.name)))
    return replace(full, columns=ordered, label=dataset.label, sensitive=tuple(dataset.sensitive))
