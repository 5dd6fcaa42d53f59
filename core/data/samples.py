"""Built-in synthetic datasets, made by seeded generators that live here.

``supplier`` stands in for the private supplier table of paper 000 (same attributes and
size, groups of correlated suppliers); ``census`` is a small Adult-like table whose
``sex`` column leaks through other columns (relationship, occupation, hours), for the
IMPOSTER and SSKM_DP pages. Both are synthetic: no real person or firm is in them.

The CSV files in ``sample_data/`` are written by ``python sample_data/make_samples.py``
from these generators; :func:`load_sample` reads those files (what the user sees and can
download is exactly what the methods get).
"""
from __future__ import annotations

from pathlib import Path

import numpy as np
import pandas as pd

from core.data.dataset import Dataset, infer_column_types
from core.runtime.randomness import RandomState, check_random_state
from core.validation import DataError

__all__ = ["SAMPLES", "SAMPLE_DIR", "load_sample", "make_census", "make_supplier"]

SAMPLE_DIR = Path(__file__).resolve().parents[2] / "sample_data"
PRODUCT_COLUMNS = [
    "product_steel", "product_electronics", "product_chemicals",
    "product_textiles", "product_machinery", "product_food",
]
_REGIONS = ["North", "Northeast", "East", "Central", "South", "Southwest", "Northwest"]
_TYPES = ["state-owned", "private", "joint-venture", "foreign-owned", "collective"]
_ENTITIES = ["domestic", "foreign", "mixed", "government"]


def make_supplier(n: int = 1160, *, random_state: RandomState = 0) -> pd.DataFrame:
    """Synthetic supplier table of paper 000's shape.

    Suppliers come in groups (a parent firm and its subsidiaries, a cluster of firms in one
    industrial park) that share region, type and investor and have similar age, size and
    capital, so their records are strongly correlated: the correlated sensitivity of a count
    query at delta0 = 0.8 lies well above 1 and well below n. ``listed`` (the label) depends
    on capital, staff, age and type through a logistic model.
    """
    rng = check_random_state(random_state)
    # group sizes: many singletons and small groups, a few large conglomerates
    sizes: list[int] = []
    while sum(sizes) < n:
        sizes.append(int(min(rng.geometric(0.12), 45)))
    sizes[-1] -= sum(sizes) - n
    rows = []
    for gid, size in enumerate(sizes):
        region = rng.integers(len(_REGIONS))
        etype = rng.choice(len(_TYPES), p=[0.18, 0.42, 0.15, 0.13, 0.12])
        entity = rng.choice(len(_ENTITIES), p=[0.5, 0.15, 0.2, 0.15])
        year0 = rng.integers(1985, 2020)
        log_staff0 = rng.normal(5.0, 1.2)
        log_cap0 = 0.8 * log_staff0 + rng.normal(3.0, 0.8)
        products0 = rng.random(len(PRODUCT_COLUMNS)) < 0.3
        for _ in range(size):
            tight = size > 1
            year = int(np.clip(year0 + rng.integers(-2, 3) if tight else year0, 1980, 2022))
            log_staff = log_staff0 + rng.normal(0, 0.15 if tight else 0)
            log_cap = log_cap0 + rng.normal(0, 0.15 if tight else 0)
            prods = np.where(rng.random(len(PRODUCT_COLUMNS)) < 0.1, ~products0, products0)
            rows.append(
                {
                    "established_year": year,
                    "region": _REGIONS[region],
                    "insured_persons": int(max(1, round(np.exp(log_staff)))),
                    "enterprise_type": _TYPES[etype],
                    "investment_entity": _ENTITIES[entity],
                    "registered_capital": round(float(np.exp(log_cap)), 1),
                    **{c: int(p) for c, p in zip(PRODUCT_COLUMNS, prods)},
                    "_group": gid,
                }
            )
    frame = pd.DataFrame(rows)
    z = (
        0.9 * (np.log(frame["registered_capital"]) - 7.0)
        + 0.6 * (np.log(frame["insured_persons"]) - 5.0)
        - 0.05 * (frame["established_year"] - 2002)
        + 1.0 * (frame["enterprise_type"] == "state-owned")
        + 0.6 * (frame["investment_entity"] == "government")
        - 0.8
    )
    p = 1.0 / (1.0 + np.exp(-2.0 * z))
    frame["listed"] = (rng.random(len(frame)) < p).astype(int)
    order = rng.permutation(len(frame))
    return frame.iloc[order].drop(columns="_group").reset_index(drop=True)


_OCCUPATIONS = {
    # occupation: (share among men, share among women)
    "Craft-repair": (0.20, 0.02),
    "Transport-moving": (0.08, 0.01),
    "Exec-managerial": (0.14, 0.10),
    "Prof-specialty": (0.12, 0.14),
    "Sales": (0.11, 0.11),
    "Adm-clerical": (0.06, 0.30),
    "Other-service": (0.07, 0.17),
    "Tech-support": (0.04, 0.04),
    "Machine-op-inspct": (0.08, 0.05),
    "Farming-fishing": (0.10, 0.06),
}
#: income effect of each occupation (log-odds before the sharpening in make_census)
_OCC_INCOME = {
    "Craft-repair": 0.3, "Transport-moving": -0.2, "Exec-managerial": 1.0,
    "Prof-specialty": 0.9, "Sales": 0.3, "Adm-clerical": -0.3, "Other-service": -1.2,
    "Tech-support": 0.5, "Machine-op-inspct": -0.5, "Farming-fishing": -0.8,
}
_EDU = ["HS-grad", "Some-college", "Bachelors", "Masters", "Assoc", "Doctorate", "11th"]
_EDU_YEARS = [9, 10, 13, 14, 11, 16, 7]


def make_census(n: int = 3000, *, random_state: RandomState = 0) -> pd.DataFrame:
    """Small Adult-like census table; ``sex`` is sensitive and leaks through other columns.

    ``relationship`` (Husband / Wife) nearly gives ``sex`` away, ``occupation`` and
    ``hours_per_week`` hint at it; ``income`` (the label) depends on education, age, hours,
    occupation and marital status about as strongly as in Adult (a non-private boosted model
    beats the constant guess by about 0.1 accuracy, ROC AUC about 0.9).
    """
    rng = check_random_state(random_state)
    male = rng.random(n) < 0.67
    age = np.clip(rng.normal(39, 13, n).round(), 17, 90).astype(int)
    edu_idx = rng.choice(len(_EDU), size=n, p=[0.32, 0.22, 0.17, 0.06, 0.08, 0.02, 0.13])
    married = rng.random(n) < np.clip(0.15 + 0.012 * (age - 17), 0.1, 0.7)
    single_rel = rng.choice(["Not-in-family", "Own-child", "Unmarried"], size=n, p=[0.5, 0.3, 0.2])
    relationship = np.where(married, np.where(male, "Husband", "Wife"), single_rel)
    marital = np.where(married, "Married", rng.choice(["Never-married", "Divorced", "Widowed"], size=n, p=[0.6, 0.3, 0.1]))
    occ_names = list(_OCCUPATIONS)
    p_m = np.array([v[0] for v in _OCCUPATIONS.values()])
    p_f = np.array([v[1] for v in _OCCUPATIONS.values()])
    occ = np.where(
        male,
        rng.choice(len(occ_names), size=n, p=p_m / p_m.sum()),
        rng.choice(len(occ_names), size=n, p=p_f / p_f.sum()),
    )
    hours = np.clip(rng.normal(np.where(male, 43, 36), 9, n).round(), 5, 90).astype(int)
    edu_years = np.array(_EDU_YEARS)[edu_idx]
    # income as in Adult: mostly decided by marriage, schooling, occupation, age and hours,
    # sharp enough (the 1.75) that a non-private boosted model gains about 0.1 accuracy over
    # the constant guess (~0.77 "<=50K") with an ROC AUC about 0.9, as on UCI Adult
    occ_effect = np.array([_OCC_INCOME[o] for o in occ_names])[occ]
    z = 1.75 * (
        0.45 * (edu_years - 10)
        + 0.06 * (np.minimum(age, 55) - 38)
        - 0.03 * np.maximum(age - 60, 0)
        + 0.05 * (hours - 40)
        + 2.0 * married
        + occ_effect
        - 2.65
    )
    income = np.where(rng.random(n) < 1 / (1 + np.exp(-z)), ">50K", "<=50K")
    return pd.DataFrame(
        {
            "age": age,
            "workclass": rng.choice(["Private", "Self-emp", "Gov"], size=n, p=[0.72, 0.12, 0.16]),
            "education": np.array(_EDU)[edu_idx],
            "education_num": edu_years,
            "marital_status": marital,
            "occupation": np.array(occ_names)[occ],
            "relationship": relationship,
            "hours_per_week": hours,
            "sex": np.where(male, "Male", "Female"),
            "income": income,
        }
    )


SAMPLES = {
    "supplier": {
        "make": make_supplier,
        "file": "supplier.csv",
        "label": "listed",
        "sensitive": (),
        "description": "Synthetic supplier table (paper 000's shape): 1,160 firms, groups of correlated suppliers, label 'listed'.",
    },
    "census": {
        "make": make_census,
        "file": "census.csv",
        "label": "income",
        "sensitive": ("sex",),
        "description": "Synthetic census-like table: 3,000 people, 'sex' sensitive and leaked by relationship, occupation and hours; label 'income'.",
    },
}


def load_sample(name: str, *, with_products: bool = True) -> Dataset:
    """One of the built-in synthetic datasets (``"supplier"`` or ``"census"``).

    Parameters
    ----------
    name : str
        Sample name, one of :data:`SAMPLES`.
    with_products : bool
        For ``supplier``: keep the one-hot product-line columns (paper 000 publishes with
        and without them).
    """
    if name not in SAMPLES:
        raise DataError(f"There is no sample called '{name}'; choose one of {sorted(SAMPLES)}.")
    spec = SAMPLES[name]
    path = SAMPLE_DIR / spec["file"]
    frame = pd.read_csv(path) if path.is_file() else spec["make"]()
    if name == "supplier" and not with_products:
        frame = frame.drop(columns=PRODUCT_COLUMNS)
    numeric, categorical = infer_column_types(frame)
    if spec["label"] in numeric:  # a 0/1 label is a class, not a quantity
        numeric = tuple(c for c in numeric if c != spec["label"])
        categorical = categorical + (spec["label"],)
    return Dataset(
        frame, spec["label"], spec["sensitive"], numeric, categorical, name=name,
        notes=("Synthetic data generated by the project; no real records.",),
    )
